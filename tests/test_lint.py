"""The repository passes ``ruff check`` ([tool.ruff] in pyproject.toml): pycodestyle errors and
warnings, pyflakes, and numpy-style docstrings in the library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff_check(*paths: str | Path) -> subprocess.CompletedProcess:
    """Run ``ruff check`` from the repository root with its configuration."""
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                           *map(str, paths)], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_repository_passes_ruff():
    result = ruff_check(".")
    assert result.returncode == 0, f"ruff check found problems:\n{result.stdout}{result.stderr}"


def test_ruff_reports_a_bad_docstring(tmp_path):
    # the check can fail: a module under workbench/'s rules with a two-line summary and a
    # non-imperative first word is refused (the file lives outside the repository, so
    # point ruff at the repository's configuration explicitly)
    bad = tmp_path / "bad.py"
    bad.write_text('"""A module."""\n\n\ndef f():\n    """Returns one\n    and nothing else."""\n    return 1\n')
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
                             str(ROOT / "pyproject.toml"), "--output-format", "concise", str(bad)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    for code in ("D205", "D401", "D209"):
        assert code in result.stdout, f"{code} not reported:\n{result.stdout}"
