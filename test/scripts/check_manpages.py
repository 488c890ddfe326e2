#!/usr/bin/env python3
"""The man pages (man/, built into BUILDDIR/man) against what they document:

- each page renders without a warning (groff -man -ww) and through man -l;
- each command of the option table (cli/opts_dump) has a page whose OPTIONS section
  documents exactly its options: every long, short and single-dash long form of the
  table is a tag there, and every tag is one of the table (both ways);
- prted (no table: its own parser) documents exactly the options daemon/prted.c
  compares its arguments with, and every option its --help names;
- any other option a page mentions is an option of some command;
- pmix-runtime.7 documents every environment variable the runtime reads (getenv in
  libpmix-core, cli, launcher, daemon; test hooks named *_TEST_* aside), and every
  variable it documents is named somewhere in those sources;
- meson install puts a page for every installed command, and man -w finds it.

Usage: check_manpages.py --dump OPTS_DUMP --prted PRTED --src SRCDIR --build BUILDDIR
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def plain(line):
    """A troff line as text: font escapes gone, \\- and \\(lq... turned into characters."""
    line = re.sub(r"\\f[BIRP]|\\f\[[A-Z]*\]", "", line)
    line = line.replace("\\-", "-").replace("\\&", "").replace("\\(lq", '"').replace("\\(rq", '"')
    return line


def sections(lines):
    """{section title: [lines]} of a page (.SH headings)."""
    out, cur = {}, None
    for ln in lines:
        if ln.startswith(".SH "):
            cur = ln[4:].strip().strip('"')
            out[cur] = []
        elif cur is not None:
            out[cur].append(ln)
    return out


def tags(lines, raw=False):
    """The tag lines of .TP/.TQ paragraphs, as text (raw: as troff)."""
    out = []
    for i, ln in enumerate(lines[:-1]):
        if ln.strip() in (".TP", ".TQ"):
            nxt = lines[i + 1]
            if nxt.startswith(".B "):
                nxt = nxt[3:]
            out.append(nxt if raw else plain(nxt))
    return out


def tag_options(tag_lines):
    """(long, short, alias) sets named by option tags: --long, -c, -single-dash-long."""
    lng, shrt, alias = set(), set(), set()
    for t in tag_lines:
        for w in re.split(r"[\s,]+", t):
            if re.fullmatch(r"--[a-z0-9][a-z0-9-]*", w):
                lng.add(w[2:])
            elif re.fullmatch(r"-[A-Za-z]", w):
                shrt.add(w[1:])
            elif re.fullmatch(r"-[a-z][a-z0-9-]+", w):
                alias.add(w[1:])
    return lng, shrt, alias


def read_page(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def check_render(path):
    name = os.path.basename(path)
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", path], capture_output=True,
                       text=True)
    if r.returncode != 0 or r.stderr.strip():
        fail(f"{name}: groff -man -ww: {r.stderr.strip() or 'exit %d' % r.returncode}")
    env = dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80", LC_ALL="C.UTF-8")
    r = subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env)
    if r.returncode != 0 or r.stderr.strip() or "NAME" not in r.stdout:
        fail(f"{name}: man -l: exit {r.returncode} {r.stderr.strip()}")


def compare(page, documented, wanted):
    for o in sorted(wanted - documented):
        fail(f"{page}: {o} is an option of the command, but OPTIONS does not document it")
    for o in sorted(documented - wanted):
        fail(f"{page}: OPTIONS documents {o}, which is not an option of the command")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--prted", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    for tool in ("groff", "man"):
        if shutil.which(tool) is None:
            fail(f"{tool} is not installed (scripts/install-deps.sh installs groff-base and man-db)")
            return 1
    mandir = os.path.join(a.build, "man")
    pages = sorted(glob.glob(os.path.join(mandir, "*.[1-9]")))
    if not pages:
        fail(f"no man pages built in {mandir}")
        return 1
    for p in pages:
        check_render(p)

    # the option table, per command
    table = {}
    for ln in subprocess.run([a.dump], check=True, capture_output=True, text=True).stdout.splitlines():
        cmd, lng, shrt, _ = ln.split()[:4]
        t = table.setdefault(cmd, (set(), set(), set()))
        t[0].add(lng)
        if shrt != "-":
            t[1].add(shrt)
    for ln in subprocess.run([a.dump, "--aliases"], check=True, capture_output=True,
                             text=True).stdout.splitlines():
        cmd, alias = ln.split()
        table[cmd][2].add(alias)

    # prted: what its parser compares arguments with, and what its usage names
    with open(os.path.join(a.src, "daemon", "prted.c"), encoding="utf-8") as f:
        accepted = set(re.findall(r'strcmp\(\s*[a-z_]+\s*,\s*"(-[^"]+)"\s*\)', f.read()))
    usage = subprocess.run([a.prted, "--help"], capture_output=True, text=True).stdout
    in_usage = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][a-zA-Z-]*)", usage))
    table["prted"] = ({o[2:] for o in accepted if o.startswith("--")},
                      {o[1:] for o in accepted if re.fullmatch(r"-[A-Za-z]", o)},
                      {o[1:] for o in accepted if re.fullmatch(r"-[a-z][a-z0-9-]+", o)})
    for o in sorted(in_usage - accepted):
        fail(f"prted --help names {o}, which prted.c does not accept")

    every_long = set().union(*(t[0] for t in table.values()))
    for cmd, (lng, shrt, alias) in sorted(table.items()):
        path = os.path.join(mandir, cmd + ".1")
        if not os.path.isfile(path):
            fail(f"{cmd} has no man page ({cmd}.1)")
            continue
        secs = sections(read_page(path))
        if "OPTIONS" not in secs:
            fail(f"{cmd}.1 has no OPTIONS section")
            continue
        dl, ds, da = tag_options(tags(secs["OPTIONS"]))
        compare(f"{cmd}.1", {"--" + x for x in dl}, {"--" + x for x in lng})
        compare(f"{cmd}.1", {"-" + x for x in ds | da}, {"-" + x for x in shrt | alias})
    for p in pages:
        for ln in read_page(p):
            for o in re.findall(r"(?<![\w-])--([a-z0-9][a-z0-9-]*)", plain(ln)):
                if o not in every_long:
                    fail(f"{os.path.basename(p)} mentions --{o}, which no command has")

    # environment variables: read by the runtime <-> documented in pmix-runtime.7
    srcs = []
    for d in ("libpmix-core", "cli", "launcher", "daemon", "include"):
        srcs += glob.glob(os.path.join(a.src, d, "**", "*.[ch]"), recursive=True)
    text = ""
    for s in srcs:
        with open(s, encoding="utf-8", errors="replace") as f:
            text += f.read() + "\n"
    macros = dict(re.findall(r'#define\s+([A-Z_][A-Z0-9_]*)\s+"([A-Za-z_][A-Za-z0-9_]*)"', text))
    read = set(re.findall(r'getenv\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\)', text))
    for m in re.findall(r"getenv\(\s*([A-Z_][A-Z0-9_]*)\s*\)", text):
        if m in macros:
            read.add(macros[m])
        else:
            fail(f"getenv({m}): cannot resolve the macro to a variable name")
    for m in re.findall(r"#define\s+PX_ENV_URI_NAMES[^{]*\{([^}]*)\}", text):
        for w in re.findall(r'"([A-Z0-9_]+)"|([A-Z][A-Z0-9_]+)', m):
            read.add(w[0] or macros.get(w[1], w[1]))
    read = {v for v in read if "_TEST_" not in v}
    env_page = os.path.join(mandir, "pmix-runtime.7")
    if not os.path.isfile(env_page):
        fail("no pmix-runtime.7 (the environment variables)")
    else:
        secs = sections(read_page(env_page))
        body = [plain(x) for x in secs.get("ENVIRONMENT", [])]
        documented = set()
        var = r"[A-Z][A-Za-z0-9_]*[A-Za-z0-9]"
        for t in tags(secs.get("ENVIRONMENT", []), raw=True):
            # a word holding an italic part is a pattern (PRTE_MCA_<key>), not a name
            documented.update(plain(w) for w in re.split(r"[\s,]+", t)
                              if "\\fI" not in w and re.fullmatch(var, plain(w)))
        mentioned = set(re.findall(r"\b" + var + r"\b", " ".join(body)))
        for v in sorted(read - documented - mentioned):
            fail(f"the runtime reads ${v}, but pmix-runtime.7 does not document it")
        for v in sorted(documented):
            if not re.search(r'"' + re.escape(v) + r'"', text):
                fail(f"pmix-runtime.7 documents ${v}, which no source names")

    # meson install: a page per installed command, found by man
    dest = tempfile.mkdtemp(prefix="pxman.")
    try:
        r = subprocess.run(["meson", "install", "-C", a.build, "--no-rebuild", "--destdir", dest],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail("meson install: " + r.stdout[-2000:] + r.stderr[-2000:])
            return 1
        bins = [b for b in glob.glob(os.path.join(dest, "**", "bin", "*"), recursive=True)
                if os.access(b, os.X_OK)]
        man1 = glob.glob(os.path.join(dest, "**", "man1"), recursive=True)
        if not bins or not man1:
            fail(f"meson install put no commands ({len(bins)}) or no man1 directory")
            return 1
        root = os.path.dirname(man1[0])
        env = dict(os.environ, MANPATH=root)
        for b in sorted(bins):
            name = os.path.basename(b)
            r = subprocess.run(["man", "-w", name], capture_output=True, text=True, env=env)
            found = r.stdout.strip()
            if r.returncode != 0 or not found.startswith(root):
                fail(f"installed command {name}: man -w finds no installed page ({found or r.stderr.strip()})")
        r = subprocess.run(["man", "-w", "7", "pmix-runtime"], capture_output=True, text=True, env=env)
        if r.returncode != 0 or not r.stdout.strip().startswith(root):
            fail("pmix-runtime(7) is not installed where man finds it")
        print(f"{len(bins)} installed commands, each with its page under {root[len(dest):]}")
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    if not FAILS:
        print(f"{len(pages)} pages render cleanly and document every option and variable")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
