"""Files of a fetched git mirror (a bare repository), read with git and never copied into the tree.

Used by the benchmarks, tools and tests that read upstream test data (Extra-P's, Thicket's).
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def file_names(git: Path, prefix: str) -> list[str]:
    """Return the paths under ``prefix`` at HEAD of the repository ``git``."""
    return subprocess.run(["git", "-C", str(git), "ls-tree", "-r", "--name-only", "HEAD", prefix],
                          capture_output=True, text=True, check=True).stdout.split()


def file_bytes(git: Path, name: str) -> bytes:
    """Return the content of ``name`` at HEAD of the repository ``git``."""
    return subprocess.run(["git", "-C", str(git), "show", f"HEAD:{name}"], capture_output=True, check=True).stdout


def extract(git: Path, prefix: str, out: Path) -> list[str]:
    """Write every file under ``prefix`` at HEAD of ``git`` to the same path under ``out``; return their names."""
    names = file_names(git, prefix)
    for name in names:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file_bytes(git, name))
    return names
