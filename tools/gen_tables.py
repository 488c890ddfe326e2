#!/usr/bin/env python3
"""Generate the name tables of libpmix-core/util from the ABI fact tables.

Usage: gen_tables.py [--abi DIR] [--out DIR] [--check]

Reads constants.tsv and attributes.tsv from DIR (default ../shared/spec/abi beside the
repo) and writes px_abi_tables.h and px_abi_tables.c into --out (default
libpmix-core/util/). With --check nothing is written: the generated text is compared with
the files on disk and the exit status says whether they agree (a meson test runs this so
the committed tables cannot drift from the facts).

What is generated (rows present in OpenPMIx 4.2.2 or master only, like the headers):
- one name table per PMIx integer typedef (pmix_status_t, pmix_data_type_t,
  pmix_proc_state_t, ...): every constant name with its value, in table order. Where
  several names share a value (aliases) exactly one of them is marked primary and is the
  one the *_string functions print. Pick, in order: a name the Standard lists as current
  (status "standard") over deprecated/removed/non-standard ones; then a name 4.2.2 has;
  then the first row of the table. E.g. -3 prints PMIX_DEBUGGER_RELEASE (not
  PMIX_ERR_DEBUGGER_RELEASE), -145 PMIX_EVENT_JOB_END, job state 1
  PMIX_JOB_STATE_AWAITING_ALLOC (not PMIX_JOB_STATE_PREPPED).
- the attribute dictionary, sorted by name: name, key string, data type, description,
  for every attribute row of 4.2.2 or master (entry_kind "attribute"; the three
  environment-variable names are not attributes). Rows of 4.2.2 use 4.2.2's key string and
  the type 4.2.2's run-time dictionary records (dictionary_type_4_2_2); master-only rows
  use master's key string and type ("(varies)" becomes PMIX_UNDEF).
- the key index, sorted by key string, mapping each key to one attribute. Keys shared by
  several names map to: a name whose key master did not change, then a "standard" name,
  then the first row (pmix.qry.quals -> PMIX_QUERY_QUALIFIERS, pmix.fab.coord ->
  PMIX_FABRIC_COORDINATES, pmix.jctrl.ckptsig -> PMIX_JOB_CTRL_CHECKPOINT_SIGNAL,
  pmix.alloc.net* -> PMIX_ALLOC_FABRIC*, pmix.pdata -> PMIX_PROC_INFO_ARRAY). Master's new
  strings for the three re-keyed attributes are extra index entries (synonyms).
"""
import argparse
import os
import sys

from abi_tables import eff, load, load_with_compat, only_master, wanted

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

STATUS_RANK = {"standard": 0, "deprecated": 1, "not_in_standard": 2, "removed": 3}


def cstr(s):
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            raise SystemExit("gen_tables: non-ASCII or control character in %r" % s)
    return '"' + "".join(out) + '"'


def short_name(typedef):
    """pmix_proc_state_t -> proc_state"""
    base = typedef
    if base.startswith("pmix_"):
        base = base[len("pmix_"):]
    if base.endswith("_t"):
        base = base[:-2]
    return base


def build_enums(constants):
    """typedef -> list of (name, value, primary) in table order."""
    groups = {}
    for order, r in enumerate(constants):
        if not wanted(r):
            continue
        td = r["c_typedef"]
        if not td.startswith("pmix_") or not td.endswith("_t"):
            continue
        value = int(eff(r, "value"))
        groups.setdefault(td, []).append((order, r, value))
    enums = {}
    for td, rows in groups.items():
        best = {}
        for order, r, value in rows:
            key = (STATUS_RANK.get(r["status_in_standard"], 9),
                   0 if r.get("in_openpmix_4_2_2") == "yes" else 1, order)
            if value not in best or key < best[value][0]:
                best[value] = (key, r["name"])
        enums[td] = [(r["name"], value, best[value][1] == r["name"]) for _, r, value in rows]
    return enums


def attr_type(r):
    if only_master(r):
        t = eff(r, "pmix_data_type")
    else:
        t = r["dictionary_type_4_2_2"] or r["pmix_data_type_4_2_2"] or r["pmix_data_type"]
    if not t.startswith("PMIX_"):
        t = "PMIX_UNDEF"
    return t


def build_attrs(attributes):
    attrs = []
    for order, r in enumerate(attributes):
        if not wanted(r) or r["entry_kind"] != "attribute":
            continue
        key = r["key_string"] if r.get("in_openpmix_4_2_2") == "yes" else eff(r, "key_string")
        attrs.append({"name": r["name"], "key": key, "type": attr_type(r),
                      "desc": r["description"], "master_only": only_master(r),
                      "master_key": r.get("key_string_master", "") if not only_master(r) else "",
                      "rank": (0 if not r.get("key_string_master") or only_master(r) else 1,
                               STATUS_RANK.get(r["status_in_standard"], 9), order)})
    attrs.sort(key=lambda a: a["name"].encode())
    names = [a["name"] for a in attrs]
    if len(set(names)) != len(names):
        raise SystemExit("gen_tables: duplicate attribute name")
    index = {a["name"]: i for i, a in enumerate(attrs)}
    bykey = {}
    for a in attrs:
        if a["key"] not in bykey or a["rank"] < bykey[a["key"]]["rank"]:
            bykey[a["key"]] = a
    keys = [(k, index[a["name"]]) for k, a in bykey.items()]
    for a in attrs:
        mk = a["master_key"]
        if mk and mk != a["key"]:
            if mk in bykey:
                raise SystemExit("gen_tables: master key %s collides" % mk)
            keys.append((mk, index[a["name"]]))
    keys.sort(key=lambda k: k[0].encode())
    return attrs, keys


