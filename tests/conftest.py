"""Shared pytest fixtures.

``data_mirror``: the directory of real datasets (laid out like the shared reference-data
folder: ``npb-pi-cluster/``, ``osu-orfeo/``, ``extrap-mpi/``, ``seed-tables/``).

Resolution order:

1. the environment variable ``WORKBENCH_DATA_MIRROR`` if it is set;
2. otherwise, for local runs, ``<parent of the repository>/shared/data``
   (``Path(__file__).resolve().parents[2] / "shared" / "data"``) if it exists.

If neither gives an existing directory the tests that need real data are *skipped*,
except on CI (``CI=true``), where they *fail*: CI must provide the mirror.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest

from workbench.io.catalogue import MIRROR_ENV

LOCAL_MIRROR = Path(__file__).resolve().parents[2] / "shared" / "data"
TEST_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_mirror() -> Path:
    """Path of the real-data mirror (see the module docstring); skips or fails without it."""
    value = os.environ.get(MIRROR_ENV)
    if value:
        path = Path(value).expanduser()
        reason = f"{MIRROR_ENV}={value!r} is not an existing directory"
    else:
        path = LOCAL_MIRROR
        reason = f"{MIRROR_ENV} is not set and the local default {LOCAL_MIRROR} does not exist"
    if path.is_dir():
        return path
    if os.environ.get("CI") == "true":
        pytest.fail(f"real-data mirror missing on CI: {reason}")
    pytest.skip(f"real-data mirror not available: {reason}")


@pytest.fixture(scope="session")
def npb_fixtures() -> Path:
    """Folder of the synthetic NPB-OMP / NPB-MZ logs (see tests/data/npb/README.md)."""
    return TEST_DATA / "npb"


@pytest.fixture
def measurement_elsewhere():
    """``with measurement_elsewhere(what, processes=None):`` holds the measurement lock
    (:func:`workbench.measure.exclusive_measurement`) from another thread for the block, as
    another visitor's measurement would."""
    from workbench.measure import exclusive_measurement

    @contextlib.contextmanager
    def hold(what: str, processes: int | None = None):
        holding, release = threading.Event(), threading.Event()

        def other():
            with exclusive_measurement(what, processes=processes):
                holding.set()
                release.wait(30)

        thread = threading.Thread(target=other)
        thread.start()
        try:
            assert holding.wait(30), "the other thread did not get the measurement lock"
            yield
        finally:
            release.set()
            thread.join(30)

    return hold
