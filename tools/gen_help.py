#!/usr/bin/env python3
"""Compile help catalogs (share/help/help-<area>.txt) into one C table.

Usage: gen_help.py --out px_help_catalog.c CATALOG...
       gen_help.py --check CATALOG...        (validate only, write nothing)
       gen_help.py --expect-error REGEX CATALOG...
           (for tests of bad catalogs: succeed only if validation fails with a
            message matching REGEX; a crash or a clean catalog is a failure)

The catalog format is described in share/help/README.md.  Every problem is
reported as "file:line: message" and makes the script exit with status 1, so a
malformed catalog fails the build.  check_help_refs.py imports parse_catalogs()
and printf_args() from here so that both tools read catalogs the same way.
"""

import argparse
import os
import re
import sys

FILE_NAME_RE = re.compile(r"^help-[a-z0-9][a-z0-9_-]*\.txt$")
TOPIC_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
HEADER_RE = re.compile(r"^\[([^\]]*)\]\s*$")

# One printf conversion: flags, width, precision, length modifier, conversion.
CONV_RE = re.compile(
    r"%(?P<flags>[-+ #0']*)"
    r"(?P<width>\*|[0-9]+)?"
    r"(?:\.(?P<prec>\*|[0-9]*))?"
    r"(?P<len>hh|h|ll|l|j|z|t|L)?"
    r"(?P<conv>.?)"
)
VALID_CONVS = set("diouxXeEfFgGaAcsp%")


class CatalogError(Exception):
    """A problem in a catalog, with its location."""

    def __init__(self, path, line, msg):
        super().__init__("%s:%d: %s" % (path, line, msg))


def printf_args(text, path="<text>", line=1):
    """Return the list of argument kinds a printf format consumes.

    Each element is the conversion character ('s', 'd', ...) or '*' for a
    width/precision taken from the argument list.  Raises CatalogError for
    conversions the renderer does not allow (%n, positional %1$s, unknown).
    """
    args = []
    pos = 0
    while True:
        pos = text.find("%", pos)
        if pos < 0:
            return args
        # Line number of this conversion inside the body, for the message.
        where = line + text.count("\n", 0, pos)
        m = CONV_RE.match(text, pos)
        conv = m.group("conv")
        spec = m.group(0)
        if conv == "":
            raise CatalogError(path, where, "'%' at end of line (write '%%' for a literal '%')")
        if conv == "$" or re.match(r"%[0-9]+\$", text[pos:]):
            raise CatalogError(path, where, "positional printf arguments are not supported")
        if conv == "n":
            raise CatalogError(path, where, "'%n' is not allowed in help text")
        if conv not in VALID_CONVS:
            raise CatalogError(
                path, where, "invalid printf conversion '%s' (write '%%%%' for a literal '%%')" % spec
            )
        if conv == "%":
            if spec != "%%":
                raise CatalogError(path, where, "malformed '%s' (a literal percent is '%%%%')" % spec)
        else:
            if m.group("width") == "*":
                args.append("*")
            if m.group("prec") == "*":
                args.append("*")
            args.append(conv)
        pos = m.end()


class Topic:
    def __init__(self, file, name, path, line):
        self.file = file  # catalog base name, e.g. help-px-util.txt
        self.name = name
        self.path = path  # path given on the command line
        self.line = line  # line of the [name] header
        self.lines = []
        self.text = ""
        self.args = []