HEADER = """\
/* Name tables generated by tools/gen_tables.py from spec/abi constants.tsv and
 * attributes.tsv -- do not edit; run `python3 tools/gen_tables.py` to regenerate.
 * Read-only data, usable from any thread. */
"""


def gen_h(enums):
    out = [HEADER]
    out.append("#ifndef PX_ABI_TABLES_H\n#define PX_ABI_TABLES_H\n\n")
    out.append("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n")
    out.append('#include "pmix_common.h"\n\n')
    out.append("/* One named constant of a PMIx integer typedef. Of several names with the same value\n"
               " * exactly one has primary set; that one is printed (see gen_tables.py). */\n")
    out.append("struct px_abi_name {\n    const char *name;\n    int64_t value;\n    bool primary;\n};\n\n")
    out.append("/* All names of one typedef, in fact-table order. */\n")
    out.append("struct px_abi_enum {\n    const char *typedef_name;\n"
               "    const struct px_abi_name *names;\n    size_t len;\n};\n\n")
    for td in sorted(enums):
        out.append("extern const struct px_abi_enum px_abi_%s;\n" % short_name(td))
    out.append("\n/* Every enum table above, sorted by typedef name. */\n")
    out.append("extern const struct px_abi_enum *const px_abi_enums[];\n")
    out.append("extern const size_t px_abi_enums_len;\n\n")
    out.append("/* One attribute: its macro name, key string, the data type of its value (4.2.2's\n"
               " * dictionary type; master's for master-only keys) and a short description. */\n")
    out.append("struct px_abi_attr {\n    const char *name;\n    const char *key;\n"
               "    pmix_data_type_t type;\n    bool master_only;\n    const char *description;\n};\n\n")
    out.append("/* Sorted by name (strcmp order). */\n")
    out.append("extern const struct px_abi_attr px_abi_attrs[];\n")
    out.append("extern const size_t px_abi_attrs_len;\n\n")
    out.append("/* Key string -> index into px_abi_attrs, sorted by key (strcmp order); includes\n"
               " * master's three re-keyed strings as synonyms. */\n")
    out.append("struct px_abi_key {\n    const char *key;\n    uint16_t attr;\n};\n\n")
    out.append("extern const struct px_abi_key px_abi_keys[];\n")
    out.append("extern const size_t px_abi_keys_len;\n\n")
    out.append("#endif /* PX_ABI_TABLES_H */\n")
    return "".join(out)


def gen_c(enums, attrs, keys):
    out = [HEADER]
    out.append('#include "util/px_abi_tables.h"\n\n')
    for td in sorted(enums):
        s = short_name(td)
        out.append("static const struct px_abi_name px_abi_%s_names[] = {\n" % s)
        for name, value, primary in enums[td]:
            if value < -(2 ** 31) or value >= 2 ** 31:
                lit = "INT64_C(%d)" % value
            else:
                lit = "%d" % value
            out.append("    {%s, %s, %s},\n" % (cstr(name), lit, "true" if primary else "false"))
        out.append("};\n\n")
        out.append("const struct px_abi_enum px_abi_%s = {%s, px_abi_%s_names,\n"
                   "    sizeof(px_abi_%s_names) / sizeof(px_abi_%s_names[0])};\n\n"
                   % (s, cstr(td), s, s, s))
    out.append("const struct px_abi_enum *const px_abi_enums[] = {\n")
    for td in sorted(enums):
        out.append("    &px_abi_%s,\n" % short_name(td))
    out.append("};\n\nconst size_t px_abi_enums_len = %d;\n\n" % len(enums))
    out.append("const struct px_abi_attr px_abi_attrs[] = {\n")
    for a in attrs:
        out.append("    {%s, %s, %s, %s,\n     %s},\n" % (cstr(a["name"]), cstr(a["key"]), a["type"],
                   "true" if a["master_only"] else "false", cstr(a["desc"])))
    out.append("};\n\nconst size_t px_abi_attrs_len = %d;\n\n" % len(attrs))
    out.append("const struct px_abi_key px_abi_keys[] = {\n")
    for k, i in keys:
        out.append("    {%s, %d},\n" % (cstr(k), i))
    out.append("};\n\nconst size_t px_abi_keys_len = %d;\n" % len(keys))
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--abi", default=os.path.join(REPO, "..", "shared", "spec", "abi"))
    ap.add_argument("--out", default=os.path.join(REPO, "libpmix-core", "util"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    enums = build_enums(load_with_compat(args.abi, "constants"))
    attrs, keys = build_attrs(load(args.abi, "attributes"))
    if len(attrs) >= 65536:
        raise SystemExit("gen_tables: too many attributes for a uint16_t index")
    files = {"px_abi_tables.h": gen_h(enums), "px_abi_tables.c": gen_c(enums, attrs, keys)}
    stale = []
    for name, text in files.items():
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("gen_tables: out of date: %s (run python3 tools/gen_tables.py)" % ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
