"""Where the project's files live: in the repository, or shipped inside an installed package.

Kept apart from :mod:`workbench.io.catalogue` so that the measured-table writer
(:mod:`workbench.io.sidecar`, which refuses to write into these folders without ``force``)
and the catalogue (which reads through :mod:`workbench.io.sidecar`) both depend on this
module instead of on each other.

The files a user needs besides the code -- the bundled ``data/``, the dashboards
(``notebooks/``), the server's ``voila.json``, the benchmark tables the dashboards read
(``bench/results/``) and the course page's screenshots (``docs/screenshots/``) -- have one
source, the repository.  A checkout (or an editable install, ``pip install -e .``) reads them
there.  A wheel (``pip install workbench-*.whl``) carries copies made when it is built
(``setup.py``, :data:`SHIPPED` says which) in the package folder ``workbench/_shipped/``, laid
out as in the repository; when that folder exists it is used.
"""

from pathlib import Path

__all__ = [
    "BENCH_RESULTS_DIR",
    "DATA_DIR",
    "MIRROR_ENV",
    "NOTEBOOK_DIR",
    "RESOURCE_ROOT",
    "SCREENSHOT_DIR",
    "SHIPPED",
    "SHIPPED_DIR",
    "VOILA_CONFIG",
]

#: Environment variable naming the mirror directory of the real datasets.
MIRROR_ENV = "WORKBENCH_DATA_MIRROR"

#: What a wheel ships besides the code: glob patterns relative to the repository (read by
#: ``setup.py`` when it builds; ``tests/test_packaging.py`` installs a wheel and checks).
SHIPPED = (
    "voila.json",
    "notebooks/*.ipynb",
    "data/README.md",
    "data/*/*.csv",
    "data/*/*.json",
    "data/*/README.md",
    "bench/results/scaling_curves.csv",
    "bench/results/scaling_leaderboard.csv",
    "docs/screenshots/*.png",
)

#: Copies of :data:`SHIPPED` inside an installed wheel (absent in a checkout).
SHIPPED_DIR = Path(__file__).resolve().parents[1] / "_shipped"
#: Where the files are read: :data:`SHIPPED_DIR` in a wheel, else the repository.
RESOURCE_ROOT = SHIPPED_DIR if SHIPPED_DIR.is_dir() else Path(__file__).resolve().parents[2]
#: The project's bundled data folder (``data/``).
DATA_DIR = RESOURCE_ROOT / "data"
#: The dashboards (``notebooks/``).
NOTEBOOK_DIR = RESOURCE_ROOT / "notebooks"
#: The one configuration of the dashboards' server (``voila.json``).
VOILA_CONFIG = RESOURCE_ROOT / "voila.json"
#: The benchmark tables the dashboards read (``bench/results/``: ``scaling_curves.csv``, ...).
BENCH_RESULTS_DIR = RESOURCE_ROOT / "bench" / "results"
#: The dashboards' screenshots shown on the course page (``docs/screenshots/``).
SCREENSHOT_DIR = RESOURCE_ROOT / "docs" / "screenshots"
