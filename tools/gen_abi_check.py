#!/usr/bin/env python3
"""Generate a C program that checks the public headers (and libpmix) against the ABI tables.

Usage: gen_abi_check.py ABI_DIR OUT.c [--corrupt KIND[,KIND...]]

ABI_DIR holds constants/attributes/layouts/functions/macros/typedefs .tsv (see its
README.md). The generated file includes <pmix.h>, <pmix_server.h> and <pmix_tool.h> and
checks, with the README's picks applied (4.2.2 facts for rows OpenPMIx 4.2.2 has; master's
effective fact, X_master if filled else X, for rows only master has; Standard-only rows
skipped):

  compile time  integer constant values and expression types (_Generic), #define vs
                enumerator, enumerators belong to their enum typedef (-Wswitch);
                struct sizeof/_Alignof, every field's offsetof/sizeof/type; typedef
                sizeof/_Alignof and scalar/array/function-pointer types; every function
                assigned to a pointer typed from the table's prototype; macros defined,
                static inline helpers typed from the table; key string lengths
  run time      strcmp of every attribute key string and env-var name

Build it with -Werror: type mismatches are reported as incompatible-pointer warnings.
Run, it prints "abi check: ... all ok" and exits 0, or lists the mismatching keys and
exits 1.

--corrupt alters the tables in memory before generating, to prove the check can fail:
  constant   one constant value (+1)          -> _Static_assert fails
  offset     one field offset (+8)            -> _Static_assert fails
  key        one key string ("x" appended)    -> length assert fails (strcmp at run time)
  prototype  one "const" dropped from a prototype -> incompatible pointer (-Werror)
"""
import argparse
import csv
import os
import re
import sys

TABLES = ("constants", "attributes", "layouts", "functions", "macros", "typedefs")

# README: these are a policy left to the implementation (compile-time version and
# capability flags); only check that they are defined.
POLICY_CONSTANTS = {"PMIX_VERSION_MAJOR", "PMIX_VERSION_MINOR", "PMIX_VERSION_RELEASE",
                    "PMIX_NUMERIC_VERSION", "PMIX_CAPABILITIES"}

MACRO_KINDS = ("function_like_macro", "object_like_initializer", "static_inline_function")

# README pick: exported function, never a macro.
NOT_A_MACRO = "PMIx_Heartbeat"


