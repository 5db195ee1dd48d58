"""libflashlab exports exactly the functions its public headers declare
(the Makefile's PUBLIC_HDRS; the library is built -fvisibility=hidden and
those headers mark their declarations for export).

Prints "test_exports: N passed, N failed, N skipped" for tests/run.sh.
"""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("FLASHLAB_LIB", os.path.join(ROOT, "build", "libflashlab.so"))


def public_headers():
    with open(os.path.join(ROOT, "Makefile")) as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^PUBLIC_HDRS\s*:=\s*(.*)$", text, re.M)
    return m.group(1).split()


def declared_functions(path):
    """Names of the functions a header declares (not static inline ones,
    not function-pointer typedefs or struct members)."""
    with open(path) as f:
        src = f.read()
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    src = re.sub(r"#ifdef __cplusplus.*?#endif", " ", src, flags=re.S)
    src = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", src, flags=re.M)
    names, depth, stmt = set(), 0, ""
    for ch in src:
        if ch == "{":
            if depth == 0 and not re.search(r"\b(struct|enum|union)\b[^;]*$|=\s*$", stmt):
                stmt += " {INLINE}"  # a function body: static inline
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and "{INLINE}" in stmt:
                stmt = ""
        elif depth == 0:
            if ch == ";":
                s = " ".join(stmt.split())
                stmt = ""
                if s.startswith("typedef") or "static" in s.split():
                    continue
                m = re.match(r"^[\w\s\*]*?\b([A-Za-z_]\w*)\s*\(", s)
                if m:
                    names.add(m.group(1))
            else:
                stmt += ch
    return names


def exported_functions(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True,
                         text=True, check=True).stdout
    return {parts[2] for parts in (l.split() for l in out.splitlines())
            if len(parts) == 3 and parts[1] == "T"}


class Exports(unittest.TestCase):
    def test_parser_sees_declarations(self):
        names = declared_functions(os.path.join(ROOT, "sim", "nand.h"))
        self.assertIn("nand_program", names)
        self.assertIn("nand_create", names)
        self.assertNotIn("nand_dev", names)

    def test_exactly_the_public_functions(self):
        if not os.path.exists(LIB):
            self.skipTest(f"{LIB}: not built")
        declared = set()
        for h in public_headers():
            declared |= declared_functions(os.path.join(ROOT, h))
        exported = exported_functions(LIB)
        self.assertEqual(sorted(exported - declared), [], "exported but not public")
        self.assertEqual(sorted(declared - exported), [], "public but not exported")
        # nothing internal leaks, in particular names other libraries use
        for prefix in ("lfs_", "bf_", "fk_", "jffs_", "gcp_", "ydoc_", "wl_"):
            self.assertFalse([n for n in exported if n.startswith(prefix)], prefix)

    def test_soname(self):
        if not os.path.exists(LIB):
            self.skipTest(f"{LIB}: not built")
        out = subprocess.run(["readelf", "-d", LIB], capture_output=True, text=True).stdout
        self.assertRegex(out, r"SONAME.*\[libflashlab\.so\.\d+\]")


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    bad = len(result.failures) + len(result.errors)
    print(f"test_exports: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, "
          f"{len(result.skipped)} skipped")
    sys.exit(1 if bad else 0)
