#!/usr/bin/env python3
"""bench_nodes - launching across nodes (issue 14, benchmarks): the real prte/prted/prun
with fake nodes (test/daemons/local_agent.sh: a prted per fake host, on this machine).

Measures, each against a baseline taken in the same run (ratios, never pass/fail):
  - prun -n 64 /bin/true on a DVM of 4 nodes (16 slots each, --map-by slot) against the
    same on a DVM of one node (64 slots) and against fork/exec of 64 /bin/true at once;
  - DVM start-up (prte --daemonize until "ready") with 1, 4 and 16 daemons, against the
    agents' own time (as many agents at once, each running /bin/true on its host).
Goals from the issue are printed next to the values, as targets to report against.

usage: bench_nodes.py --build DIR --agent PATH [--reps R] [--quick]
"""
import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def spawn_wait(argv, env):
    """Run argv with stdio on /dev/null; its exit status must be 0."""
    pid = os.posix_spawn(argv[0], argv, env, file_actions=DEVNULL_ACTIONS)
    _, st = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(st) != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(st)}")


def forkexec_n(n, env):
    """fork/exec of n /bin/true at once, then waitpid of all: seconds."""
    t0 = time.monotonic()
    pids = [os.posix_spawn("/bin/true", ["/bin/true"], env, file_actions=DEVNULL_ACTIONS)
            for _ in range(n)]
    for p in pids:
        os.waitpid(p, 0)
    return time.monotonic() - t0


def timed(argv, env):
    t0 = time.monotonic()
    spawn_wait(argv, env)
    return time.monotonic() - t0


def pid_gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


class Dvm:
    def __init__(self, b, env, tmp):
        self.b, self.env, self.tmp, self.pid = b, env, tmp, None

    def start(self, hosts):
        uri, pidf = os.path.join(self.tmp, "uri"), os.path.join(self.tmp, "pid")
        argv = [self.b["prte"], "--daemonize", "--report-uri", uri, "--report-pid", pidf]
        argv += ROOT + ["--host", hosts]
        t = timed(argv, self.env)
        with open(pidf) as f:
            self.pid = int(f.read().strip())
        return t

    def prun(self, *args):
        argv = [self.b["prun"], "--dvm-uri", "file:" + os.path.join(self.tmp, "uri")] + ROOT
        return timed(argv + list(args), self.env)

    def stop(self):
        if self.pid is None:
            return
        spawn_wait([self.b["pterm"], "--dvm-uri", "file:" + os.path.join(self.tmp, "uri")] + ROOT,
                   self.env)
        deadline = time.monotonic() + 30
        while not pid_gone(self.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.pid = None

    def kill(self):
        if self.pid is not None and not pid_gone(self.pid):
            os.kill(self.pid, signal.SIGKILL)
        self.pid = None


def median_of(reps, fn):
    return statistics.median(fn() for _ in range(reps))


def ms(x):
    return f"{x * 1000:.1f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--quick", action="store_true")
    o = ap.parse_args()
    reps = 3 if o.quick else o.reps
    b = {t: os.path.join(o.build, "cli", t) for t in ("prte", "prun", "pterm")}
    for t, p in b.items():
        if not os.access(p, os.X_OK):
            sys.exit(f"bench_nodes: ERROR: {p} not found (--build)")
    tmp = tempfile.mkdtemp(prefix="pxbnodes.")
    env = dict(os.environ, TMPDIR=tmp, PRTE_MCA_plm_ssh_agent=o.agent)
    here = socket.gethostname()
    dvm = Dvm(b, env, tmp)
    rows = []
    try:
        print(f"bench_nodes: {reps} reps, {os.cpu_count()} cpus, agent {o.agent}")
        base64 = median_of(reps, lambda: forkexec_n(64, env))
        # one node with 64 slots
        dvm.start(f"{here}:64")
        dvm.prun("-n", "64", "--stdin", "none", "/bin/true")  # warm
        one = median_of(reps, lambda: dvm.prun("-n", "64", "--stdin", "none", "/bin/true"))
        dvm.stop()
        # four nodes, 16 slots each
        dvm.start(",".join([f"{here}:16"] + [f"fake{i}:16" for i in range(1, 4)]))
        dvm.prun("-n", "64", "--map-by", "slot", "--stdin", "none", "/bin/true")  # warm
        four = median_of(reps, lambda: dvm.prun("-n", "64", "--map-by", "slot", "--stdin", "none",
                                                "/bin/true"))
        dvm.stop()
        rows.append(("fork/exec of 64 /bin/true", ms(base64), "", "", ""))
        rows.append(("prun -n 64, 1 node", ms(one), ms(base64), f"{one / base64:.2f}x", ""))
        rows.append(("prun -n 64, 4 nodes", ms(four), ms(base64), f"{four / base64:.2f}x",
                     "<= 1.5x fork/exec"))
        rows.append(("  4 nodes against 1 node", ms(four), ms(one), f"{four / one:.2f}x", ""))
        # start-up with 1, 4, 16 daemons; the agents' own time as the baseline
        for n in (1, 4, 16):
            hosts = ",".join([f"{here}:4"] + [f"fake{i}:4" for i in range(1, n)])

            def start_once():
                t = dvm.start(hosts)
                dvm.stop()
                return t

            def agents_once():
                t0 = time.monotonic()
                pids = [os.posix_spawn(o.agent, [o.agent, f"fake{i}", "/bin/true"], env,
                                       file_actions=DEVNULL_ACTIONS) for i in range(1, n)]
                for p in pids:
                    os.waitpid(p, 0)
                return time.monotonic() - t0

            start = median_of(max(3, reps // 3), start_once)
            agents = median_of(max(3, reps // 3), agents_once) if n > 1 else 0.0
            goal = "< 100 ms + agents" if n == 4 else ""
            rows.append((f"DVM start, {n} daemon{'s' if n > 1 else ''}", ms(start),
                         ms(agents) + " (agents)" if n > 1 else "",
                         f"+{ms(start - agents)}" if n > 1 else "", goal))
    finally:
        dvm.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nsummary (ratios against baselines of the same run; goals are targets, not pass/fail)")
    print(f"  {'measure':32} {'value':>12} {'baseline':>22} {'ratio':>12}  goal")
    for r in rows:
        print(f"  {r[0]:32} {r[1]:>12} {r[2]:>22} {r[3]:>12}  {r[4]}")
    return 0


DEVNULL_ACTIONS = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
ROOT = ["--allow-run-as-root"] if os.geteuid() == 0 else []

if __name__ == "__main__":
    sys.exit(main())
