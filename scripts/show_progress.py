#!/usr/bin/env python3
"""Runs a long, noisy command, shows its output as one progress line, and keeps it all in a log.

    show_progress.py LABEL LOG_FILE COMMAND [ARGS...]

Reads the command's output (stdout and stderr) line by line and writes each line to LOG_FILE. On a terminal it shows one line
that it rewrites in place:  build  47% [63/135]  1m12s  tinyamp/ops/matmul.cpp
Elsewhere (CI logs, a pipe) it prints a line at each further 10 % and at least every 30 s, so a
log shows progress without a line per file. Ninja's "[63/135]" and Make's "[ 47%]" are both read.
Warnings are shown in full as they come. It ends with "LABEL: done in 1m31s", or on failure with
the log from its first error on (60 lines; else its last 40) and the log's path, and exits with
the command's status.
"""
import os
import re
import subprocess
import sys
import time

NINJA = re.compile(r"^\[(\d+)/(\d+)\]\s+(.*)")
MAKE = re.compile(r"^\[\s*(\d+)%\]\s+(.*)")
WARNING = re.compile(r"\bwarning\b|CMake Warning")
ERROR = re.compile(r"\berror\b|^FAILED:|CMake Error")
SOURCE = re.compile(r"(\S+\.(?:cpp|cu|c|cc|hxx))(?:\.o)?\b")


def elapsed(seconds):
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"


def what(text, root):
    """A short name for the step: the source file it compiles, else the step's own words."""
    source = SOURCE.search(text)
    if source:
        name = source.group(1)
        if "CMakeFiles/" in name and ".dir/" in name:
            name = name.split(".dir/", 1)[1]
        return name.replace(root, "").lstrip("/")
    return text[:60]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    label, log_path, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    root = os.getcwd()
    tty = sys.stdout.isatty()
    start = last_print = time.monotonic()
    last_tenth = -1
    shown_width = 0
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    except OSError as problem:
        print(f"{label}: cannot run {command[0]}: {problem}", file=sys.stderr)
        return 127
    with open(log_path, "w", encoding="utf-8", errors="replace") as log:
        for line in process.stdout:
            log.write(line)
            log.flush()
            line = line.rstrip("\n")
            percent, counter, step = None, "", None
            match = NINJA.match(line)
            if match:
                done, total = int(match.group(1)), int(match.group(2))
                percent, counter, step = 100 * done // max(total, 1), f" [{done}/{total}]", match.group(3)
            else:
                match = MAKE.match(line)
                if match:
                    percent, step = int(match.group(1)), match.group(2)
            now = time.monotonic()
            if WARNING.search(line) and not match:
                if tty and shown_width:
                    sys.stdout.write("\r" + " " * shown_width + "\r")
                    shown_width = 0
                print(line, flush=True)
                continue
            if percent is None:
                continue
            text = f"{label} {percent:3d}%{counter}  {elapsed(now - start)}  {what(step, root)}"
            if tty:
                columns = 100
                try:
                    columns = os.get_terminal_size().columns
                except OSError:
                    pass
                text = text[: columns - 1]
                sys.stdout.write("\r" + text + " " * max(0, shown_width - len(text)))
                sys.stdout.flush()
                shown_width = len(text)
            elif percent // 10 > last_tenth or now - last_print >= 30:
                last_tenth, last_print = percent // 10, now
                print(text, flush=True)
    status = process.wait()
    if tty and shown_width:
        sys.stdout.write("\r" + " " * shown_width + "\r")
    took = elapsed(time.monotonic() - start)
    if status == 0:
        print(f"{label}: done in {took}", flush=True)
        return 0
    with open(log_path, encoding="utf-8", errors="replace") as log:
        lines = log.readlines()
    # From the first error on (the compiler's first message is the one to read), else the end.
    first = next((i for i, line in enumerate(lines) if ERROR.search(line)), None)
    shown = lines[first:first + 60] if first is not None else lines[-40:]
    print("".join(shown), end="", flush=True)
    print(f"{label}: FAILED after {took} (exit status {status}); the whole output is in {log_path}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
