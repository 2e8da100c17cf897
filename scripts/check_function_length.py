#!/usr/bin/env python3
"""Fails on a C++ function longer than 60 lines that scripts/function_length_exceptions.txt
does not name, and on an exception there that names no long function any more.

    scripts/check_function_length.py              check the checkout
    scripts/check_function_length.py --root DIR   check another tree (DIR/scripts/function_length_
                                                  exceptions.txt is its list, if it has one)

The folders read are FOLDERS below (not tests/, fuzz/, lessons/NN_*, build folders, third-party
code). A function's length is its body's: the lines from its opening brace to its closing brace,
both counted, blank lines and comments included. Each function over the limit is printed, the
excepted ones marked, then how many there are before and after the exceptions.

How it reads C++: a brace-matching scanner, not a parser. Comments, string literals (raw ones
too), character literals and preprocessor lines are blanked first; then, at namespace and class
scope, a `{` after a declaration with a parameter list (`name(...)`) opens a function body,
whose braces are matched to its end. Its limits:
  - A lambda, a local class or a nested function-like block counts towards the function that
    holds it. A lambda that is itself a namespace-scope or member variable (`auto f = [] {...}`)
    is not measured, nor is anything inside a `#define`.
  - Both branches of an #if are read: braces that only balance per branch are reported as an
    error (exit 1), never skipped quietly.
  - A macro call without a semicolon before a function, or a function whose name is made by a
    macro, is reported under the name the scanner sees.
  - Names are qualified by their class (`GraphView::draw`) but not by namespace; overloads share
    a name, so one exception covers every overload of that name in that file.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 60
FOLDERS = ("tinyamp", "kernels", "visualizer", "tools", "lessons/support", "bench", "examples")
LEFT_OUT = {"tests", "fuzz", "third_party", "shared", ".git", "__pycache__"}
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".inl")
EXCEPTIONS = os.path.join("scripts", "function_length_exceptions.txt")

TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|->|==|!=|<=|>=|\.\.\.|\S")
# Words that can stand before a parenthesis in a declaration without naming the function.
NOT_A_NAME = {"alignas", "alignof", "decltype", "noexcept", "sizeof", "static_assert", "requires",
              "__attribute__", "__declspec", "__launch_bounds__", "explicit", "throw", "catch", "if",
              "while", "for", "switch", "return"}
CLASS_KEYS = {"class", "struct", "union", "enum"}
ACCESS = {"public", "private", "protected"}


class ScanError(Exception):
    pass


def blank_literals(text):
    """`text` with comments, string and character literals and preprocessor lines made spaces
    (newlines kept, so line numbers stay); a string keeps its two quotes."""
    out = list(text)
    i, line_start = 0, True  # line_start: only whitespace since the last newline
    while i < len(text):
        c = text[i]
        if c.isspace():
            line_start = line_start or c == "\n"
            i += 1
            continue
        word = re.search(r"[\w']*$", text[max(0, i - 64):i]).group(0)  # what c is glued to
        if line_start and c == "#":  # a directive, with its continuation lines
            end = re.compile(r"(?<!\\)\n|$").search(text, i).start()
        elif text.startswith("//", i):
            end = re.compile(r"\n|$").search(text, i).start()
        elif text.startswith("/*", i):
            end = closing(text, "*/", i + 2, "a /* comment")
        elif c == '"' and word in ("R", "u8R", "uR", "UR", "LR"):  # R"delimiter( ... )delimiter"
            open_paren = text.find("(", i)
            end = closing(text, ")" + text[i + 1:open_paren] + '"', open_paren, "a raw string")
        elif c in "\"'" and not (c == "'" and word[:1].isdigit()):  # not a digit separator: 1'000
            end = literal_end(text, i, c)
        else:
            line_start = False
            i += 1
            continue
        quoted = c == '"'
        for k in range(i + quoted, end - quoted):
            if out[k] != "\n":
                out[k] = " "
        line_start, i = False, end
    return "".join(out)


def closing(text, terminator, start, what):
    """The index just past `terminator`, searched from `start`."""
    end = text.find(terminator, start)
    if end < 0:
        raise ScanError(f"{what} is not closed")
    return end + len(terminator)


def literal_end(text, start, quote):
    """The index just past the literal that opens with `quote` at `start`."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        if text[i] == "\n":
            raise ScanError(f"a {quote} literal runs past its line")
        i += 1
    raise ScanError(f"a {quote} literal is not closed")


