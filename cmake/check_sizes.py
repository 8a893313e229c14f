#!/usr/bin/env python3
"""Fails when a product source file is over 500 lines or a function over 80.

docs/ARCHITECTURE.md, "Sizes": a file holds one responsibility and a
function fits on a screen. Product code is everything under core/, filter/,
hooks/, install/ and cli/ (tests, benchmarks and fuzz targets are not).

A function is measured from the first line of its signature to its closing
brace, lambdas and all. The scan strips comments, strings and character
literals (raw strings too), then follows braces: a block opened outside any
function, after a header holding a parenthesis and not naming a namespace,
class, struct, union or enum, is a function body.

Usage: check_sizes.py ROOT [--list]   (--list prints every measure, largest first)
"""
import pathlib
import re
import sys

ROOMS = ("core", "filter", "hooks", "install", "cli")
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
CONTAINER = re.compile(r"^\s*(template\s*<.*>\s*)?(namespace|class|struct|union|enum|extern\s+\"C\")\b", re.S)


def strip(text):
    """The text with comments and literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k]
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(c)
                i += 1
                continue
            out.append(c + c + "\n" * text.count("\n", i, j))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(first line, last line, name) of every function body outside another."""
    code = re.sub(r"(?m)^[ \t]*#.*$", "", strip(text))  # preprocessor lines
    found = []
    stack = []  # "container", "function" or "other" per open brace
    header_start = 0  # where the text before the next brace began
    fn_start_line = fn_name = None
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c in ";":
            if "function" not in stack:
                header_start = i + 1
        elif c == "{":
            in_function = "function" in stack
            header = code[header_start:i]
            if in_function:
                stack.append("other")
            elif CONTAINER.match(header) or "(" not in header or re.search(r"=\s*$", header):
                stack.append("container" if CONTAINER.match(header) else "other")
            else:
                stack.append("function")
                lead = len(header) - len(header.lstrip())
                fn_start_line = line - header.count("\n") + header[:lead].count("\n")
                m = re.search(r"([~\w:<>]+)\s*\(", header)
                fn_name = m.group(1) if m else "?"
            if "function" not in stack[:-1]:
                header_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "other"
            if kind == "function" and "function" not in stack:
                found.append((fn_start_line, line, fn_name))
            if "function" not in stack:
                header_start = i + 1
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    listing = "--list" in sys.argv
    problems, measures = [], []
    for room in ROOMS:
        for path in sorted((root / room).rglob("*")):
            if path.suffix not in (".cpp", ".hpp") or not path.is_file():
                continue
            rel = path.relative_to(root)
            text = path.read_text(encoding="utf-8")
            lines = text.count("\n")
            measures.append((lines, f"{rel}: {lines} lines"))
            if lines > MAX_FILE_LINES:
                problems.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES}: split it by responsibility)")
            for first, last, name in functions(text):
                length = last - first + 1
                measures.append((length, f"{rel}:{first}: {name}: {length} lines"))
                if length > MAX_FUNCTION_LINES:
                    problems.append(f"{rel}:{first}: {name} is {length} lines (at most {MAX_FUNCTION_LINES})")
    if listing:
        for _, what in sorted(measures, reverse=True):
            print(what)
        return 0
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} over the sizes of docs/ARCHITECTURE.md, \"Sizes\"")
        return 1
    print("every product file and function is within its size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
