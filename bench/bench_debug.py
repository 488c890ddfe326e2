#!/usr/bin/env python3
"""bench_debug - what the debugger paths add to a launch (issue 17 items 2, 3): the real
prte/prun, test/dvm/dvm_dbgd as the application (a PMIx client: init, a few gets,
finalize) and as the debugger's front end (a PMIx tool), the programs of examples/ as
the debugger's back end. For N = 16 and 64 processes on one DVM, medians of R runs of:
  - prun -n N APP                                   baseline A (plain launch)
  - prun -n N --exec-agent exec_agent APP           against A
  - prun -n N --fork-exec-agent forkexec_agent APP  against A
  - dvm_dbgd cospawn N APP --                        baseline B (the front end's own
                                                    plain spawn: same tool, same wait)
  - dvm_dbgd cospawn N node:1 APP -- debugger_daemon against B (one daemon per node:
                                                    the spawn is answered once the
                                                    daemons run; both jobs' ends)
  - dvm_dbgd cospawn N proc:1 APP -- debugger_daemon against B (a daemon per process)
Ratios against baselines of the same run, never pass/fail.

usage: bench_debug.py --build DIR [--reps R] [--quick]
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = ["--allow-run-as-root"] if os.geteuid() == 0 else []


def timed(argv, env):
    t0 = time.monotonic()
    r = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {r.returncode}: {r.stderr[-500:]!r}")
    return time.monotonic() - t0


def pid_gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    o = ap.parse_args()
    reps = 3 if o.quick else o.reps
    b = os.path.abspath(o.build)
    prte, prun, pterm = (os.path.join(b, "cli", t) for t in ("prte", "prun", "pterm"))
    app = os.path.join(b, "test", "dvm", "dvm_dbgd")
    ea = os.path.join(b, "examples", "exec_agent")
    fea = os.path.join(b, "examples", "forkexec_agent")
    dd = os.path.join(b, "examples", "debugger_daemon")
    for p in (prte, prun, pterm, app, ea, fea, dd):
        if not os.access(p, os.X_OK):
            sys.exit(f"bench_debug: ERROR: {p} not found (--build)")
    tmp = tempfile.mkdtemp(prefix="pxbdbg.")
    env = dict(os.environ, TMPDIR=tmp)
    uri, pidf = os.path.join(tmp, "uri"), os.path.join(tmp, "pid")
    pid = None
    rows = []
    try:
        timed([prte, "--daemonize", "--report-uri", uri, "--report-pid", pidf] + ROOT, env)
        with open(pidf) as f:
            pid = int(f.read().strip())
        P = [prun, "--dvm-uri", "file:" + uri] + ROOT

        def med(argv):
            timed(argv, env)  # warm
            return statistics.median(timed(argv, env) for _ in range(reps))

        print(f"bench_debug: {reps} reps, {os.cpu_count()} cpus")
        for n in (16, 64):
            a = med(P + ["-n", str(n), app, "whoami"])
            e = med(P + ["-n", str(n), "--exec-agent", ea, app, "whoami"])
            f = med(P + ["-n", str(n), "--fork-exec-agent", fea, app, "whoami"])
            base = med([app, "cospawn", str(n), "none", app, "whoami", "--"])
            node = med([app, "cospawn", str(n), "node:1", app, "whoami", "--", dd, "--no-release"])
            proc = med([app, "cospawn", str(n), "proc:1", app, "whoami", "--", dd, "--no-release"])
            rows.append((f"N={n} plain launch (prun)", a, None, None))
            rows.append((f"N={n} exec agent", e, a, "plain"))
            rows.append((f"N={n} fork/exec agent", f, a, "plain"))
            rows.append((f"N={n} front end, plain spawn", base, None, None))
            rows.append((f"N={n} co-spawned daemons, 1/node", node, base, "front plain"))
            rows.append((f"N={n} co-spawned daemons, 1/proc", proc, base, "front plain"))
        timed([pterm, "--dvm-uri", "file:" + uri] + ROOT, env)
        deadline = time.monotonic() + 30
        while not pid_gone(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        pid = None
    finally:
        if pid is not None and not pid_gone(pid):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nsummary (medians; ratios against the baseline of the same run)")
    print(f"  {'measure':36} {'value':>10} {'baseline':>12} {'ratio':>8}")
    for what, v, base, _ in rows:
        if base is None:
            print(f"  {what:36} {v * 1000:8.1f}ms")
        else:
            print(f"  {what:36} {v * 1000:8.1f}ms {base * 1000:10.1f}ms {v / base:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