class Scanner:
    """Walks the tokens of one blanked file and records (name, line of the name, line of `{`,
    line of `}`) for each function body at namespace or class scope."""

    def __init__(self, text):
        self.tokens = []
        line, last = 1, 0
        for match in TOKEN.finditer(text):
            line += text.count("\n", last, match.start())
            last = match.start()
            self.tokens.append((match.group(0), line))
        self.functions = []

    def run(self):
        end = self.scope(0, [])
        if end != len(self.tokens):
            raise ScanError(f"line {self.tokens[end][1]}: a '}}' closes nothing")
        return self.functions

    def matching_brace(self, i):
        """The index of the `}` that closes the `{` at index `i`."""
        depth = 0
        for j in range(i, len(self.tokens)):
            depth += {"{": 1, "}": -1}.get(self.tokens[j][0], 0)
            if depth == 0:
                return j
        raise ScanError(f"line {self.tokens[i][1]}: this '{{' is never closed")

    def scope(self, i, classes, opened_at=None):
        """Reads declarations from index `i` until the `}` that ends this scope (its index) or the
        end of the file; `classes` are the names of the enclosing classes; `opened_at` is the line
        of the scope's `{` (None for the file)."""
        declaration, parens = [], 0
        while i < len(self.tokens):
            token = self.tokens[i][0]
            if token in "([":
                parens += 1
            elif token in ")]":
                parens -= 1
            elif token == ";" and parens == 0:
                declaration = []
                i += 1
                continue
            elif token == ":" and parens == 0 and [t for t, _ in declaration] in ([a] for a in ACCESS):
                declaration = []
                i += 1
                continue
            elif token == "}":
                if parens:
                    raise ScanError(f"line {self.tokens[i][1]}: a '}}' inside parentheses")
                return i
            elif token == "{":
                i = self.brace(i, declaration, classes, parens)
                continue
            declaration.append(self.tokens[i])
            i += 1
        if opened_at is not None:
            raise ScanError(f"line {opened_at}: this '{{' is never closed")
        return i

    def brace(self, i, declaration, classes, parens):
        """Handles the `{` at index `i` after `declaration`; returns the index to go on from."""
        words = [t for t, _ in declaration]
        head = strip_templates(words)
        if parens == 0 and (head[:1] == ["namespace"] or head[:2] == ["inline", "namespace"] or head == ["extern", '"', '"']):
            end = self.scope(i + 1, classes, self.tokens[i][1])
            declaration.clear()
            return end + 1
        kind = "other" if parens else classify(head)
        if kind == "class":
            name = class_name(head)
            end = self.scope(i + 1, classes + [name] if name else classes, self.tokens[i][1])
            declaration.append(("{}", self.tokens[i][1]))
            return end + 1
        end = self.matching_brace(i)
        previous = words[-1] if words else ""
        in_init_list = kind == "function" and ":" in head[parameter_list(head)[1]:]
        if kind == "function" and not (in_init_list and (re.match(r"\w", previous) or previous == ">")):
            name, at = function_name(head)
            name_line = declaration[len(words) - len(head) + at][1]
            self.functions.append(("::".join(classes + [name]), name_line, self.tokens[i][1], self.tokens[end][1]))
            declaration.clear()
            return end + 1
        # An initializer's braces, or an enum's: what follows them must say so, or the scanner has
        # misread a declaration and would miss functions after it.
        after = self.tokens[end + 1][0] if end + 1 < len(self.tokens) else ";"
        starts_declaration = re.match(r"[A-Za-z_~{]", after) and after not in ("const", "noexcept")
        if starts_declaration and not (parens or in_init_list or previous == "requires" or "enum" in head):
            raise ScanError(f"line {self.tokens[i][1]}: cannot tell what this '{{' opens")
        declaration.append(("{}", self.tokens[i][1]))
        return end + 1


def strip_templates(words):
    """`words` without leading `template <...>` and attribute `[[...]]` groups."""
    while True:
        if words[:2] == ["template", "<"]:
            depth, k = 0, 1
            for k in range(1, len(words)):
                depth += {"<": 1, ">": -1, "(": 100, ")": -100}.get(words[k], 0)
                if depth == 0:
                    break
            words = words[k + 1:]
        elif words[:2] == ["[", "["]:
            k = words.index("]") if "]" in words else len(words) - 1
            words = words[k + 2:]
        else:
            return words


def parameter_list(head):
    """(index of the `(` that opens the function's parameters, index past its `)`), or None: the
    first `(` outside parentheses and template arguments that follows a name (`f(`, `f<T>(`)."""
    parens, angles = 0, 0
    for k, word in enumerate(head):
        if word == "operator" and parens == 0 and angles == 0:
            k += 1
            if head[k:k + 2] == ["(", ")"]:
                k += 2
            while k < len(head) and head[k] != "(":
                k += 1
            return k, close_of(head, k)
        if word == "(" and parens == 0 and angles == 0 and name_start(head, k) is not None:
            return k, close_of(head, k)
        if word in "([":
            parens += 1
        elif word in ")]":
            parens -= 1
        elif word == "<" and parens == 0:
            angles += 1
        elif word == ">" and parens == 0 and angles:
            angles -= 1
    return None


def name_start(head, k):
    """The index of the name that the `(` at `k` follows (before its template arguments, if it
    has some), or None when no name does."""
    k -= 1
    if k >= 0 and head[k] == ">":
        depth = 0
        while k >= 0:
            depth += {">": 1, "<": -1}.get(head[k], 0)
            if depth == 0:
                break
            k -= 1
        k -= 1
    if k >= 0 and re.match(r"[A-Za-z_]\w*$", head[k]) and head[k] not in NOT_A_NAME:
        return k
    return None


