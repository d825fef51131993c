"""perf stat parser: recorded outputs of this machine (tests/data/perf/README.md), edge
cases of the format, and errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.errors import DataFormatError, MeasurementError, WorkbenchError
from workbench.io import PerfStat, read_perf_stat
from workbench.io.perf import PERF_STAT_KEYS

PERF_DATA = Path(__file__).resolve().parent / "data" / "perf"

# Values copied by hand from the files (see tests/data/perf/README.md for the commands).
KMEANS_HUMAN = {
    "cycles": 1482491957, "stalled_cycles_frontend": 409593925, "stalled_cycles_backend": None,
    "task_clock_ms": 549.90, "cpus_utilized": 1.034, "elapsed_s": 0.531608643,
}
EXPECTED = {
    "human_kmeans.txt": (KMEANS_HUMAN, "human", "task-clock"),
    "human_thousands.txt": (KMEANS_HUMAN, "human", "task-clock"),
    "human_decimal_comma.txt": (KMEANS_HUMAN, "human", "task-clock"),
    "csv_kmeans.txt": ({
        "cycles": 1497196369, "stalled_cycles_frontend": 410007208, "stalled_cycles_backend": None,
        "task_clock_ms": 572.89, "cpus_utilized": 1.028, "elapsed_s": None,
    }, "csv", "task-clock"),
    "human_control_kmeans.txt": ({
        "cycles": 181113312, "stalled_cycles_frontend": 35932255, "stalled_cycles_backend": None,
        "task_clock_ms": 65.50, "cpus_utilized": 0.135, "elapsed_s": 0.486001493,
    }, "human", "task-clock"),
    "csv_control_kmeans.txt": ({
        "cycles": 196191875, "stalled_cycles_frontend": 36845487, "stalled_cycles_backend": None,
        "task_clock_ms": 74.64, "cpus_utilized": 0.141, "elapsed_s": None,
    }, "csv", "task-clock"),
    "human_cpu_clock.txt": ({
        "cycles": 145334273, "stalled_cycles_frontend": 30251981, "stalled_cycles_backend": None,
        "task_clock_ms": 57.12, "cpus_utilized": 0.976, "elapsed_s": 0.058519648,
    }, "human", "cpu-clock"),
    "csv_cpu_clock.txt": ({
        "cycles": 152408534, "stalled_cycles_frontend": 31247299, "stalled_cycles_backend": None,
        "task_clock_ms": 57.97, "cpus_utilized": 0.975, "elapsed_s": None,
    }, "csv", "cpu-clock"),
    "human_repeat3.txt": ({
        "cycles": 162654467, "stalled_cycles_frontend": 40026092, "stalled_cycles_backend": None,
        "task_clock_ms": 63.51, "cpus_utilized": 1.050, "elapsed_s": 0.06051,
    }, "human", "task-clock"),
    "human_default_events.txt": ({
        "cycles": 3242859, "stalled_cycles_frontend": 1355090, "stalled_cycles_backend": None,
        "task_clock_ms": 2.32, "cpus_utilized": 0.657, "elapsed_s": 0.003533791,
    }, "human", "task-clock"),
    "csv_output_file.txt": ({
        "cycles": 149680413, "stalled_cycles_frontend": 29189809, "stalled_cycles_backend": None,
        "task_clock_ms": 58.66, "cpus_utilized": 0.943, "elapsed_s": None,
    }, "csv", "task-clock"),
}


def test_every_recorded_file_has_an_expectation():
    recorded = {p.name for p in PERF_DATA.glob("*.txt")}
    assert recorded == set(EXPECTED) | {"human_not_supported_cycles.txt", "csv_not_supported_cycles.txt"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_outputs(name):
    expected, form, clock = EXPECTED[name]
    stat = read_perf_stat(PERF_DATA / name)
    assert dict(stat) == expected
    assert isinstance(stat.cycles, int) and isinstance(stat.stalled_cycles_frontend, int)
    assert (stat.form, stat.clock_event) == (form, clock)


def test_text_path_str_and_bytes_agree():
    path = PERF_DATA / "csv_control_kmeans.txt"
    text = path.read_text()
    from_path = read_perf_stat(path)
    assert read_perf_stat(str(path)) == from_path
    assert read_perf_stat(text) == from_path
    assert read_perf_stat(text.encode()) == from_path


def test_perfstat_is_a_frozen_read_only_mapping():
    stat = read_perf_stat(PERF_DATA / "human_kmeans.txt")
    assert isinstance(stat, PerfStat)
    assert list(stat) == list(PERF_STAT_KEYS) == list(dict(stat))
    assert len(stat) == 6
    assert stat["cycles"] == stat.cycles == 1482491957
    assert "form" not in stat and "cycles" in stat
    with pytest.raises(KeyError):
        stat["form"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        stat.cycles = 1
    with pytest.raises(TypeError):
        stat["cycles"] = 1


# --------------------------------------------------------------------- format details

def test_event_modifiers_and_hybrid_pmus_are_summed():
    text = (
        "5000,,cpu_core/cycles/,100,100.00,,\n"
        "3000,,cpu_atom/cycles/,100,100.00,,\n"
        "700,,cpu_core/stalled-cycles-frontend/,100,100.00,,\n"
        "2.50,msec,task-clock:u,2500000,100.00,0.500,CPUs utilized\n"
    )
    stat = read_perf_stat(text)
    assert (stat.cycles, stat.stalled_cycles_frontend, stat.task_clock_ms, stat.cpus_utilized) == (8000, 700, 2.5, 0.5)
    assert stat.stalled_cycles_backend is None  # absent -> None


def test_user_only_events_in_human_form():
    text = (
        " Performance counter stats for 'x':\n\n"
        "         1,234,567      cycles:u                 #    1.000 GHz\n"
        "              1.23 msec task-clock:u             #    0.100 CPUs utilized\n\n"
        "       0.012300000 seconds time elapsed\n"
    )
    assert dict(read_perf_stat(text)) == {
        "cycles": 1234567, "stalled_cycles_frontend": None, "stalled_cycles_backend": None,
        "task_clock_ms": 1.23, "cpus_utilized": 0.1, "elapsed_s": 0.0123,
    }


def test_last_of_several_appended_runs_is_read():
    first = (PERF_DATA / "human_cpu_clock.txt").read_text()
    last = (PERF_DATA / "human_kmeans.txt").read_text()
    assert dict(read_perf_stat(first + last)) == KMEANS_HUMAN
    csv_first = (PERF_DATA / "csv_cpu_clock.txt").read_text()
    csv_last = (PERF_DATA / "csv_kmeans.txt").read_text()
    assert read_perf_stat(csv_first + csv_last).cycles == 1497196369


def test_clock_units_are_converted_to_ms():
    stat = read_perf_stat("10,,cycles,1,100.00,,\n2500,usec,task-clock,1,100.00,,\n")
    assert stat.task_clock_ms == 2.5
    assert stat.cpus_utilized is None


@given(
    cycles=st.integers(1, 10**13),
    frontend=st.integers(0, 10**12),
    centi_ms=st.integers(1, 10**9),
    milli_cpus=st.integers(0, 99_999),
    grouped=st.booleans(),
)
def test_round_trip_of_perfs_own_formats(cycles, frontend, centi_ms, milli_cpus, grouped):
    """Counters printed the way perf prints them (human form with or without thousands
    separators, and CSV) are read back exactly."""
    ms, cpus = centi_ms / 100, milli_cpus / 1000
    fmt = "{:,}" if grouped else "{}"
    human = (
        " Performance counter stats for 'prog':\n\n"
        f"{fmt.format(cycles):>18}      cycles                           #    2.000 GHz\n"
        f"{fmt.format(frontend):>18}      stalled-cycles-frontend          #   10.00% frontend cycles idle\n"
        f"{'<not supported>':>18}      stalled-cycles-backend\n"
        f"{ms:>18,.2f} msec task-clock                       #    {cpus:.3f} CPUs utilized\n\n"
        "       1.000000000 seconds time elapsed\n"
    )
    if not grouped:
        human = human.replace(f"{ms:,.2f}", f"{ms:.2f}")
    csv = (
        f"{cycles},,cycles,1,100.00,2.000,GHz\n"
        f"{frontend},,stalled-cycles-frontend,1,100.00,10.00,frontend cycles idle\n"
        "<not supported>,,stalled-cycles-backend,0,100.00,,\n"
        f"{ms:.2f},msec,task-clock,1,100.00,{cpus:.3f},CPUs utilized\n"
    )
    expected = {
        "cycles": cycles, "stalled_cycles_frontend": frontend, "stalled_cycles_backend": None,
        "task_clock_ms": ms, "cpus_utilized": cpus,
    }
    # Exact: "12.34" and 1234 / 100 are the same nearest double.
    assert dict(read_perf_stat(human)) == {**expected, "elapsed_s": 1.0}
    assert dict(read_perf_stat(csv)) == {**expected, "elapsed_s": None}


# --------------------------------------------------------------------- errors

@pytest.mark.parametrize("name", ["human_not_supported_cycles.txt", "csv_not_supported_cycles.txt"])
def test_unsupported_cycles_name_the_cause_and_the_fix(name):
    with pytest.raises(MeasurementError, match="cycles is <not supported>") as info:
        read_perf_stat(PERF_DATA / name)
    message = str(info.value)
    assert name in message
    assert "hardware counters are unavailable" in message
    assert "perf_event_paranoid" in message and "virtual machines" in message


def test_not_counted_cycles():
    with pytest.raises(MeasurementError, match="<not counted>.*never ran"):
        read_perf_stat("<not counted>,,cycles,0,0.00,,\n1.00,msec,task-clock,0,0.00,,\n")


@pytest.mark.parametrize(
    "text",
    ["", "hello world\n", "Traceback (most recent call last):\n  ValueError: x\n", "a,b,c\n1,2,3\n"],
)
def test_no_counter_block(text):
    with pytest.raises(DataFormatError, match="no perf stat counter block found"):
        read_perf_stat(text)


def test_missing_cycles():
    with pytest.raises(DataFormatError, match="no 'cycles' counter.*-e cycles"):
        read_perf_stat("1.00,msec,task-clock,1,100.00,0.5,CPUs utilized\n")


def test_missing_task_clock():
    text = (PERF_DATA / "human_kmeans.txt").read_text().replace("task-clock", "page-faults")
    with pytest.raises(DataFormatError, match="task-clock \\(or cpu-clock\\) is missing.*-e task-clock"):
        read_perf_stat(text)


def test_not_counted_task_clock():
    with pytest.raises(DataFormatError, match="task-clock \\(or cpu-clock\\) is <not counted>"):
        read_perf_stat("10,,cycles,1,100.00,,\n<not counted>,msec,task-clock,0,0.00,,\n")


def test_missing_files_and_wrong_types():
    with pytest.raises(DataFormatError, match="not an existing file either"):
        read_perf_stat("no/such/perf.txt")
    with pytest.raises(DataFormatError, match="cannot read file"):
        read_perf_stat(PERF_DATA / "no-such-file.txt")
    with pytest.raises(DataFormatError, match="got int"):
        read_perf_stat(42)
    assert issubclass(MeasurementError, WorkbenchError)
