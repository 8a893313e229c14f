#!/usr/bin/env python3
"""The size checker (cmake/check_sizes.py) finds what it is there to find.

Each case writes a small tree of product sources into a temporary folder
and runs the checker on it: a file or function over the limit must fail it
and be named, one at the limit must pass, and what is not a function body
(a namespace, a class, an initializer, a lambda inside a function, a brace in
a comment, string or raw string) must not be taken for one.
"""
import pathlib
import subprocess
import sys
import tempfile

CHECKER = pathlib.Path(__file__).resolve().parent.parent / "cmake" / "check_sizes.py"


def run(files):
    with tempfile.TemporaryDirectory() as d:
        for rel, text in files.items():
            p = pathlib.Path(d) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        r = subprocess.run([sys.executable, str(CHECKER), d], capture_output=True, text=True)
        return r.returncode, r.stdout


def function(name, body_lines, indent=""):
    body = "".join(f"{indent}  x += {i};\n" for i in range(body_lines))
    return f"{indent}int {name}(int x) {{\n{body}{indent}  return x;\n{indent}}}\n"


failures = []


def expect(what, files, code, *names):
    got, out = run(files)
    if got != code or any(n not in out for n in names):
        failures.append(f"{what}: exit {got}, wanted {code} naming {names}; it printed:\n{out}")


# 80 lines: signature, 77 statements, return, brace.
expect("a function of 80 lines", {"core/a/x.cpp": "namespace n {\n" + function("fits", 77) + "}\n"}, 0)
expect("a function of 81 lines", {"core/a/x.cpp": "namespace n {\n" + function("too_long", 78) + "}\n"},
       1, "core/a/x.cpp:2: too_long is 81 lines")
expect("a member defined in a class", {"hooks/x.hpp": "struct S {\n" + function("member", 90, "  ") + "};\n"},
       1, "member is 93 lines")
expect("a file of 501 lines", {"cli/x.cpp": "int v = 0;\n" * 501}, 1, "cli/x.cpp: 501 lines")
expect("a file of 500 lines", {"cli/x.cpp": "int v = 0;\n" * 500}, 0)
expect("tests are not product code", {"tests/x.cpp": "int v = 0;\n" * 900}, 0)
lambdas = ("void outer() {\n  auto f = [](int a) {\n" + "    a += 1;\n" * 50 + "    return a;\n  };\n"
           + "  auto g = [](int a) {\n" + "    a += 1;\n" * 50 + "    return a;\n  };\n}\n")
expect("lambdas count in the function holding them", {"filter/x.cpp": lambdas}, 1, "outer is 108 lines")
table = "const int table[] = {\n" + "  1,\n" * 120 + "};\n"
expect("an initializer is no function", {"install/x.cpp": table}, 0)
tricky = ('void a() {\n  const char* s = "}}}";\n  char c = \'}\';\n  // }\n  /* } */\n'
          '  const char* r = R"(})";\n}\n' + function("b", 90))
expect("braces in literals and comments", {"core/a/y.cpp": tricky}, 1, "core/a/y.cpp:8: b is 93 lines")
expect("a preprocessor line with a parenthesis", {"core/a/z.cpp": "#if defined(X)\n#endif\nnamespace n {\n"
       + function("fine", 10) + "}\n"}, 0)

for f in failures:
    print(f)
print(f"{10 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
