"""PhaseTimer (exclusive phase times), the multi-phase demo workload and its shipped data."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from workbench.errors import ParseWarning, ValidationError
from workbench.io import fetch_dataset
from workbench.measure.phases import PhaseTimer
from workbench.metrics import error_pct
from workbench.models.fractal import FractalExtrapolator, fit_phase, phase_shares
from workbench.workloads.phases_demo import PHASES, measure_phases_demo, read_fractal_demo, run_phases


@pytest.fixture(autouse=True)
def private_measure_dirs(tmp_path_factory, monkeypatch):
    """This test's own measurement lock and default output directory (inherited by the CLIs it
    starts), so that other test sessions and real sweeps on the machine do not interfere."""
    base = tmp_path_factory.mktemp("measure-env")
    monkeypatch.setenv("WORKBENCH_RUNTIME_DIR", str(base / "run"))
    monkeypatch.setenv("WORKBENCH_MEASURE_DIR", str(base / "measured"))
    return base


class FakeClock:
    """A clock that advances only when told to: exact timer tests."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


# ----------------------------------------------------------------------------- PhaseTimer


def test_nested_phases_count_exclusive_time():
    clock = FakeClock()
    timer = PhaseTimer(clock=clock)

    @timer.timed("solve")
    def solve():
        clock.advance(3.0)

    with timer.run(size=10):
        clock.advance(0.5)  # outside any phase: only in total_s
        with timer.phase("outer"):
            clock.advance(1.0)
            with timer.phase("inner"):
                clock.advance(2.0)
                solve()  # nested two deep: its 3 s leave inner and outer
            clock.advance(1.0)
        with timer.phase("inner"):  # a second entry adds up
            clock.advance(0.25)
    frame = timer.frame().set_index("phase")
    assert frame["time_s"].to_dict() == {"outer": 2.0, "inner": 2.25, "solve": 3.0}
    assert (frame["total_s"] == 7.75).all() and (frame["size"] == 10).all() and (frame["run"] == 0).all()
    assert frame.attrs["time_unit"] == "s" and frame.attrs["time_kind"] == "exclusive"


def test_runs_number_repeats_and_frame_selects():
    clock = FakeClock()
    timer = PhaseTimer(clock=clock)
    for size in (8, 8, 16):
        with timer.run(size):
            with timer.phase("work"):
                clock.advance(size / 8)
    frame = timer.frame()
    assert frame[["size", "run", "time_s", "total_s"]].values.tolist() == [[8, 0, 1, 1], [8, 1, 1, 1], [16, 0, 2, 2]]
    assert timer.frame(size=16)["time_s"].tolist() == [2.0]
    assert timer.frame(size=8, run=1)["run"].tolist() == [1]
    with pytest.raises(ValidationError, match="no phase was timed at size 32"):
        timer.frame(size=32)
    timer.reset()
    with pytest.raises(ValidationError, match="no phase was timed"):
        timer.frame()


def test_phases_outside_a_run_are_labelled_by_frame():
    clock = FakeClock()
    timer = PhaseTimer(clock=clock)
    with timer.phase("sort"):
        clock.advance(0.5)

    @timer.timed  # bare decorator: named after the function
    def merge():
        clock.advance(0.25)

    merge()
    with pytest.raises(ValidationError, match=r"phases \['sort', '.*merge'\] were timed outside timer.run"):
        timer.frame()
    frame = timer.frame(size=100, run=2)
    assert frame[["size", "time_s", "run"]].values.tolist() == [[100, 0.5, 2], [100, 0.25, 2]]
    assert frame["phase"].tolist() == ["sort", "test_phases_outside_a_run_are_labelled_by_frame.<locals>.merge"]
    assert "total_s" not in frame.columns


def test_timer_errors():
    timer = PhaseTimer()
    with pytest.raises(ValidationError, match="size must be finite and > 0, got 0"):
        timer.run(0)
    with pytest.raises(ValidationError, match="run must be an integer >= 0, got -1"):
        timer.run(4, -1)
    with pytest.raises(ValidationError, match="the phase name must be a non-empty string"):
        timer.phase("")
    with timer.run(4):
        with pytest.raises(ValidationError, match="runs cannot nest"):
            with timer.run(8):
                pass
    with timer.phase("open"):
        with pytest.raises(ValidationError, match="phase 'open' is still running"):
            timer.frame(size=1)
    # an exception inside a run discards that run but leaves the timer usable
    with pytest.raises(RuntimeError):
        with timer.run(16):
            with timer.phase("x"):
                raise RuntimeError("boom")
    assert set(timer.frame(size=1)["phase"]) == {"open"}


# ----------------------------------------------------------------------------- workload


def test_workload_runs_for_real_and_yields_the_profile_frame():
    frame = measure_phases_demo([8, 16, 24], 32, repeats=2)
    assert frame.columns.tolist() == ["size", "phase", "time_s", "run", "total_s"]
    assert len(frame) == 4 * 4 * 2 and set(frame["phase"]) == set(PHASES)
    assert sorted(set(frame["size"])) == [8, 16, 24, 32] and set(frame["run"]) == {0, 1}
    assert frame.attrs["target_size"] == 32 and frame.attrs["small_sizes"] == [8, 16, 24]
    assert frame.attrs["blas"] and frame.attrs["clock"].startswith("cpu")
    assert len(frame.attrs["wall_s"]) == 8
    # exclusive phase times never exceed the run's total
    sums = frame.groupby(["size", "run"]).agg(phases=("time_s", "sum"), total=("total_s", "first"))
    assert (sums["phases"] <= sums["total"] + 1e-9).all()
    wall = measure_phases_demo([8], 16, repeats=1, clock="wall")
    assert wall.attrs["clock"] == "wall (perf_counter)"
    with pytest.raises(ValidationError, match="clock must be one of"):
        measure_phases_demo([8], 16, clock="sundial")
    with pytest.raises(ValidationError, match="sizes must be integers >= 3"):
        measure_phases_demo([2.5], 16)


