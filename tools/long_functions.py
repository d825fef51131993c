"""List the functions longer than N lines (default 80) under the given directories.

    .venv/bin/python tools/long_functions.py workbench/models [--max-lines 80]

A function's length is counted from its ``def`` line to its last line (``ast``:
``end_lineno - lineno + 1``; decorators not included), nested functions and methods
each on their own.  Prints ``path:line name length`` for every function over the limit and
exits with status 1 if there is any, 0 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def long_functions(paths, max_lines: int = 80):
    """Yield ``(path, line, name, length)`` of every function over ``max_lines`` lines."""
    for root in map(Path, paths):
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in files:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1
                    if length > max_lines:
                        yield path, node.lineno, node.name, length


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="directories (searched for *.py) or files")
    ap.add_argument("--max-lines", "-n", type=int, default=80, help="longest allowed function (default 80)")
    args = ap.parse_args(argv)
    found = sorted(long_functions(args.paths, args.max_lines), key=lambda f: (str(f[0]), f[1]))
    for path, line, name, length in found:
        print(f"{path}:{line} {name} {length}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
