#!/usr/bin/env python3
"""Make one man page from its source in man/: troff (man macros) where a line
"@include NAME" is replaced by the file man/inc/NAME (a part several pages share, e.g.
the options every command has), and @VERSION@ by the release. Nothing else changes.

Usage: gen_man.py --in SRC --incdir DIR --version V --out FILE
"""
import argparse
import os
import sys


def expand(path, incdir, seen):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("@include "):
                name = line.split(None, 1)[1].strip()
                inc = os.path.join(incdir, name)
                if inc in seen or not os.path.isfile(inc):
                    sys.exit(f"{path}:{n}: cannot include {name} "
                             f"({'included in itself' if inc in seen else 'no such file'})")
                out += expand(inc, incdir, seen | {inc})
            else:
                out.append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="src", required=True)
    ap.add_argument("--incdir", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    text = "".join(expand(a.src, a.incdir, frozenset())).replace("@VERSION@", a.version)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