def close_of(head, k):
    depth = 0
    for j in range(k, len(head)):
        depth += {"(": 1, ")": -1}.get(head[j], 0)
        if depth == 0:
            return j + 1
    return len(head)


def classify(head):
    """'class' (a class, struct or union body), 'function' (a body or a constructor's brace
    initializer), or 'other' (an enum, an initializer)."""
    params = parameter_list(head)
    before = head[:params[0]] if params else head
    if "operator" in before:
        before = before[:before.index("operator")]
    keys = [w for w in before if w in CLASS_KEYS]
    if keys:
        return "other" if keys[0] == "enum" else "class"
    if not params or "=" in before:
        return "other"
    return "function"


def class_name(head):
    """The class's name: the word before its base list or its brace (None for an unnamed one)."""
    depth = 0
    name = None
    for k, word in enumerate(head):
        depth += {"(": 1, ")": -1, "<": 1, ">": -1}.get(word, 0)
        if word == ":" and depth == 0:
            break
        if depth == 0 and re.match(r"[A-Za-z_]\w*$", word) and word not in CLASS_KEYS and word not in ("final", "alignas"):
            name = word
    return name


def function_name(head):
    """(the qualified name before the parameter list: `f`, `Foo::~Foo`, `operator()`, the index
    of its last part in `head`)."""
    start, _ = parameter_list(head)
    if "operator" in head[:start]:
        k = head.index("operator")
        parts = ["".join(head[k:start])]
    else:
        k = name_start(head, start)
        parts = [head[k]]
    at = k
    while k > 0:
        k -= 1
        if head[k] == "~":
            parts[-1] = "~" + parts[-1]
        elif head[k] == "::" and k > 0:
            k -= 1
            if head[k] == ">":  # Foo<T>::bar: drop the template arguments
                k = name_start(head, k + 1)
                if k is None:
                    break
            parts.append(head[k])
        else:
            break
    return "::".join(reversed(parts)), at


def functions_in(path):
    """[(name, line of the name, line of `{`, line of `}`)] for the file at `path`."""
    with open(path, encoding="utf-8", errors="replace") as source:
        return Scanner(blank_literals(source.read())).run()


def source_files(root):
    for top in FOLDERS:
        for folder, subfolders, files in os.walk(os.path.join(root, top)):
            subfolders[:] = sorted(d for d in subfolders if d not in LEFT_OUT and not d.startswith("build"))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def read_exceptions(path):
    """{(file, function name): (line in the list, reason)}; a line is `FILE FUNCTION REASON...`."""
    exceptions = {}
    if not os.path.exists(path):
        return exceptions
    with open(path, encoding="utf-8") as table:
        for number, line in enumerate(table, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split(None, 2)
            if len(fields) < 3:
                raise ScanError(f"{path}:{number}: an exception is `FILE FUNCTION REASON`, with its reason")
            exceptions[(fields[0], fields[1])] = (number, fields[2])
    return exceptions


def measure(root):
    """([(file, line, name, length)] of every function, [scanner errors])."""
    functions, errors = [], []
    for path in source_files(root):
        try:
            for name, line, first, last in functions_in(os.path.join(root, path)):
                functions.append((path, line, name, last - first + 1))
        except ScanError as error:
            errors.append(f"{path}: {error}")
    return functions, errors


def stale_exceptions(exceptions, functions):
    """The exceptions that name no function, or only functions within the limit."""
    longest = {}
    for path, _, name, length in functions:
        longest[(path, name)] = max(longest.get((path, name), 0), length)
    problems = []
    for (path, name), (number, _) in sorted(exceptions.items(), key=lambda item: item[1][0]):
        where = f"{EXCEPTIONS}:{number}: {path}: {name}"
        if (path, name) not in longest:
            problems.append(f"{where} is no function any more: remove the exception")
        elif longest[(path, name)] <= LIMIT:
            problems.append(f"{where} is {longest[(path, name)]} lines now, within {LIMIT}: remove the exception")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=ROOT, help="the tree to check (default: this checkout)")
    root = os.path.abspath(parser.parse_args().root)
    try:
        exceptions = read_exceptions(os.path.join(root, EXCEPTIONS))
    except ScanError as error:
        print(f"check_function_length: {error}")
        return 1
    functions, problems = measure(root)
    long_ones = sorted((f for f in functions if f[3] > LIMIT), key=lambda f: -f[3])
    for path, line, name, length in long_ones:
        excepted = (path, name) in exceptions
        print(f"  {length:4d} lines  {path}:{line}  {name}{'  (exception)' if excepted else ''}")
        if not excepted:
            problems.append(f"{path}:{line}: {name} is {length} lines long, over {LIMIT}: split it into named steps, "
                            f"or add it to {EXCEPTIONS} with the reason")
    problems += stale_exceptions(exceptions, functions)
    for problem in problems:
        print(f"check_function_length: {problem}")
    after = sum(1 for path, _, name, _ in long_ones if (path, name) not in exceptions)
    print(f"check_function_length: {len(functions)} functions, {len(long_ones)} over {LIMIT} lines before the "
          f"exceptions, {after} after; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
