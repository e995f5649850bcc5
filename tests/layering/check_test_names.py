#!/usr/bin/env python3
"""Test names that ctest can register whole: catch_discover_tests makes a CMake list of the names,
and CMake splits a list at ';', so a TEST_CASE or SCENARIO whose name holds one becomes two tests
that match nothing and fail. Exit 1 naming each such test."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
bad = []
for f in sorted((root / "tests").rglob("*.cpp")):
    text = f.read_text(errors="replace")
    for m in re.finditer(r'\b(?:TEST_CASE|SCENARIO)\(((?:\s*"(?:[^"\\]|\\.)*")+)', text):
        name = "".join(literal.findall(m.group(1)))
        if ";" in name:
            bad.append(f"{f.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}: {name}")
for b in bad:
    print("a test name with ';' (ctest splits it in two):", b)
sys.exit(1 if bad else 0)
