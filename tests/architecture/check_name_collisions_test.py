#!/usr/bin/env python3
"""scripts/check_name_collisions.py can fail: on small trees in a temporary folder it exits 1
naming a base name used in two folders and a listed name that no longer collides, and passes
a header beside its source file and a listed collision."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "check_name_collisions.py")


def run(files):
    """The check's exit status and output on a tree holding `files` (path -> text)."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        result = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
        return result.returncode, result.stdout


class CheckNameCollisionsTest(unittest.TestCase):
    def test_a_header_beside_its_source_passes(self):
        status, out = run({"tinyamp/ops/matmul.h": "", "tinyamp/ops/matmul.cpp": "", "kernels/cpu/gemm_tiles.h": ""})
        self.assertEqual(status, 0, out)

    def test_a_name_in_two_folders_fails_and_is_named(self):
        status, out = run({"tinyamp/ops/softmax.cpp": "", "kernels/cpu/softmax.h": ""})
        self.assertEqual(status, 1, out)
        self.assertIn("'softmax' names files in 2 folders: kernels/cpu, tinyamp/ops", out)

    def test_a_listed_collision_passes_and_a_stale_entry_fails(self):
        listed = {"scripts/name_collisions_allowed.txt": "# old ones\nsoftmax  kernels/cpu tinyamp/ops\n"}
        status, out = run({**listed, "tinyamp/ops/softmax.cpp": "", "kernels/cpu/softmax.h": ""})
        self.assertEqual(status, 0, out)
        status, out = run({**listed, "tinyamp/ops/softmax.cpp": "", "kernels/cpu/softmax_rows.h": ""})
        self.assertEqual(status, 1, out)
        self.assertIn("'softmax' is listed in scripts/name_collisions_allowed.txt but no longer collides", out)


if __name__ == "__main__":
    unittest.main()
