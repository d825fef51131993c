"""The package's layer contracts (``[tool.importlinter]`` in pyproject.toml), checked with
import-linter: a module that imports from a floor above its own fails here."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    done = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 kept" in done.stdout, done.stdout[-2000:]
