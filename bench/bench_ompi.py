#!/usr/bin/env python3
"""bench_ompi: a hello (MPI_Init + MPI_Barrier + MPI_Finalize) of each MPI family at
N = 2, 8, 16 ranks on this node, in one run, against the family's native launcher:
- Open MPI 4.1 (test/ompi/ompi_hello): our prterun (a one-shot DVM per job), our prun (a
  DVM started once) and Open MPI's own mpirun (Debian's, with its OpenPMIx);
- MPICH 4.0 (test/pmi/mpich_app hello, over PMI-1): our prterun and prun, and MPICH's
  Hydra mpiexec (mpiexec.hydra).
Prints the median wall time of each and the ratios against the native launcher (< 1: we
are faster). A benchmark, not a test: it never fails on the numbers, only when a run
fails or a program or launcher is missing.

Usage: bench_ompi.py BUILD_DIR [--reps R] [--n N,N,...] [--family ompi,mpich]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def families(b, root):
    """Each family: its hello program, its native launcher's command for n ranks."""
    out = {}
    hello = os.path.join(b, "test", "ompi", "ompi_hello")
    mpirun = shutil.which("mpirun.openmpi")
    out["ompi"] = ([hello], hello, mpirun,
                   lambda n: [mpirun] + root + ["--oversubscribe", "-np", str(n), hello],
                   "openmpi-bin and libopenmpi-dev")
    app = os.path.join(b, "test", "pmi", "mpich_app")
    hydra = shutil.which("mpiexec.hydra")
    out["mpich"] = ([app, "hello"], app, hydra,
                    lambda n: [hydra, "-n", str(n), app, "hello"],
                    "mpich and libmpich-dev")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", default="2,8,16")
    ap.add_argument("--family", default="ompi,mpich")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    ns = [int(x) for x in a.n.split(",")]
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    fams = families(b, root)
    chosen = a.family.split(",")
    for f in chosen:
        if f not in fams:
            sys.exit("bench_ompi: unknown family %s (ompi, mpich)" % f)
        prog, exe, native, _, pkgs = fams[f]
        if not os.access(exe, os.X_OK) or native is None:
            sys.exit("bench_ompi: the %s family needs %s (built when its compiler was found at "
                     "configure time) and its native launcher: install %s "
                     "(scripts/install-deps.sh), then reconfigure" % (f, exe, pkgs))
    tmp = tempfile.mkdtemp(prefix="bench_ompi.")
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("LD_LIBRARY_PATH", None)  # native launchers' programs use their own PMI/PMIx;
    # ours get our libpmix.so.2 from the DVM (the "ompi" personality)
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
        print("hello (MPI_Init+MPI_Barrier+MPI_Finalize), median of %d runs, nproc %d" %
              (a.reps, os.cpu_count()))
        for f in chosen:
            prog, _, _, native, _ = fams[f]
            launchers = {
                "prterun": lambda n: [os.path.join(b, "cli", "prterun")] + root + ["-n", str(n)] + prog,
                "prun": lambda n: [os.path.join(b, "cli", "prun"), "--dvm-uri", "file:" + uri]
                + root + ["-n", str(n)] + prog,
                "native": native,
            }
            times = {}
            for n in ns:
                # the launchers take turns within each repetition, so a burst of load on
                # a shared machine weighs on all of them alike
                samples = {name: [] for name in launchers}
                for _ in range(a.reps):
                    for name, cmd in launchers.items():
                        t0 = time.monotonic()
                        r = subprocess.run(cmd(n), env=env, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, timeout=120)
                        dt = time.monotonic() - t0
                        lines = [l for l in r.stdout.decode(errors="replace").splitlines()
                                 if l.startswith("hello ")]
                        if r.returncode != 0 or len(lines) != n:
                            sys.exit("bench_ompi: %s %s -n %d failed (exit %d):\n%s" %
                                     (f, name, n, r.returncode,
                                      r.stdout.decode(errors="replace")))
                        samples[name].append(dt)
                for name in launchers:
                    times[(name, n)] = statistics.median(samples[name])
            nat = "mpirun" if f == "ompi" else "hydra"
            print("%s (native: %s)" % ("Open MPI 4.1" if f == "ompi" else "MPICH 4.0", nat))
            print("%4s %12s %12s %12s %14s %14s" % ("N", "prterun ms", "prun ms", nat + " ms",
                                                   "prterun/" + nat, "prun/" + nat))
            for n in ns:
                m = times[("native", n)]
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
