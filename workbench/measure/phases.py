"""Phase timing for Python programs: the per-phase profiles of the fractal model ([EscobarBoppana]).

Escobar & Boppana ([EscobarBoppana] §2.1) time every function of the small runs with TAU and keep
the *exclusive* time per function. :class:`PhaseTimer` does the same for named regions of a
Python program, with :func:`time.perf_counter`::

    timer = PhaseTimer()
    for n in (64, 96, 128):
        for repeat in range(3):
            with timer.run(size=n, run=repeat):      # whole-run wall clock -> total_s
                with timer.phase("setup"):
                    a = make_grid(n)
                solve(a)                              # decorated with @timer.timed("solve")
    profile = timer.frame()                          # the profile frame of workbench.models.fractal

**Exclusive time.** Phases may nest. Like TAU's *exclusive* time, a phase's time excludes
the time of the phases entered inside it: on leaving an inner phase its whole elapsed time is
subtracted from the enclosing phase, so the phase times of a run add up to the time spent
inside phases (never more than the run's wall time) and the shares of
:func:`~workbench.models.fractal.phase_shares` are fractions of the runtime. Entering the same
phase several times in a run adds up its times (one row per phase per run); a recursive phase
is not counted twice.

**Runs.** ``with timer.run(size, run)`` labels the phases timed inside it and measures the
run's wall time (``total_s``); ``run`` defaults to the next repeat index of that size. Phases
timed outside any ``run`` block are kept pending until :meth:`PhaseTimer.frame` is called with
``size=`` (and optionally ``run=``) to label them; such rows have no measured total.

**Clock.** :func:`time.perf_counter` (wall time, TAU's default ``TIME`` metric) unless
``PhaseTimer(clock=...)`` gives another, e.g. :func:`time.thread_time` (the thread's CPU
time, like TAU's ``CPU_TIME``), which leaves out time the scheduler gives to other processes.

Overhead: one ``with timer.phase(...)`` entry and exit costs about 0.75-1 us on this
project's 2-core VM (two clock reads, a list push/pop and a dict update; ``bench/
test_bench_fractal.py``: 7.5 ms per 10 000 entries, best round), negligible against phases
of milliseconds and more. A timer is not thread-safe: use one per thread.
"""

from __future__ import annotations

import functools
from time import perf_counter

import numpy as np
import pandas as pd

from workbench.errors import ValidationError
from workbench.models.fractal import validate_profile

__all__ = ["PhaseTimer"]


class _Phase:
    """Context manager of one named phase (reused for every entry of that name)."""

    __slots__ = ("_timer", "_name")

    def __init__(self, timer: "PhaseTimer", name: str):
        self._timer = timer
        self._name = name

    def __enter__(self):
        timer = self._timer
        # [name, start, time of the phases nested inside]
        timer._stack.append([self._name, timer._clock(), 0.0])
        return self

    def __exit__(self, *exc):
        timer = self._timer
        now = timer._clock()
        stack = timer._stack
        name, start, inner = stack.pop()
        elapsed = now - start
        bucket = timer._bucket
        bucket[name] = bucket.get(name, 0.0) + (elapsed - inner)
        if stack:
            stack[-1][2] += elapsed
        return False


class _Run:
    __slots__ = ("_timer", "_size", "_run", "_start")

    def __init__(self, timer: "PhaseTimer", size: float, run: int):
        self._timer, self._size, self._run = timer, size, run

    def __enter__(self):
        timer = self._timer
        if timer._in_run or timer._stack:
            raise ValidationError("PhaseTimer.run: runs cannot nest and must enclose their phases (a run was opened "
                                  "inside a run or a phase)")
        timer._in_run = True
        timer._bucket = {}
        self._start = timer._clock()
        return self

    def __exit__(self, *exc):
        total = self._timer._clock() - self._start
        timer = self._timer
        timer._in_run = False
        bucket, timer._bucket = timer._bucket, timer._pending
        if timer._stack:  # only possible when an exception left a phase open
            timer._stack.clear()
        if exc[0] is None:
            timer._runs.append((self._size, self._run, total, bucket))
        return False


