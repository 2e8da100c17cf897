#!/usr/bin/env python3
"""scripts/check_function_length.py can fail: run on small trees in a temporary folder, it exits 1
naming a 61-line function, a stale exception and a file it cannot read, and its scanner measures
what a brace count alone would get wrong (braces in comments, strings, initializers)."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "check_function_length.py")
spec = importlib.util.spec_from_file_location("check_function_length", SCRIPT)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def function(name, length):
    """A function whose body is `length` lines, braces included."""
    body = "".join(f"    x += {k};\n" for k in range(length - 2))
    return f"void {name}(int& x)\n{{\n{body}}}\n"


class Tree:
    """A temporary checkout: files by path, and the check's exit status and output on it."""

    def __init__(self, files):
        self.folder = tempfile.TemporaryDirectory()
        for path, text in files.items():
            full = os.path.join(self.folder.name, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as out:
                out.write(text)

    def run(self):
        done = subprocess.run([sys.executable, SCRIPT, "--root", self.folder.name], capture_output=True, text=True)
        self.folder.cleanup()
        return done.returncode, done.stdout + done.stderr


class MustFail(unittest.TestCase):
    def test_a_61_line_function_fails_and_is_named(self):
        status, output = Tree({"tinyamp/long.cpp": function("too_long", 61)}).run()
        self.assertEqual(status, 1, output)
        self.assertIn("tinyamp/long.cpp:1: too_long is 61 lines long, over 60", output)
        self.assertIn("1 over 60 lines before the exceptions, 1 after", output)

    def test_60_lines_pass(self):
        status, output = Tree({"kernels/ok.cpp": function("just_fits", 60)}).run()
        self.assertEqual(status, 0, output)
        self.assertIn("0 over 60 lines before the exceptions", output)

    def test_an_exception_with_its_reason_passes(self):
        status, output = Tree({"kernels/long.cpp": function("inner_loop", 61),
                               check.EXCEPTIONS: "kernels/long.cpp  inner_loop  the loop nest, read as one\n"}).run()
        self.assertEqual(status, 0, output)
        self.assertIn("1 over 60 lines before the exceptions, 0 after", output)

    def test_an_exception_without_a_reason_fails(self):
        status, output = Tree({"kernels/long.cpp": function("inner_loop", 61),
                               check.EXCEPTIONS: "kernels/long.cpp  inner_loop\n"}).run()
        self.assertEqual(status, 1, output)
        self.assertIn("with its reason", output)

    def test_stale_exceptions_fail(self):
        status, output = Tree({"kernels/short.cpp": function("now_short", 60),
                               check.EXCEPTIONS: "kernels/short.cpp  now_short  was long\nkernels/short.cpp  gone  was long\n"}).run()
        self.assertEqual(status, 1, output)
        self.assertIn("kernels/short.cpp: now_short is 60 lines now, within 60: remove the exception", output)
        self.assertIn("kernels/short.cpp: gone is no function any more: remove the exception", output)

    def test_braces_that_balance_only_per_branch_fail(self):
        status, output = Tree({"tools/branches.cpp": "#if A\nvoid f() {\n#else\nvoid f(int) {\n#endif\n}\n"}).run()
        self.assertEqual(status, 1, output)
        self.assertIn("tools/branches.cpp: line 2: this '{' is never closed", output)

    def test_tests_and_lessons_are_not_read(self):
        status, output = Tree({"tests/long_test.cpp": function("a_long_test", 100),
                               "lessons/01_intro/lesson.cpp": function("a_long_lesson", 100)}).run()
        self.assertEqual(status, 0, output)


class Scanner(unittest.TestCase):
    def functions(self, source):
        """{name: length} of the functions in `source`."""
        found = check.Scanner(check.blank_literals(textwrap.dedent(source))).run()
        return {name: last - first + 1 for name, _, first, last in found}

    def test_braces_in_comments_strings_and_directives_do_not_count(self):
        self.assertEqual(self.functions(r'''
            #define OPEN {
            void f()
            {
                // }
                /* } */
                const char* s = "}\"}";
                const char* raw = R"x(})")x";
                char c = '}', q = '\'';
                int n = 1'000'000;
            }
            void g() {}
            '''), {"f": 8, "g": 1})

    def test_classes_constructors_operators_and_templates(self):
        self.assertEqual(self.functions('''
            namespace a::b {
            template <class T, int N = 3>
            struct Box : Base<T> {
                int x_{0};
                std::function<void(int)> call_{nullptr};
                Box(int x) : Base<T>{x}, x_{x}
                {
                }
                T operator()(T v) const { return v; }
                Box& operator=(const Box&) = default;
                bool operator<(const Box& o) const { return x_ < o.x_; }
            };
            enum class Kind { a, b } kind = Kind::a;
            template <>
            float load<float>(float v) { return v; }
            auto Box<int>::get() -> int
            {
                auto f = [] { return 1; };
                return f();
            }
            }
            '''), {"Box::Box": 2, "Box::operator()": 1, "Box::operator<": 1, "load": 1, "Box::get": 4})


if __name__ == "__main__":
    unittest.main()
