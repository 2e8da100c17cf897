#!/usr/bin/env python3
"""Checks that what the docs show is what the project is.

  check_docs.py readme-example ROOT    the README's C++ example is examples/amp_training.cpp, exactly
  check_docs.py changelog VERSION ROOT the CHANGELOG's newest entry is the project's version
"""
import re
import sys
from pathlib import Path


def fail(message):
    print(f"check_docs: {message}", file=sys.stderr)
    sys.exit(1)


def readme_example(root):
    readme = (root / "README.md").read_text()
    example = (root / "examples" / "amp_training.cpp").read_text()
    blocks = re.findall(r"```cpp\n(.*?)```", readme, flags=re.S)
    if not blocks:
        fail("README.md has no ```cpp block")
    if blocks[0] != example:
        fail("README.md's first C++ example differs from examples/amp_training.cpp (the file the tests "
             "build and run): copy the file into the README")
    print(f"README's example is examples/amp_training.cpp ({len(example.splitlines())} lines)")


def changelog(version, root):
    text = (root / "CHANGELOG.md").read_text()
    entries = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, flags=re.M)
    if not entries:
        fail("CHANGELOG.md has no entry of the form '## [X.Y.Z] - YYYY-MM-DD'")
    if entries[0] != version:
        fail(f"CHANGELOG.md's newest entry is {entries[0]}, but the project's version is {version} "
             "(project(tinyamp VERSION ...) in CMakeLists.txt): add an entry for it")
    print(f"CHANGELOG's newest entry is {version}, the project's version")


def main(argv):
    if len(argv) == 3 and argv[1] == "readme-example":
        readme_example(Path(argv[2]))
    elif len(argv) == 4 and argv[1] == "changelog":
        changelog(argv[2], Path(argv[3]))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv)
