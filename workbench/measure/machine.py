"""The machine a measurement runs on: its facts for the sidecar, and a single-threaded environment.

Shared by every measuring program (the K-means sweep :mod:`workbench.measure.sweep`, the MPI
sweeps :mod:`workbench.measure.comm.sweep`, the multi-phase demo
:mod:`workbench.workloads.phases_demo`), so that their sidecars describe the machine in the
same words and their child processes run BLAS the same way.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["SINGLE_THREAD_ENV", "machine_facts"]

#: Environment that makes BLAS / OpenMP single-threaded (read when numpy is imported), so that
#: the process count of a measured run is the parallelism measured.
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _read_first(path: str, key: str) -> str | None:
    try:
        for line in Path(path).read_text(errors="replace").splitlines():
            if line.split(":")[0].strip() == key:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine_facts() -> dict:
    """Facts about this machine and software for the sidecar JSON of a measurement.

    Returns
    -------
    dict
        ``host``, ``cpu_model``, ``cpus``, ``cpus_usable`` (the affinity mask),
        ``virtual_machine``, ``memory_gb``, ``kernel``, ``os``, ``perf_version``,
        ``perf_event_paranoid``, ``python``, ``numpy``, ``pandas``; ``None`` where unknown.
    """
    try:
        perf = subprocess.run(["perf", "--version"], capture_output=True, text=True, timeout=10)
        perf_version = perf.stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        perf_version = None
    try:
        paranoid = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    except (OSError, ValueError):
        paranoid = None
    flags = _read_first("/proc/cpuinfo", "flags") or ""
    mem_kb = _read_first("/proc/meminfo", "MemTotal")
    return {
        "host": socket.gethostname(),
        "cpu_model": _read_first("/proc/cpuinfo", "model name") or platform.processor() or None,
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "virtual_machine": "hypervisor" in flags.split(),
        "memory_gb": round(int(mem_kb.split()[0]) / 2**20, 1) if mem_kb else None,
        "kernel": platform.release(),
        "os": platform.platform(),
        "perf_version": perf_version,
        "perf_event_paranoid": paranoid,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
    }