def load(abi, name):
    with open(os.path.join(abi, name + ".tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def in_422(r):
    return r.get("in_openpmix_4_2_2") == "yes"


def in_master(r):
    return r.get("in_openpmix_master") == "yes"


def selected(r):
    """Rows the merged headers carry: in 4.2.2 or in master (not Standard-only)."""
    return in_422(r) or in_master(r)


def fact(r, col, col422=None):
    """The fact the merged header must reproduce for column col.

    Rows in 4.2.2 keep 4.2.2's fact (col422 names the 4.2.2 column where it differs from
    the generic one); rows only master has use master's effective fact."""
    if in_422(r):
        return r[col422 or col]
    return r.get(col + "_master") or r.get(col) or ""


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ident(s):
    return re.sub(r"[^A-Za-z0-9_]", "_", s)


class Gen:
    def __init__(self):
        self.top = []       # file-scope declarations
        self.body = []      # statements of px_abi_compile_checks()
        self.counts = {}

    def count(self, what, n=1):
        self.counts[what] = self.counts.get(what, 0) + n

    def sa(self, cond, msg):
        self.top.append("_Static_assert(%s, %s);" % (cond, cstr(msg)))


def c_literal(value, ctype):
    v = int(value)
    suffix = {"int": "", "unsigned int": "U", "long": "L"}[ctype]
    lit = "%d%s" % (abs(v), suffix)
    return "(-%s)" % lit if v < 0 else lit


def gen_constants(g, rows):
    g.top.append("\n/* ---- integer constants ---- */")
    g.top.append("/* PMIX_VERSION_MAJOR/MINOR/RELEASE, PMIX_NUMERIC_VERSION and PMIX_CAPABILITIES\n"
                 " * are a policy the README leaves to the implementation: only checked to be\n"
                 " * defined.  Standard-only rows (in neither 4.2.2 nor master) are skipped. */")
    enums = {}
    for r in rows:
        if not selected(r):
            continue
        name = r["name"]
        definition = fact(r, "definition")
        if name in POLICY_CONSTANTS:
            g.top.append("#ifndef %s\n#error \"%s is not defined\"\n#endif" % (name, name))
            g.count("policy constants")
            continue
        value = fact(r, "value")
        ctype = fact(r, "c_expr_type")
        if definition.startswith("enum "):
            enum = definition.split()[1]
            enums.setdefault(enum, []).append(name)
            g.top.append("#ifdef %s\n#error \"%s must be an enumerator of %s, not a macro\"\n#endif"
                         % (name, name, enum))
        else:
            g.top.append("#ifndef %s\n#error \"%s is not defined\"\n#endif" % (name, name))
        g.sa("%s == %s" % (name, c_literal(value, ctype)), "%s == %s" % (name, value))
        g.sa("_Generic((%s), %s: 1, default: 0)" % (name, ctype), "%s has type %s" % (name, ctype))
        g.count("constants")
    # Every table enumerator must be a value of its enum, and (no default label) every
    # enumerator of the header's enum must be in the table: -Wswitch reports both.
    for enum, names in sorted(enums.items()):
        fn = "px_enum_" + ident(enum)
        lines = ["static int %s(%s v)" % (fn, enum), "{", "    switch (v) {"]
        lines += ["    case %s:" % n for n in names]
        lines += ["        return 1;", "    }", "    return 0;", "}"]
        g.top.append("\n".join(lines))
        g.body.append("ok &= %s(%s);" % (fn, names[0]))
        g.count("enums")


def field_expr(struct, field):
    return "((%s *) 0)->%s" % (struct, field)


def gen_layouts(g, rows):
    g.top.append("\n/* ---- struct layouts ---- */")
    structs = {}
    for r in rows:
        if not selected(r) or not fact(r, "offset"):
            continue
        structs.setdefault(r["struct"], []).append(r)
    for struct, fields in structs.items():
        # The merged header declares master's appended members too, so a struct whose
        # size changed in master (pmix_server_module_t, 224 -> 256) has master's sizeof;
        # the 4.2.2 members keep 4.2.2's offsets (checked per field below).
        size = fields[0].get("struct_sizeof_master") or fields[0]["struct_sizeof"]
        align = fields[0].get("struct_alignment_master") or fields[0]["struct_alignment"]
        g.sa("sizeof(%s) == %s" % (struct, size), "sizeof(%s) == %s" % (struct, size))
        g.sa("_Alignof(%s) == %s" % (struct, align), "_Alignof(%s) == %s" % (struct, align))
        g.count("structs")
        for r in fields:
            field = r["field"]
            off = fact(r, "offset")
            size = fact(r, "size")
            ctype = fact(r, "field_c_type")
            g.sa("offsetof(%s, %s) == %s" % (struct, field, off),
                 "offsetof(%s, %s) == %s" % (struct, field, off))
            g.sa("sizeof(%s) == %s" % (field_expr(struct, field), size),
                 "sizeof(%s.%s) == %s" % (struct, field, size))
            if not ctype.startswith("union"):
                # a pointer to the field must convert to a pointer to the table's type
                g.body.append("{ %s *p = &px_obj_%s.%s; (void) p; }" % (ctype, ident(struct), field))
            g.count("fields")
    decls = ["static %s px_obj_%s;" % (s, ident(s)) for s in structs]
    g.top.append("\n".join(decls))


def fnptr_from_typedef(definition, name, newname):
    """'typedef R (*name)(P)' -> same declaration naming newname."""
    out, n = re.subn(r"\(\s*\*\s*%s\s*\)" % re.escape(name), "(*%s)" % newname, definition, 1)
    if n != 1:
        raise SystemExit("gen_abi_check: cannot parse callback typedef %r" % definition)
    return out


def gen_typedefs(g, rows):
    g.top.append("\n/* ---- typedefs ---- */")
    for r in rows:
        if not selected(r) or r["kind"] == "extern_variable":
            continue
        name = r["name"]
        definition = fact(r, "definition", "definition_4_2_2")
        size = r.get("sizeof_master") or r["sizeof"]   # pmix_server_module_t: 256 (see layouts)
        align = r.get("alignment_master") or r["alignment"]
        g.sa("sizeof(%s) == %s" % (name, size), "sizeof(%s) == %s" % (name, size))
        g.sa("_Alignof(%s) == %s" % (name, align), "_Alignof(%s) == %s" % (name, align))
        kind = r["kind"]
        if kind == "scalar":
            g.sa("_Generic((%s) 0, %s: 1, default: 0)" % (name, definition),
                 "%s is %s" % (name, definition))
        elif kind == "array":
            m = re.match(r"^(.*)\[(\d+)\]$", definition)
            g.body.append("{ static %s a; %s (*p)[%s] = &a; (void) p; }" % (name, m.group(1), m.group(2)))
        elif kind == "function_pointer":
            chk = "px_td_" + name
            g.top.append(fnptr_from_typedef(definition, name, chk) + ";")
            g.body.append("{ %s p = (%s) 0; (void) p; }" % (name, chk))
        g.count("typedefs")


def gen_functions(g, rows):
    g.top.append("\n/* ---- functions: pointers typed from the tables' prototypes ---- */")
    for r in rows:
        if not selected(r):
            continue
        name = r["name"]
        proto = fact(r, "prototype", "prototype_4_2_2")
        if r["kind"] == "server_module_member":
            # the one-line callback typedef of the member; the member's own type and slot
            # are covered by the layout checks
            tname = r["module_index_and_typedef"].split(":")[1] if r["module_index_and_typedef"] \
                else re.search(r"\(\s*\*\s*(\w+)\s*\)", proto).group(1)
            chk = "px_mt_" + ident(name)
            g.top.append(fnptr_from_typedef(proto, tname, chk) + ";")
            g.body.append("{ %s p = (%s) 0; (void) p; }" % (tname, chk))
            g.count("module members")
            continue
        var = "px_fn_" + name
        decl, n = re.subn(r"\b%s\s*\(" % re.escape(name), "(*%s)(" % var, proto, 1)
        if n != 1:
            raise SystemExit("gen_abi_check: cannot parse prototype %r" % proto)
        g.top.append("static %s = %s;" % (decl, name))
        g.body.append("ok &= %s != NULL;" % var)
        g.count("functions")
    g.top.append("#ifdef %s\n#error \"%s must be a function, not a macro\"\n#endif"
                 % (NOT_A_MACRO, NOT_A_MACRO))


def gen_macros(g, rows):
    g.top.append("\n/* ---- macros and static inline helpers ---- */")
    for r in rows:
        if not selected(r):
            continue
        kind = r["kind"] if in_422(r) else (r.get("kind_master") or r["kind"])
        name = r["name"]
        if kind not in MACRO_KINDS or name == NOT_A_MACRO:
            continue
        if kind == "static_inline_function":
            m = re.search(r"C type: ([^(]*)\((.*)\)\s*$", r["notes"])
            if not m:
                raise SystemExit("gen_abi_check: no C type for %s" % name)
            ret, params = m.group(1).strip(), m.group(2)
            g.top.append("static %s (*px_in_%s)(%s) = %s;" % (ret, name, params, name))
            g.body.append("ok &= px_in_%s != NULL;" % name)
            g.count("inline helpers")
        else:
            g.top.append("#ifndef %s\n#error \"%s is not defined\"\n#endif" % (name, name))
            g.count("macros")


def gen_keys(g, rows):
    g.top.append("\n/* ---- attribute key strings and env-var names ---- */")
    g.top.append("/* The three attributes master re-keyed keep 4.2.2's strings (README pick). */")
    entries = []
    for r in rows:
        if not selected(r):
            continue
        name = r["name"]
        key = fact(r, "key_string")
        # "" NAME "" only compiles if NAME expands to a string literal
        g.sa("sizeof(%s) == sizeof(%s)" % (name, cstr(key)), "length of %s" % name)
        entries.append('    {"%s", "" %s "", %s},' % (name, name, cstr(key)))
        g.count("keys")
    g.top.append("static const struct px_key {\n    const char *name, *have, *want;\n} px_keys[] = {\n"
                 + "\n".join(entries) + "\n};")


def corrupt(tables, kinds):
    """Alter one fact per requested kind (in memory) so the generated check must fail."""
    for kind in kinds:
        if kind == "constant":
            r = next(r for r in tables["constants"] if in_422(r) and r["kind"] == "status")
            r["value"] = str(int(r["value"]) + 1)
        elif kind == "offset":
            r = next(r for r in tables["layouts"]
                     if r["struct"] == "pmix_info_t" and r["field"] == "value")
            r["offset"] = str(int(r["offset"]) + 8)
        elif kind == "key":
            r = next(r for r in tables["attributes"] if in_422(r) and r["entry_kind"] == "attribute")
            r["key_string"] += "x"
        elif kind == "prototype":
            r = next(r for r in tables["functions"] if in_422(r) and r["kind"] == "function"
                     and "const " in r["prototype_4_2_2"])
            r["prototype_4_2_2"] = r["prototype_4_2_2"].replace("const ", "", 1)
        else:
            raise SystemExit("gen_abi_check: unknown --corrupt kind %r" % kind)
        sys.stderr.write("gen_abi_check: corrupted %s (%s)\n" % (kind, r.get("name") or r.get("field")))


def generate(tables):
    g = Gen()
    gen_constants(g, tables["constants"])
    gen_layouts(g, tables["layouts"])
    gen_typedefs(g, tables["typedefs"])
    gen_functions(g, tables["functions"])
    gen_macros(g, tables["macros"])
    gen_keys(g, tables["attributes"])
    c = g.counts
    out = [
        "/* Generated by tools/gen_abi_check.py from the ABI tables; do not edit.",
        " * Compile with -Werror (type checks are incompatible-pointer diagnostics). */",
        "#include <stddef.h>",
        "#include <stdio.h>",
        "#include <string.h>",
        "#include <pmix.h>",
        "#include <pmix_server.h>",
        "#include <pmix_tool.h>",
    ]
    out += g.top
    out += ["", "/* Uses every checked object so nothing is unused or optimised away. */",
            "static int px_abi_compile_checks(void)", "{", "    int ok = 1;"]
    out += ["    " + s for s in g.body]
    out += ["    return ok;", "}", ""]
    summary = ("%d constants (+%d policy, defined only), %d enums, %d structs, %d fields, "
               "%d typedefs, %d functions, %d module members, %d macros, %d inline helpers, "
               "%d keys" % (c.get("constants", 0), c.get("policy constants", 0), c.get("enums", 0),
                            c.get("structs", 0), c.get("fields", 0), c.get("typedefs", 0),
                            c.get("functions", 0), c.get("module members", 0), c.get("macros", 0),
                            c.get("inline helpers", 0), c.get("keys", 0)))
    out += [
        "int main(void)",
        "{",
        "    size_t i, nkeys = sizeof(px_keys) / sizeof(px_keys[0]), bad = 0;",
        "",
        "    if (!px_abi_compile_checks()) {",
        "        fprintf(stderr, \"abi check: a function or helper pointer is NULL\\n\");",
        "        return 1;",
        "    }",
        "    for (i = 0; i < nkeys; ++i) {",
        "        if (0 != strcmp(px_keys[i].have, px_keys[i].want)) {",
        "            fprintf(stderr, \"abi check: %s is \\\"%s\\\", expected \\\"%s\\\"\\n\",",
        "                    px_keys[i].name, px_keys[i].have, px_keys[i].want);",
        "            ++bad;",
        "        }",
        "    }",
        "    if (bad) {",
        "        fprintf(stderr, \"abi check: %zu of %zu key strings wrong\\n\", bad, nkeys);",
        "        return 1;",
        "    }",
        "    printf(\"abi check: %s: all ok\\n\");" % summary,
        "    return 0;",
        "}",
    ]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("abi_dir")
    ap.add_argument("out")
    ap.add_argument("--corrupt", default="", help="comma-separated: constant,offset,key,prototype")
    a = ap.parse_args()
    tables = {t: load(a.abi_dir, t) for t in TABLES}
    if a.corrupt:
        corrupt(tables, [k for k in a.corrupt.split(",") if k])
    text = generate(tables)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
