"""Every notebook in notebooks/ runs top to bottom without an error output.

Parametrised over the glob, so a new notebook is covered without touching this file.
Executed with nbclient, in notebooks/ as working directory, in a kernel of the running
interpreter (the project venv).  Saved notebooks must carry no outputs: they are
committed clean and rendered fresh by Voila.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from jupyter_client import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from workbench.ui.serving.kernels import kernel_transport

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT_S = 300

pytestmark = pytest.mark.notebook


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_saved_without_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: code cells {dirty} have saved outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path, tmp_path: Path):
    nb = nbformat.read(path, as_version=4)
    # over Unix sockets where they fit, as the server's kernels (kernel_transport): a TCP kernel's ports
    # are found free and bound later, and any outgoing connection on the machine can take one in between
    km = KernelManager(kernel_name="python3", connection_file=str(tmp_path / "kernel.json"),
                       transport=kernel_transport(str(tmp_path)))
    client = NotebookClient(
        nb,
        km=km,
        timeout=CELL_TIMEOUT_S,
        # jupyter_client starts the native "python3" kernel with sys.executable: the venv
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    try:
        client.execute()
    except CellTimeoutError as exc:
        pytest.fail(f"{path.name}: a cell ran longer than {CELL_TIMEOUT_S} s: {exc}")
    except CellExecutionError as exc:
        pytest.fail(f"{path.name} raised:\n{exc}")
    errors = [
        (i, out.get("ename"), out.get("evalue"))
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors, f"{path.name}: error outputs {errors}"
    # every dashboard displays at least one widget
    assert any(
        "application/vnd.jupyter.widget-view+json" in out.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
    ), f"{path.name}: displays no widget"
