#!/usr/bin/env python3
"""Check that every help message the C sources refer to exists in the catalogs.

Usage: check_help_refs.py --root SRCDIR [--stamp FILE --depfile FILE] CATALOG...

Scans every .c/.h file under --root (skipping .git, hidden directories and meson
build directories) for a string literal naming a catalog ("help-<area>.txt")
followed by a comma and a second string literal (the topic) -- the shape of
px_show_help("help-x.txt", "topic", ...) and of any wrapper with literal
arguments.  Fails (exit 1) with file:line messages when a (file, topic) is not
in the catalogs.  For calls of px_show_help, px_help_render, px_help_fshow,
px_help_dedup_show and any *_show_help function it also compares the number of
printf arguments passed after the topic with the number the topic's text takes.

A reference can be exempted with a comment containing "help-check: ignore" on
the line of the catalog name (e.g. a test of the missing-topic fallback).

--file PATH scans one more file whatever its name; with --expect-errors N the
script succeeds only if exactly N problems are found (for tests of the checker).

With --depfile, writes a ninja depfile listing every scanned file and directory,
so the build re-runs the check when any source changes or a file is added.
"""

import argparse
import difflib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_help  # noqa: E402

FILE_LIT_RE = re.compile(r"^help-[^\s/]*\.txt$")
PRINTF_CALLEES_RE = re.compile(
    r"^(px_show_help|px_help_render|px_help_fshow|px_help_dedup_show|\w+_show_help)$"
)
IGNORE_MARK = "help-check: ignore"
SKIP_DIRS = {".git", "subprojects", "node_modules", "__pycache__"}


class Tok:
    __slots__ = ("kind", "val", "line")

    def __init__(self, kind, val, line):
        self.kind = kind  # 'str', 'id', 'punct', 'other'
        self.val = val
        self.line = line


def tokenize(src):
    """Minimal C tokenizer: string literals (contents, escapes kept raw),
    identifiers and single-character punctuation; comments and character
    literals dropped.  Also returns the set of lines carrying IGNORE_MARK."""
    toks = []
    ignored = set()
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r\f\v\\":
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            if IGNORE_MARK in src[i:j]:
                ignored.add(line)
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            body = src[i:j]
            if IGNORE_MARK in body:
                ignored.add(line)
            line += body.count("\n")
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            if c == '"':
                toks.append(Tok("str", src[i + 1 : j], line))
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            # String prefixes (L"", u8"", ...) are folded into the literal.
            if j < n and src[j] == '"' and src[i:j] in ("L", "u", "U", "u8"):
                i = j
                continue
            toks.append(Tok("id", src[i:j], line))
            i = j
        elif c.isdigit():
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] in "._"):
                j += 1
            toks.append(Tok("other", src[i:j], line))
            i = j
        else:
            toks.append(Tok("punct", c, line))
            i += 1
    return toks, ignored


def find_refs(path, src):
    """Yield (line, file, topic, callee or None, nargs passed or None)."""
    toks, ignored = tokenize(src)
    for i in range(len(toks) - 2):
        t = toks[i]
        if t.kind != "str" or not FILE_LIT_RE.match(t.val):
            continue
        if toks[i + 1].val != "," or toks[i + 2].kind != "str":
            continue
        if t.line in ignored:
            continue
        # A topic literal continued by adjacent literals is not a plain name; skip.
        if i + 3 < len(toks) and toks[i + 3].kind == "str":
            continue
        # Enclosing call: the unmatched '(' before the file literal.
        callee = None
        depth = 0
        for j in range(i - 1, -1, -1):
            v = toks[j].val
            if v in ")]":
                depth += 1
            elif v in "([":
                if depth == 0:
                    if v == "(" and j > 0 and toks[j - 1].kind == "id":
                        callee = toks[j - 1].val
                    break
                depth -= 1
            elif v in ";{}" and depth == 0:
                break
        # Arguments after the topic, up to the call's closing ')'.
        nargs = None
        if callee is not None:
            depth = 0
            count = 0
            for j in range(i + 3, len(toks)):
                v = toks[j].val
                if toks[j].kind != "punct":
                    continue
                if v in "([{":
                    depth += 1
                elif v in ")]}":
                    if depth == 0:
                        nargs = count
                        break
                    depth -= 1
                elif v == "," and depth == 0:
                    count += 1
                elif v == ";":
                    break
        yield t.line, t.val, toks[i + 2].val, callee, nargs