class PhaseTimer:
    """Exclusive time of named phases per run (see the module docstring).

    ``clock``: a function returning seconds (default :func:`time.perf_counter`; a fake clock
    makes tests exact).

    Parameters
    ----------
    clock : callable, default time.perf_counter
        Returns seconds (a fake clock makes tests exact).
    """

    def __init__(self, clock=perf_counter):
        self._clock = clock
        self._phases: dict[str, _Phase] = {}
        self._stack: list[list] = []
        self._runs: list[tuple[float, int, float, dict[str, float]]] = []
        self._pending: dict[str, float] = {}
        self._bucket = self._pending
        self._in_run = False

    def phase(self, name: str) -> _Phase:
        """Context manager timing the phase ``name`` (exclusive of nested phases).

        Parameters
        ----------
        name : str
            The phase.
        """
        ctx = self._phases.get(name)
        if ctx is None:
            if not isinstance(name, str) or not name.strip():
                raise ValidationError(f"PhaseTimer.phase: the phase name must be a non-empty string, got {name!r}")
            ctx = self._phases[name] = _Phase(self, name)
        return ctx

    def timed(self, name: str | None = None):
        """Return a decorator timing every call of a function as the phase ``name``.

        ``name`` defaults to the function's qualified name.

        Also usable bare, as ``@timer.timed``.

        Parameters
        ----------
        name : str or callable, optional
            The phase; default: the function's qualified name (bare use passes the function).
        """
        if callable(name):
            return self.timed(None)(name)

        def decorate(func):
            ctx = self.phase(name or func.__qualname__)

            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                with ctx:
                    return func(*args, **kwargs)

            return wrapper

        return decorate

    def run(self, size, run: int | None = None) -> _Run:
        """Context manager of one run at input ``size``.

        Labels the phases timed inside and measures the run's wall time (``total_s``).
        ``run`` defaults to the number of runs of that size recorded so far.

        Parameters
        ----------
        size : float
            The run's input size.
        run : int, optional
            Its repeat index; default: the runs of that size recorded so far.
        """
        s = _positive(size, "size")
        if run is None:
            run = sum(1 for r in self._runs if r[0] == s)
        elif isinstance(run, bool) or not isinstance(run, (int, np.integer)) or run < 0:
            raise ValidationError(f"PhaseTimer.run: run must be an integer >= 0, got {run!r}")
        return _Run(self, s, int(run))

    def reset(self) -> None:
        """Forget every recorded run and pending phase time."""
        self._runs.clear()
        self._pending.clear()
        self._stack.clear()
        self._bucket = self._pending

    def frame(self, size=None, run: int | None = None) -> pd.DataFrame:
        """Return the profile frame of the recorded runs.

        Columns ``size, phase, time_s, run[, total_s]``; see
        :mod:`workbench.models.fractal`.

        ``size`` / ``run`` select the runs of that size / repeat index; phases timed outside a
        ``run`` block are labelled with ``size`` (required then) and ``run`` (default 0).
        ``total_s`` is present when every selected run was timed by :meth:`run`.

        Parameters
        ----------
        size : float, optional
            Select the runs of this size; labels phases timed outside a ``run`` block (required then).
        run : int, optional
            Select this repeat index; labels phases timed outside a ``run`` block (default 0).
        """
        if self._stack:
            raise ValidationError(f"PhaseTimer.frame: phase {self._stack[-1][0]!r} is still running")
        runs = [r for r in self._runs if (size is None or r[0] == float(size)) and (run is None or r[1] == run)]
        if self._pending:
            if size is None:
                raise ValidationError(
                    f"PhaseTimer.frame: phases {sorted(self._pending)} were timed outside timer.run(size, run): "
                    "pass frame(size=...) to label them"
                )
            runs = runs + [(_positive(size, "size"), 0 if run is None else int(run), np.nan, self._pending)]
        if not runs:
            raise ValidationError("PhaseTimer.frame: no phase was timed" + ("" if size is None else f" at size {size}"))
        rows = [(s, name, t, r, total) for s, r, total, bucket in runs for name, t in bucket.items()]
        out = pd.DataFrame(rows, columns=["size", "phase", "time_s", "run", "total_s"])
        if out["total_s"].isna().any():
            out = out.drop(columns="total_s")
        out = validate_profile(out, "PhaseTimer.frame")
        out.attrs.update({"clock": getattr(self._clock, "__name__", repr(self._clock)), "time_kind": "exclusive"})
        return out


def _positive(value, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"PhaseTimer: {name} must be a number > 0, got {value!r}") from None
    if not (np.isfinite(v) and v > 0):
        raise ValidationError(f"PhaseTimer: {name} must be finite and > 0, got {value!r}")
    return v
