#!/usr/bin/env python3
"""bench_ompi: an Open MPI 4.1 hello (MPI_Init + MPI_Barrier + MPI_Finalize, the test
program test/ompi/ompi_hello) at N = 2, 8, 16 ranks on this node, started by our prterun
(a one-shot DVM per job), by our prun (a DVM started once) and by Open MPI's own mpirun
(Debian's, with its OpenPMIx), in one run; prints the median wall time of each and the
ratios against mpirun (< 1: we are faster). A benchmark, not a test: it never fails on
the numbers, only when a run fails.

Usage: bench_ompi.py BUILD_DIR [--reps R] [--n N,N,...]
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
    ap.add_argument("--n", default="2,8,16")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    hello = os.path.join(b, "test", "ompi", "ompi_hello")
    mpirun = shutil.which("mpirun.openmpi")
    if not os.access(hello, os.X_OK) or mpirun is None:
        sys.exit("bench_ompi: needs %s (built when mpicc.openmpi is installed) and "
                 "mpirun.openmpi: install openmpi-bin and libopenmpi-dev" % hello)
    ns = [int(x) for x in a.n.split(",")]
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    tmp = tempfile.mkdtemp(prefix="bench_ompi.")
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("LD_LIBRARY_PATH", None)  # mpirun's programs use Debian's OpenPMIx; ours
    # get our libpmix.so.2 from the DVM (the "ompi" personality)
    prte = None
    try:
        uri = os.path.join(tmp, "uri")
        prte = subprocess.Popen([os.path.join(b, "cli", "prte"), "--report-uri", uri,
                                 "--no-ready-msg"] + root, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            if os.path.exists(uri) and os.path.getsize(uri) > 0:
                break
            time.sleep(0.05)
        else:
            sys.exit("bench_ompi: prte did not report its URI within 30 s")
        launchers = {
            "prterun": lambda n: [os.path.join(b, "cli", "prterun")] + root + ["-n", str(n), hello],
            "prun": lambda n: [os.path.join(b, "cli", "prun"), "--dvm-uri", "file:" + uri]
            + root + ["-n", str(n), hello],
            "mpirun": lambda n: [mpirun] + root + ["--oversubscribe", "-np", str(n), hello],
        }
        times = {}
        for n in ns:
            for name, cmd in launchers.items():
                samples = []
                for _ in range(a.reps):
                    t0 = time.monotonic()
                    r = subprocess.run(cmd(n), env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=120)
                    dt = time.monotonic() - t0
                    lines = [l for l in r.stdout.decode(errors="replace").splitlines()
                             if l.startswith("hello ")]
                    if r.returncode != 0 or len(lines) != n:
                        sys.exit("bench_ompi: %s -n %d failed (exit %d):\n%s" %
                                 (name, n, r.returncode, r.stdout.decode(errors="replace")))
                    samples.append(dt)
                times[(name, n)] = statistics.median(samples)
        print("Open MPI hello (MPI_Init+MPI_Barrier+MPI_Finalize), median of %d runs, "
              "nproc %d" % (a.reps, os.cpu_count()))
        print("%4s %12s %12s %12s %14s %14s" % ("N", "prterun ms", "prun ms", "mpirun ms",
                                               "prterun/mpirun", "prun/mpirun"))
        for n in ns:
            m = times[("mpirun", n)]
            print("%4d %12.1f %12.1f %12.1f %14.2f %14.2f" %
                  (n, times[("prterun", n)] * 1e3, times[("prun", n)] * 1e3, m * 1e3,
                   times[("prterun", n)] / m, times[("prun", n)] / m))
    finally:
        if prte is not None and prte.poll() is None:
            subprocess.run([os.path.join(b, "cli", "pterm"), "--dvm-uri",
                            "file:" + os.path.join(tmp, "uri")] + root, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
            try:
                prte.wait(timeout=30)
            except subprocess.TimeoutExpired:
                prte.kill()
                prte.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
