"""Where the project's data live: the bundled ``data/`` folder and the mirror of real datasets.

Kept apart from :mod:`workbench.io.catalogue` so that the measured-table writer
(:mod:`workbench.io.sidecar`, which refuses to write into these folders without ``force``)
and the catalogue (which reads through :mod:`workbench.io.sidecar`) both depend on this
module instead of on each other.
"""

from pathlib import Path

__all__ = ["DATA_DIR", "MIRROR_ENV"]

#: Environment variable naming the mirror directory of the real datasets.
MIRROR_ENV = "WORKBENCH_DATA_MIRROR"
#: The project's bundled data folder, next to the ``workbench`` package in the repository
#: (the project is installed in editable/development mode, ``pip install -e .``).
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
