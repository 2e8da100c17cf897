#!/usr/bin/env python3
"""scripts/check_floors.py and scripts/check_floor_links.py can fail: on small trees in a
temporary folder, an upward include, a file in a folder no floor names, and a compiled call to a
floor above each exit 1 naming what is wrong; a tree that keeps its floors passes."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
TABLE = "floor low: tinyamp/values/\nfloor high: tinyamp/ops/\nfloor users: tests/**\n"


def write_tree(root, files):
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)


def check_includes(files):
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, {"scripts/floors.txt": TABLE, **files})
        result = subprocess.run([sys.executable, os.path.join(SCRIPTS, "check_floors.py"), root], capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr


def check_links(sources, allowed=""):
    """Compiles each source of the tree into CMake's object folder, then runs the link check."""
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, {"scripts/floors.txt": TABLE, "scripts/floor_links_allowed.txt": allowed, **sources})
        objects = os.path.join(root, "build", "CMakeFiles", "tinyamp.dir")
        for path in sources:
            if path.endswith(".cpp"):
                out = os.path.join(objects, path + ".o")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                subprocess.run([os.environ.get("CXX", "c++"), "-c", os.path.join(root, path), "-o", out], check=True)
        result = subprocess.run([sys.executable, os.path.join(SCRIPTS, "check_floor_links.py"), os.path.join(root, "build"), root],
                                capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr


class CheckFloorsTest(unittest.TestCase):
    def test_includes_down_pass(self):
        status, out = check_includes({"tinyamp/values/dtype.h": "", "tinyamp/ops/add.cpp": '#include "tinyamp/values/dtype.h"\n',
                                      "tests/add_test.cpp": '#include "tinyamp/ops/add.cpp"\n'})
        self.assertEqual(status, 0, out)

    def test_an_upward_include_fails_and_is_named(self):
        status, out = check_includes({"tinyamp/ops/add.h": "", "tinyamp/values/dtype.h": '#include "tinyamp/ops/add.h"\n'})
        self.assertEqual(status, 1, out)
        self.assertIn("goes up: tinyamp/values/dtype.h:1 includes tinyamp/ops/add.h: floor low -> floor high", out)

    def test_a_file_in_a_folder_no_floor_names_fails(self):
        status, out = check_includes({"tinyamp/misc/helper.h": ""})
        self.assertEqual(status, 1, out)
        self.assertIn("no floor: tinyamp/misc/helper.h", out)

    def test_a_table_entry_that_is_not_a_folder_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"scripts/floors.txt": "floor low: tinyamp/values/*.h\n"})
            result = subprocess.run([sys.executable, os.path.join(SCRIPTS, "check_floors.py"), root], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("'tinyamp/values/*.h' is not a folder", result.stderr)


@unittest.skipUnless(shutil.which(os.environ.get("CXX", "c++")) and shutil.which("nm"), "needs a C++ compiler and nm")
class CheckFloorLinksTest(unittest.TestCase):
    HIGH = {"tinyamp/ops/op.cpp": "int op_defined_high() { return 1; }\n"}

    def test_calls_down_pass(self):
        status, out = check_links({**self.HIGH, "tinyamp/values/low.cpp": "int low() { return 2; }\n"})
        self.assertEqual(status, 0, out)

    def test_a_call_to_a_floor_above_fails_and_is_named(self):
        low = {"tinyamp/values/low.cpp": "int op_defined_high();\nint low() { return op_defined_high(); }\n"}
        status, out = check_links({**self.HIGH, **low})
        self.assertEqual(status, 1, out)
        self.assertIn("reaches up: tinyamp/values/low.cpp (floor low) calls op_defined_high(), defined only in tinyamp/ops/op.cpp (floor high)", out)

    def test_a_listed_call_passes_and_a_stale_entry_fails(self):
        low = {"tinyamp/values/low.cpp": "int op_defined_high();\nint low() { return op_defined_high(); }\n"}
        status, out = check_links({**self.HIGH, **low}, allowed="op_defined_high()  # why\n")
        self.assertEqual(status, 0, out)
        status, out = check_links(self.HIGH, allowed="op_defined_high()  # why\n")
        self.assertEqual(status, 1, out)
        self.assertIn("no longer reaches up: op_defined_high()", out)


if __name__ == "__main__":
    unittest.main()
