#!/usr/bin/env python3
"""bench_indirect: the added cost of indirect launch (Tools chapter; issue 16). At
N = 1, 16, 64 processes of test/dvm/dvm_app hello, in one run: plain `prterun -n N`
(the baseline), and the same job started through examples/pdbg, a debugger front end,
by both methods of the Tools chapter: the launcher parses the command line
(`pdbg -- prterun -n N app`: one self-spawn of prterun, which connects back, holds in
init until pdbg has connected to it and released it) and the tool parses it
(`pdbg --launcher prterun -n N -- app`: prterun alone, then a spawn through it). Prints
the median wall time of each and its ratio and difference against the baseline. A
benchmark, not a test: it never fails on the numbers, only when a run fails.

Usage: bench_indirect.py BUILD_DIR [--reps R] [--n N,N,...]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", default="1,16,64")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    app = os.path.join(b, "test", "dvm", "dvm_app")
    pdbg = os.path.join(b, "examples", "pdbg")
    prterun = os.path.join(b, "cli", "prterun")
    for p in (app, pdbg, prterun):
        if not os.access(p, os.X_OK):
            sys.exit("bench_indirect: %s is not built (build with -Dtests=true)" % p)
    ns = [int(x) for x in a.n.split(",")]
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    tmp = tempfile.mkdtemp(prefix="bench_indirect.")
    env = dict(os.environ, TMPDIR=tmp)
    ways = {
        "prterun": lambda n: [prterun] + root + ["-n", str(n), app, "hello"],
        "launcher-parsed": lambda n: [pdbg, "--"] + [prterun] + root + ["-n", str(n), app, "hello"],
        "tool-parsed": lambda n: [pdbg, "--launcher", " ".join([prterun] + root), "-n", str(n),
                                  "--", app, "hello"],
    }
    times = {}
    try:
        for n in ns:
            for _ in range(a.reps):
                # interleaved, so that a busy moment of a shared machine hits every way
                for name, cmd in ways.items():
                    t0 = time.monotonic()
                    r = subprocess.run(cmd(n), env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=120)
                    dt = time.monotonic() - t0
                    out = r.stdout.decode(errors="replace")
                    hellos = sum(1 for l in out.splitlines() if l.startswith("hello rank"))
                    if r.returncode != 0 or hellos != n:
                        sys.exit("bench_indirect: %s -n %d failed (exit %d):\n%s" %
                                 (name, n, r.returncode, out))
                    times.setdefault((name, n), []).append(dt)
        print("indirect launch of N x dvm_app hello through examples/pdbg, median of %d "
              "runs, nproc %d" % (a.reps, os.cpu_count()))
        print("%4s %12s %18s %8s %9s %14s %8s %9s" %
              ("N", "prterun ms", "launcher-parsed ms", "ratio", "+ms", "tool-parsed ms",
               "ratio", "+ms"))
        for n in ns:
            base = statistics.median(times[("prterun", n)])
            lp = statistics.median(times[("launcher-parsed", n)])
            tp = statistics.median(times[("tool-parsed", n)])
            print("%4d %12.1f %18.1f %8.2f %9.1f %14.1f %8.2f %9.1f" %
                  (n, base * 1e3, lp * 1e3, lp / base, (lp - base) * 1e3, tp * 1e3, tp / base,
                   (tp - base) * 1e3))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
