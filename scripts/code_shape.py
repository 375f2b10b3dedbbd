#!/usr/bin/env python3
"""Reports C++ files and functions longer than the project's limits (CONTRIBUTING: files under
~700 lines, functions under ~150).

    scripts/code_shape.py [--max-file 700] [--max-function 150] [--check] [PATH ...]

A function is a brace block opened at namespace, class or file scope whose header (the text
since the previous ';', '{' or '}') is not a namespace, class, struct, union, enum, extern block
or an initializer (`= {`). Lambdas and local classes count toward the function that holds
them. Comments, string and character literals are blanked first, so braces in them do not count.
With --check the exit status is 1 when anything is over its limit.
"""
import argparse
import pathlib
import re
import sys

CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$|extern\s+\"C\"\s*$|=\s*$")


def blank_literals(text):
    """The text with comments and literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # digit separators (1'000) are not character literals
            if c == "'" and i > 0 and text[i - 1].isalnum() and j - i > 3:
                out.append(c)
                i += 1
                continue
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, line count) of each function body in the file."""
    code = blank_literals(text)
    stack = []  # per open brace: ('container'|'function'|'inner', start line, name)
    header_start = 0
    found = []
    for i, c in enumerate(code):
        if c in ";{}":
            if c == "{":
                header = code[header_start:i]
                inside_function = any(kind != "container" for kind, _, _ in stack)
                if inside_function:
                    stack.append(("inner", 0, ""))
                elif CONTAINER.search(header.strip()) or not header.strip():
                    stack.append(("container", 0, ""))
                else:
                    stripped = header.strip()
                    name = re.findall(r"([~\w:]+(?:operator\S*)?)\s*\(", stripped)
                    start = code.count("\n", 0, header_start + len(header) - len(header.lstrip())) + 1
                    stack.append(("function", start, name[0] if name else stripped[:40]))
            elif c == "}" and stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    found.append((name, start, code.count("\n", 0, i) + 2 - start))
            header_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["src", "python/src", "bench", "tests", "examples"])
    ap.add_argument("--max-file", type=int, default=700)
    ap.add_argument("--max-function", type=int, default=150)
    ap.add_argument("--check", action="store_true", help="exit 1 when anything is over its limit")
    args = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    files = []
    for p in args.paths:
        path = (root / p) if not pathlib.Path(p).is_absolute() else pathlib.Path(p)
        files += [path] if path.is_file() else sorted(path.rglob("*.[ch]*"))
    over = 0
    for f in files:
        if f.suffix not in (".h", ".cc", ".cpp", ".hpp", ".c"):
            continue
        text = f.read_text(errors="replace")
        lines = text.count("\n")
        rel = f.relative_to(root) if f.is_relative_to(root) else f
        if lines > args.max_file:
            print(f"{rel}: {lines} lines (file limit {args.max_file})")
            over += 1
        for name, start, count in functions(text):
            if count > args.max_function:
                print(f"{rel}:{start}: {name} is {count} lines (function limit {args.max_function})")
                over += 1
    if args.check and over:
        sys.exit(1)


if __name__ == "__main__":
    main()