def scan_tree(root):
    """Return (list of source files, list of directories scanned)."""
    files, dirs = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        if "meson-private" in dirnames or "build.ninja" in filenames:
            dirnames[:] = []
            continue  # a meson build directory
        dirnames[:] = sorted(
            d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
        )
        dirs.append(dirpath)
        for f in sorted(filenames):
            if f.endswith((".c", ".h")):
                files.append(os.path.join(dirpath, f))
    return files, dirs


def check(root, extra_files, catalogs, verbose=False):
    """Return (errors, number of references checked, files, dirs)."""
    table = gen_help.parse_catalogs(catalogs)
    by_file = {}
    for f, topic in table:
        by_file.setdefault(f, []).append(topic)
    files, dirs = scan_tree(root) if root else ([], [])
    files += extra_files
    errors = []
    count = 0
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                src = fh.read()
        except OSError as e:
            errors.append("%s: cannot read: %s" % (path, e))
            continue
        rel = os.path.relpath(path)
        for line, file, topic, callee, nargs in find_refs(path, src):
            count += 1
            where = "%s:%d" % (rel, line)
            t = table.get((file, topic))
            if t is None:
                if file not in by_file:
                    hint = "no catalog %s (known: %s)" % (file, ", ".join(sorted(by_file)))
                else:
                    close = difflib.get_close_matches(topic, by_file[file], n=3)
                    hint = "%s has no topic [%s]" % (file, topic)
                    if close:
                        hint += "; did you mean %s?" % ", ".join("[%s]" % c for c in close)
                errors.append("%s: error: help message %s / %s does not exist: %s"
                              % (where, file, topic, hint))
                continue
            if callee and PRINTF_CALLEES_RE.match(callee) and nargs is not None:
                want = len(t.args)
                if nargs != want:
                    errors.append(
                        "%s: error: %s(%s, %s) passes %d printf argument%s but the text "
                        "(%s:%d) takes %d (%s)"
                        % (where, callee, file, topic, nargs, "" if nargs == 1 else "s",
                           os.path.relpath(t.path), t.line, want,
                           " ".join("%" + a if a != "*" else "*" for a in t.args) or "none")
                    )
            if verbose:
                print("%s: %s / %s ok" % (where, file, topic))
    return errors, count, files, dirs


def depfile_escape(p):
    return p.replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", help="source tree to scan")
    ap.add_argument("--file", action="append", default=[], help="also scan this file")
    ap.add_argument("--expect-errors", type=int, metavar="N",
                    help="succeed only if exactly N problems are found")
    ap.add_argument("--stamp", help="file to write on success")
    ap.add_argument("--depfile", help="ninja depfile to write (needs --stamp)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("catalogs", nargs="*")
    args = ap.parse_args(argv)
    if not args.root and not args.file:
        ap.error("need --root or --file")
    try:
        errors, count, files, dirs = check(args.root, args.file, args.catalogs, args.verbose)
    except (gen_help.CatalogError, OSError) as e:
        print("check_help_refs: error: %s" % e, file=sys.stderr)
        return 1
    for e in errors:
        print(e, file=sys.stderr)
    if args.depfile and args.stamp:
        deps = [os.path.abspath(p) for p in files + dirs]
        with open(args.depfile, "w") as f:
            f.write("%s: %s\n" % (depfile_escape(args.stamp),
                                  " \\\n  ".join(depfile_escape(d) for d in deps)))
    if args.expect_errors is not None:
        ok = len(errors) == args.expect_errors
        print("check_help_refs: %d problem(s) found, %d expected" % (len(errors), args.expect_errors))
        return 0 if ok else 1
    if errors:
        print("check_help_refs: %d problem(s) in %d help reference(s); "
              "fix the call or add the topic to share/help/" % (len(errors), count),
              file=sys.stderr)
        return 1
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("%d help references checked\n" % count)
    print("check_help_refs: %d help reference(s) OK" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
