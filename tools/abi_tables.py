"""Reading the ABI fact tables (../shared/spec/abi/*.tsv) for the generators.

Selection rules shared by gen_headers.py and gen_tables.py (spec/abi/README.md,
"Generating the merged headers"): a row is wanted when OpenPMIx 4.2.2 or master has it;
rows in 4.2.2 use the 4.2.2 columns, rows only master has use master's effective fact
(X_master if filled, else X). gen_abi_check.py keeps its own reading on purpose: it checks
what these generators produce, so it must not share their mistakes.
"""
import csv
import os


def load(abi, name):
    with open(os.path.join(abi, name + ".tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def wanted(r):
    return (r.get("in_openpmix_4_2_2") == "yes" or r.get("in_openpmix_master") == "yes" or
            bool(r.get("compat")))


# Names neither 4.2.2 nor master has, kept for older programs (a "compat" column says
# whose): tools/headers/<name>_compat.tsv, the shared table's columns plus "compat".
# Their values are not 4.2.2's ABI facts, so gen_abi_check.py does not see them.
COMPAT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "headers")


def load_with_compat(abi, name):
    rows = load(abi, name)
    extra = os.path.join(COMPAT_DIR, name + "_compat.tsv")
    if os.path.exists(extra):
        with open(extra, newline="") as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


def only_master(r):
    return r.get("in_openpmix_4_2_2") != "yes" and r.get("in_openpmix_master") == "yes"


def eff(r, col):
    """Master's effective fact for master-only rows, 4.2.2's otherwise."""
    if only_master(r) and r.get(col + "_master"):
        return r[col + "_master"]
    return r[col]
