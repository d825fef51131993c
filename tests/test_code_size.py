"""No function in ``workbench/`` over 80 lines and no file over 800 lines.

One test per file (``tools/long_functions.py`` counts a function from its ``def`` line to its
last line, decorators excluded, nested functions each on their own), so a failure names the
file and its offenders.  No file is exempt.
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION_LINES = 80
MAX_FILE_LINES = 800

_spec = importlib.util.spec_from_file_location("long_functions", ROOT / "tools" / "long_functions.py")
long_functions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(long_functions)

FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "workbench").rglob("*.py"))


def long_functions_in(path: str) -> list[str]:
    """Every function of ``path`` over MAX_FUNCTION_LINES, as ``"line L: name (N lines)"``."""
    return [f"line {line}: {name} ({length} lines)"
            for _, line, name, length in long_functions.long_functions([ROOT / path], MAX_FUNCTION_LINES)]


def file_lines(path: str) -> int:
    return len((ROOT / path).read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("path", FILES)
def test_no_function_over_80_lines(path):
    found = long_functions_in(path)
    assert not found, f"{path}: functions over {MAX_FUNCTION_LINES} lines: {found}"


@pytest.mark.parametrize("path", FILES)
def test_no_file_over_800_lines(path):
    lines = file_lines(path)
    assert lines <= MAX_FILE_LINES, f"{path}: {lines} lines (at most {MAX_FILE_LINES})"


def test_the_counter_counts_def_to_last_line(tmp_path):
    source = tmp_path / "m.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(80))
    source.write_text(f"@decorator\ndef long():\n{body}\n\n\ndef short():\n    return 1\n", encoding="utf-8")
    assert [(name, length) for _, _, name, length in long_functions.long_functions([source], 80)] == [("long", 81)]
    assert list(long_functions.long_functions([source], 81)) == []
