#!/usr/bin/env python3
"""A lab's common mistakes, as mutations of its solution (lessons/NN_topic/mistakes.txt).

Each mistake is one a student is likely to make. The mutation test applies it to the solution in
lab.cpp, builds the lab with it and runs the lab's checks: they must fail, and the failure must
name the mistake (the catching check's message contains the mistake's name). So no listed mistake
can silently stop being caught. The file's format:

    mistake: clipping before unscale_
    item: 13.3
    replace:
        scaler.unscale_(optimizer);
        const double norm = optim::clip_grad_norm_(params, max_norm);
    with:
        const double norm = optim::clip_grad_norm_(params, max_norm);
        scaler.unscale_(optimizer);

A mistake has one or more replace/with pairs; each `replace` text must occur exactly once in
lab.cpp. Lines starting with `#` outside the code blocks are comments. The names are the ones the
lab's README lists under "Common mistakes".

    mistakes.py list MISTAKES_FILE                  one line per mistake: index|item|name
    mistakes.py count MISTAKES_FILE                 how many mistakes it lists
    mistakes.py apply MISTAKES_FILE INDEX LAB_CPP OUT  writes lab.cpp with mistake INDEX (from 1) applied
    mistakes.py readme MISTAKES_FILE README         exits 1 unless the README's "Common mistakes" section
                                                    names exactly these mistakes
    mistakes.py caught MISTAKES_FILE INDEX LAB_BINARY SUITE
                                                    runs the lab built with mistake INDEX; exits 1 unless
                                                    its checks fail and the output names the mistake
"""
import os
import re
import subprocess
import sys

KEYS = ("mistake:", "item:", "replace:", "with:")


class Mistake:
    def __init__(self, name, line):
        self.name, self.line, self.item, self.edits = name, line, None, []


def parse(path):
    """The mistakes of a file, in order; a ValueError naming the file and line if it is malformed."""
    mistakes, block = [], None  # block: the list of lines a replace/with is collecting
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        key = next((k for k in KEYS if line.startswith(k)), None)
        if key is None:
            if block is not None:
                block.append(line)
            elif line.strip() and not line.startswith("#"):
                raise ValueError(f"{path}:{number}: expected one of {', '.join(KEYS)} here, found: {line.strip()}")
            continue
        value = line[len(key):].strip()
        if key == "mistake:":
            if not value:
                raise ValueError(f"{path}:{number}: a mistake needs a name after 'mistake:'")
            mistakes.append(Mistake(value, number))
            block = None
            continue
        if not mistakes:
            raise ValueError(f"{path}:{number}: '{key}' before the first 'mistake:' line")
        mistake = mistakes[-1]
        if key == "item:":
            if not re.fullmatch(r"\d\d\.\d+", value):
                raise ValueError(f"{path}:{number}: the item must look like 13.3, not '{value}'")
            mistake.item, block = value, None
        elif key == "replace:":
            mistake.edits.append([[], None])
            block = mistake.edits[-1][0]
        else:
            if not mistake.edits or mistake.edits[-1][1] is not None:
                raise ValueError(f"{path}:{number}: 'with:' without a 'replace:' before it")
            mistake.edits[-1][1] = []
            block = mistake.edits[-1][1]
    for m in mistakes:
        if m.item is None:
            raise ValueError(f"{path}:{m.line}: mistake '{m.name}' has no 'item:' line")
        if not m.edits:
            raise ValueError(f"{path}:{m.line}: mistake '{m.name}' has no replace:/with: pair")
        for edit in m.edits:
            if edit[1] is None:
                raise ValueError(f"{path}:{m.line}: mistake '{m.name}' has a 'replace:' without its 'with:'")
            for i in (0, 1):
                while edit[i] and not edit[i][-1].strip():
                    edit[i].pop()
            if not edit[0]:
                raise ValueError(f"{path}:{m.line}: mistake '{m.name}' replaces an empty text")
    names = [m.name for m in mistakes]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"{path}: two mistakes are named '{name}'")
        if ";" in name:
            raise ValueError(f"{path}: a mistake's name may not contain ';' ('{name}')")
    return mistakes


def apply(mistake, source, lab_path):
    for old_lines, new_lines in mistake.edits:
        old, new = "\n".join(old_lines), "\n".join(new_lines)
        count = source.count(old)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise ValueError(f"mistake '{mistake.name}': the text to replace {where} in {lab_path} "
                             f"(it must occur exactly once; was the solution changed?):\n{old}")
        source = source.replace(old, new)
    return source


def readme_names(readme_path):
    """The bold names of the README's "Common mistakes" list: lines like `1. **name**: ...`."""
    with open(readme_path, encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^## Common mistakes\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not section:
        return None
    return re.findall(r"^\s*(?:\d+\.|-)\s+\*\*(.+?)\*\*", section.group(1), re.M)


def main():
    args = sys.argv[1:]
    try:
        if len(args) == 2 and args[0] == "list":
            for i, m in enumerate(parse(args[1]), 1):
                print(f"{i}|{m.item}|{m.name}")
        elif len(args) == 2 and args[0] == "count":
            print(len(parse(args[1])))
        elif len(args) == 5 and args[0] == "caught":
            mistake = parse(args[1])[int(args[2]) - 1]
            run = subprocess.run([args[3], f"-ts={args[4]}", "--no-colors"], capture_output=True, text=True, timeout=300)
            output = run.stdout + run.stderr
            if run.returncode == 0:
                raise ValueError(f"mistake '{mistake.name}' (lab {mistake.item}) is not caught: "
                                 f"the lab's checks all pass with it applied\n{output[-3000:]}")
            if mistake.name not in output:
                raise ValueError(f"mistake '{mistake.name}' (lab {mistake.item}) fails the checks, but no failure "
                                 f"names it: add it to the message of the check that catches it\n{output[-3000:]}")
            print(f"mistake '{mistake.name}' (lab {mistake.item}) is caught and named:")
            print("\n".join(line for line in output.splitlines() if mistake.name in line))
        elif len(args) == 5 and args[0] == "apply":
            mistakes = parse(args[1])
            index = int(args[2])
            if not 1 <= index <= len(mistakes):
                raise ValueError(f"{args[1]} has {len(mistakes)} mistakes; there is no mistake {index}")
            with open(args[3], encoding="utf-8") as f:
                source = f.read()
            mutated = apply(mistakes[index - 1], source, args[3])
            with open(args[4] + ".tmp", "w", encoding="utf-8") as f:
                f.write(f"// {args[3]} with the mistake '{mistakes[index - 1].name}' applied (lessons/support/mistakes.py)\n")
                f.write(mutated)
            os.replace(args[4] + ".tmp", args[4])
        elif len(args) == 3 and args[0] == "readme":
            names = [m.name for m in parse(args[1])]
            listed = readme_names(args[2])
            if listed is None:
                raise ValueError(f"{args[2]} has no '## Common mistakes' section; it must list: {names}")
            if sorted(listed) != sorted(names):
                raise ValueError(f"{args[2]}'s 'Common mistakes' list {listed} does not match {args[1]}'s mistakes {names} "
                                 "(each listed mistake is written `1. **name**: ...` with the name as in mistakes.txt)")
        else:
            sys.exit(__doc__)
    except (ValueError, OSError) as problem:
        print(f"mistakes: {problem}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