def test_run_phases_computes_the_kernels():
    # the Jacobi sweeps of a uniform source keep the grid finite, and the solve is real
    value = run_phases(20, PhaseTimer())
    assert np.isfinite(value)


def test_cli_writes_csv_and_sidecar(tmp_path):
    out = tmp_path / "demo.csv"
    done = subprocess.run(
        [sys.executable, "-m", "workbench.workloads.phases_demo", "--sizes", "8", "12", "--target", "16",
         "--repeats", "1", "--out", str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    frame = read_fractal_demo(out)
    assert sorted(set(frame["size"])) == [8, 12, 16] and frame.attrs["target_size"] == 16
    assert "phases_demo --sizes 8 12 --target 16" in frame.attrs["command"]
    assert frame.attrs["machine"]["cpus"] >= 1 and frame.attrs["date"]
    out.with_suffix(".json").unlink()
    with pytest.warns(ParseWarning, match="no metadata file demo.json"):
        read_fractal_demo(out)
    bad = subprocess.run(
        [sys.executable, "-m", "workbench.workloads.phases_demo", "--sizes", "1", "--target", "16", "--out", str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2 and "sizes must be integers >= 3" in bad.stderr


def test_cli_default_output_and_force(private_measure_dirs):
    cli = [sys.executable, "-m", "workbench.workloads.phases_demo", "--sizes", "8", "--target", "12", "--repeats", "1"]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = private_measure_dirs / "measured" / "fractal_demo.csv"
    assert done.stdout.strip() == str(out) and read_fractal_demo(out).attrs["csv"]["rows"] == 8
    again = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "already exist" in again.stderr and "--force" in again.stderr
    assert "round 0" not in again.stderr  # refused before measuring
    forced = subprocess.run([*cli, "--force"], capture_output=True, text=True, timeout=60)
    assert forced.returncode == 0, forced.stderr
    assert read_fractal_demo(out).attrs["command"].endswith("--force")


# ----------------------------------------------------------------------------- shipped data


@pytest.fixture(scope="module")
def demo():
    return fetch_dataset("fractal-demo-local").frame


def test_shipped_demo_data_loads(demo):
    target = demo.attrs["target_size"]
    assert set(demo["phase"]) == set(PHASES) and demo.attrs["repeats"] == 3
    assert sorted(set(demo["size"])) == [*demo.attrs["small_sizes"], target]
    assert demo.groupby("size")["run"].nunique().eq(3).all()
    assert demo.attrs["machine"]["cpu_model"] and demo.attrs["date"].startswith("20")
    assert demo.attrs["load_before"] is not None
    assert demo.attrs["command"].endswith("--out data/measured/fractal_demo.csv")


def test_fractal_model_predicts_the_measured_target(demo):
    target = demo.attrs["target_size"]
    small = demo[demo["size"] < target]
    actual = demo[demo["size"] == target].groupby("run")["total_s"].first().mean()
    shares = phase_shares(small).pivot(index="size", columns="phase", values="share")
    # the O(n^2) phases dominate the smallest size, the O(n^3) solve the largest small sizes
    assert shares["dense_solve"].iloc[0] < 0.45 and shares["dense_solve"].iloc[-1] > 0.7
    assert shares["stencil"].iloc[0] > 0.25 and shares["stencil"].iloc[-1] < 0.15
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = FractalExtrapolator().fit(small)
        pred = model.predict(target)
    assert model.phases_ == ["dense_solve", "stencil"]
    slopes = pred.phases.set_index("phase")["m"]
    assert slopes["dense_solve"] == pytest.approx(3.0, abs=0.4)
    assert slopes["stencil"] == pytest.approx(2.0, abs=0.4)
    # measured: 10.44 s predicted vs 12.29 s (mean of 3 target runs), -15.1 %, with C = 500; the solve's
    # slope is 2.87 (LU is less efficient at the smallest sizes) and the stencil runs ~2x slower per
    # point at 8000 than below 3000 (see data/README.md). The solve forced to slope 2 would be off by
    # about 80 %.
    assert model.convergence_size_ == 500
    assert error_pct(actual, pred.total) < 25
    assert pred.band[0] <= actual <= pred.band[1]  # 95 % band 8.2-13.4 s


def test_per_phase_slopes_of_the_shipped_data(demo):
    target = demo.attrs["target_size"]
    small = demo[demo["size"] < target]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = FractalExtrapolator().fit(small).convergence_size_
    shares = phase_shares(small[small["size"] >= start])
    slopes = {p: fit_phase(g["size"], g["time_s"], target).m for p, g in shares.groupby("phase")}
    # measured 2.87, 1.93 and the sort's (n^2 log n: local exponent 2 + 1/ln n ~ 2.14): LAPACK's LU is
    # less efficient at the smallest sizes, so the solve's exponent over 500-3000 is below 3
    assert slopes["dense_solve"] == pytest.approx(3.0, abs=0.4)
    assert slopes["stencil"] == pytest.approx(2.0, abs=0.4)
    assert slopes["sort"] == pytest.approx(2.15, abs=0.3)
