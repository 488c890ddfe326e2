#!/usr/bin/env python3
"""Prove that the ABI check can fail (meson test 'abi-check-effective', should_fail).

Usage: abi_corrupt_check.py --abi DIR --include DIR -- CC [CC-ARGS...]

Generates the check from the tables as they are (the control: it must compile) and then
once per corruption kind of gen_abi_check.py --corrupt (one constant value, one field
offset, one key string, one prototype's const), each of which must fail to compile with
-Werror. Exit status 1 means every corruption was caught, which is what the should_fail
test expects; 0 means something did not behave (printed), so the test reports a failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("constant", "offset", "key", "prototype")


def compiles(cc, include, abi, workdir, corrupt):
    src = os.path.join(workdir, "abi_check_%s.c" % (corrupt or "control"))
    gen = [sys.executable, os.path.join(HERE, "gen_abi_check.py"), abi, src]
    if corrupt:
        gen += ["--corrupt", corrupt]
    subprocess.run(gen, check=True)
    cmd = cc + ["-std=c11", "-Wall", "-Werror", "-I", include, "-c", src,
                "-o", os.path.join(workdir, "out.o")]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    first_error = next((l for l in res.stdout.splitlines() if "error" in l), "")
    print("%-10s compiler status %d %s" % (corrupt or "control", res.returncode, first_error))
    return res.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--abi", required=True)
    ap.add_argument("--include", required=True)
    ap.add_argument("cc", nargs="+")
    a = ap.parse_args()
    try:
        with tempfile.TemporaryDirectory() as work:
            if not compiles(a.cc, a.include, a.abi, work, None):
                print("abi-check-effective: the uncorrupted check does not compile; proves nothing")
                return 0
            missed = [k for k in KINDS if compiles(a.cc, a.include, a.abi, work, k)]
    except (OSError, subprocess.CalledProcessError) as e:
        print("abi-check-effective: could not run: %s" % e)
        return 0
    if missed:
        print("abi-check-effective: corruption not caught: %s" % ", ".join(missed))
        return 0
    print("abi-check-effective: every corruption failed to compile, as it must")
    return 1


if __name__ == "__main__":
    sys.exit(main())