def parse_catalog(path):
    """Parse one catalog file; return a list of Topic (in file order)."""
    base = os.path.basename(path)
    if not FILE_NAME_RE.match(base):
        raise CatalogError(
            path, 1, "catalog name must look like help-<area>.txt (lower case, digits, '-', '_')"
        )
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except UnicodeDecodeError as e:
        raise CatalogError(path, 1, "not valid UTF-8: %s" % e)

    topics = []
    seen = {}
    cur = None
    for lineno, line in enumerate(raw.split("\n"), start=1):
        line = line.rstrip("\r")
        if line.startswith("##"):
            line = line[1:]  # escaped literal '#'
        elif line.startswith("#"):
            continue  # comment
        elif line.startswith("[["):
            line = line[1:]  # escaped literal '['
        elif line.startswith("["):
            m = HEADER_RE.match(line)
            if not m:
                raise CatalogError(
                    path, lineno, "malformed topic header (expected '[name]'; write '[[' for a literal '[')"
                )
            name = m.group(1)
            if not TOPIC_NAME_RE.match(name):
                raise CatalogError(
                    path,
                    lineno,
                    "bad topic name '%s' (letters, digits and '_.:-', not starting with a punctuation mark)"
                    % name,
                )
            if name in seen:
                raise CatalogError(
                    path, lineno, "duplicate topic '%s' (first defined on line %d)" % (name, seen[name])
                )
            seen[name] = lineno
            cur = Topic(base, name, path, lineno)
            topics.append(cur)
            continue
        if cur is None:
            if line.strip():
                raise CatalogError(path, lineno, "text before the first [topic] header")
            continue
        cur.lines.append((lineno, line.rstrip(" \t")))

    if not topics:
        raise CatalogError(path, 1, "catalog defines no topics")
    for t in topics:
        lines = t.lines
        while lines and lines[-1][1] == "":
            lines.pop()
        while lines and lines[0][1] == "":
            lines.pop(0)
        if not lines:
            raise CatalogError(path, t.line, "topic '%s' has an empty body" % t.name)
        t.text = "\n".join(text for _, text in lines) + "\n"
        # Conversions never span lines, so validating line by line gives exact
        # line numbers in error messages.
        for lineno, text in lines:
            t.args += printf_args(text, path, lineno)
    return topics


def parse_catalogs(paths):
    """Parse all catalogs; return {(file, topic): Topic}. Raises CatalogError."""
    table = {}
    files = {}
    for path in paths:
        base = os.path.basename(path)
        if base in files:
            raise CatalogError(path, 1, "catalog %s given twice (also %s)" % (base, files[base]))
        files[base] = path
        for t in parse_catalog(path):
            table[(t.file, t.name)] = t
    return table


def c_string(text):
    """Render text as one or more adjacent C string literals, one per line."""
    out = []
    for chunk in text.splitlines(keepends=True):
        s = []
        for ch in chunk.encode("utf-8"):
            c = chr(ch)
            if c == "\\":
                s.append("\\\\")
            elif c == '"':
                s.append('\\"')
            elif c == "\n":
                s.append("\\n")
            elif c == "\t":
                s.append("\\t")
            elif c == "?":
                s.append("\\?")  # no trigraphs
            elif 0x20 <= ch < 0x7F:
                s.append(c)
            else:
                s.append("\\%03o" % ch)
        out.append('"' + "".join(s) + '"')
    return "\n        ".join(out)


def write_table(table, out, sources):
    keys = sorted(table)  # byte order == strcmp order (names are ASCII)
    lines = [
        "/* Generated by tools/gen_help.py from the help catalogs; do not edit.",
        " * Sources: %s" % " ".join(sorted(os.path.basename(s) for s in sources)),
        " * Sorted by (file, topic) in strcmp order: px_help_lookup() bisects it. */",
        '#include "help/px_help_table.h"',
        "",
        "const struct px_help_entry px_help_table[] = {",
    ]
    for file, topic in keys:
        t = table[(file, topic)]
        lines.append('    {"%s", "%s", %d,' % (file, topic, len(t.args)))
        lines.append("        %s}," % c_string(t.text))
    if not keys:
        lines.append("    {0, 0, 0, 0}, /* placeholder: no catalogs */")
    lines.append("};")
    lines.append("")
    lines.append("const size_t px_help_table_len = %d;" % len(keys))
    data = "\n".join(lines) + "\n"
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(data)
    os.replace(tmp, out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="C file to write")
    ap.add_argument("--check", action="store_true", help="validate only")
    ap.add_argument("--expect-error", metavar="REGEX", help="expect validation to fail")
    ap.add_argument("catalogs", nargs="*")
    args = ap.parse_args(argv)
    if not args.out and not args.check and not args.expect_error:
        ap.error("need --out, --check or --expect-error")
    try:
        table = parse_catalogs(args.catalogs)
    except (CatalogError, OSError) as e:
        print("gen_help: error: %s" % e, file=sys.stderr)
        if args.expect_error:
            if re.search(args.expect_error, str(e)):
                print("gen_help: rejected as expected")
                return 0
            print("gen_help: the error does not match /%s/" % args.expect_error, file=sys.stderr)
        return 1
    if args.expect_error:
        print("gen_help: catalog accepted, expected an error matching /%s/" % args.expect_error,
              file=sys.stderr)
        return 1
    if args.out:
        write_table(table, args.out, args.catalogs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
