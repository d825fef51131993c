"""GPTL timing files and phiprof reports in the profile table (workbench.io.callpath.gptl/.phiprof).

Fixtures: the SYNTHETIC reports of tests/data/profiles/make_profiles.write_timers, written in the
layouts GPTL's and phiprof's sources print; every expected value below is computed by hand from
the generator's laws (rank r of p takes (1 + 0.01 r / p) times the region's inclusive time).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import DataFormatError, ParseWarning
from workbench.io import PROFILE_TABLE_COLUMNS, read_profiles, region_curves
from workbench.models.regions import RegionPredictor

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "profiles"))
import make_profiles as gen  # noqa: E402  (the fixture generator lives beside its outputs)

sys.path.insert(0, str(ROOT / "tools"))
import git_mirror  # noqa: E402

GPTL_REPO = Path("/work/.mirror/jmrosinski+GPTL/repo")
PHIPROF_REPO = Path("/work/.mirror/fmihpc+phiprof/repo")


@pytest.fixture(scope="module")
def timers(tmp_path_factory):
    return gen.write_timers(tmp_path_factory.mktemp("timers"))


def _stats(table, region, metric="time"):
    rows = table[(table["region"] == region) & (table["metric"] == metric)]
    return rows.set_index("aggregation")["value"].to_dict(), rows.iloc[0]


# ----------------------------------------------------------------------------- GPTL

def test_gptl_summary_hand_checked(timers):
    table = read_profiles(timers["gptl"] / "run-p8-r0" / "timing" / "model_timing_stats")
    assert list(table.columns[:len(PROFILE_TABLE_COLUMNS)]) == PROFILE_TABLE_COLUMNS
    time, row = _stats(table, "solve")
    # solve at p=8: inclusive 64/8 + 0.2 log2(8) = 8.6 s; ranks 8.6 (1 + r/800), r = 0..7
    assert time["max"] == 8.675  # 8.6 * 1.00875 = 8.67525, printed %9.3f
    assert time["min"] == 8.6
    assert time["sum"] == pytest.approx(138.202)  # walltotal: 2 threads x 8 ranks x mean 8.637625
    assert time["avg"] == pytest.approx(8.637625)  # walltotal / 16 (process, thread) pairs
    assert (row["kind"], row["unit"], row["parent"], row["depth"], row["format"]) == ("inclusive", "s", "", 0, "gptl")
    count, _ = _stats(table, "solve", "count")
    assert count == {"sum": 160.0}  # 10 calls x 8 ranks x 2 threads, cumulative
    assert (table["processes"] == 8).all()  # GLOBAL STATISTICS (     8 MPI TASKS)
    assert (table["threads"] == 2).all()  # solve: 16 threads on 8 processes
    assert set(table["region"]) == {"main", "solve", "MPI_Allreduce", "io"}  # the summary is flat


def test_gptl8_summary_hand_checked(timers):
    table = read_profiles(timers["gptl-v8"] / "timing-p8-r0.summary")
    time, _ = _stats(table, "MPI_Allreduce")
    # 0.2 log2(8) = 0.6 s; max 0.6 * 1.00875 = 0.60525 -> "0.605"; mean 0.6 * 1.004375 -> "0.603"
    assert time == {"max": 0.605, "avg": 0.603, "min": 0.6}
    assert _stats(table, "MPI_Allreduce", "count")[0] == {"sum": 800.0}
    assert (table["processes"] == 8).all() and (table["threads"] == 2).all()  # its two header lines


def test_gptl_rank_file_tree(timers):
    table = read_profiles(timers["gptl-rank"] / "model_timing.0001")
    time, row = _stats(table, "main->solve->MPI_Allreduce")
    assert time == {"none": 0.401}  # rank 1 of 4: 0.2 log2(4) (1 + 1/400)
    assert (row["name"], row["parent"], row["depth"]) == ("MPI_Allreduce", "main->solve", 2)
    assert _stats(table, "main->solve")[0] == {"none": pytest.approx(16.441)}  # (16 + 0.4) * 1.0025
    assert _stats(table, "main->io", "count")[0] == {"none": 2.0}
    assert set(table["region"]) == set(gen.LAWS)  # thread 1's table is not mixed in
    assert (table["threads"] == 2).all() and (table["rank"] == 1).all() and table["processes"].isna().all()
    folder = read_profiles(timers["gptl-rank"])
    assert sorted(folder["rank"].unique()) == [0, 1, 2, 3]
    gz = timers["gptl-rank"].parent / "model_timing.0003.gz"
    gz.write_bytes(gzip.compress((timers["gptl-rank"] / "model_timing.0003").read_bytes()))
    assert (read_profiles(gz)["rank"] == 3).all()


def test_gptl_is_told_by_content_and_gzip(timers, tmp_path):
    text = (timers["gptl"] / "run-p8-r0" / "timing" / "model_timing_stats").read_bytes()
    original = read_profiles(timers["gptl"] / "run-p8-r0" / "timing" / "model_timing_stats")
    for name, data in (("stats.txt", text), ("e3sm_timing_stats", text),
                       ("e3sm_timing_stats.240101-000000.gz", gzip.compress(text))):
        (tmp_path / name).write_bytes(data)
        table = read_profiles(tmp_path / name)
        assert (table["format"] == "gptl").all()
        assert np.array_equal(table["value"].to_numpy(), original["value"].to_numpy())
    phiprof = tmp_path / "report"
    phiprof.write_text(gen.phiprof_text(4, 0))
    assert (read_profiles(phiprof)["format"] == "phiprof").all()


# ----------------------------------------------------------------------------- phiprof

def test_phiprof2_hand_checked(timers):
    table = read_profiles(timers["phiprof"] / "p8-r0" / "phiprof_0.txt")
    time, row = _stats(table, "main->solve->MPI_Allreduce")
    assert time == {"max": 0.6053, "avg": 0.6026, "min": 0.6}  # printed %.4g
    assert (row["name"], row["parent"], row["depth"], row["kind"]) == ("MPI_Allreduce", "main->solve", 2, "inclusive")
    assert _stats(table, "main->solve->MPI_Allreduce", "count")[0] == {"avg": 100.0}
    assert (table["processes"] == 8).all() and (table["threads"] == 1).all()
    assert set(table["region"]) == set(gen.LAWS)  # the "Other" rows and the Groups table are no regions
    compact = gen.phiprof_text(8, 0, prints=("compact",))
    only_avg = read_profiles(_write(timers["phiprof"].parent / "compact.txt", compact))
    assert set(only_avg["aggregation"]) == {"avg"}  # the compact table has no max/min over processes


def test_phiprof1_hand_checked(timers):
    table = read_profiles(timers["phiprof-v1"] / "phiprof-p8-r0.txt")
    time, row = _stats(table, "main->io")
    assert time == {"max": 1.0088, "avg": 1.0044, "min": 1.0}  # 1 * (1 + r/800): 5 significant digits
    assert (row["parent"], row["depth"]) == ("main", 1)
    assert (table["processes"] == 8).all() and (table["threads"] == 1).all()


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- damaged files

def _cut(text: str, marker: str, keep: int) -> str:
    """``text`` cut ``keep`` characters into the line holding ``marker``."""
    at = text.index(marker)
    return text[:at + keep]


@pytest.mark.parametrize("make, words", [
    (lambda: _cut(gen.gptl_summary(8, 0), '"io"', 40), r"model_timing_stats, line 12: not a timer line"),
    (lambda: gen.gptl_summary(8, 0).rstrip("\n") + "\n", "without its closing blank line"),
    (lambda: gen.gptl_summary(8, 0).replace("8.675", "8.6x5"), r"line 10: not a timer line"),
    (lambda: gen.gptl_rank(4, 0, 1).replace('  "solve"', '        "solve"'),
     r"line 22: timer 'solve' is nested 4 levels deep under a timer nested 0"),
    (lambda: _cut(gen.gptl_rank(4, 0, 1), '"io"', 30), r"line 24: not a timer line of GPTL's table"),
    (lambda: _cut(gen.phiprof_text(8, 0), "MPI_Allreduce | 1 ", 30), r"line \d+: not a row of phiprof's"),
    (lambda: gen.phiprof_text(8, 0).replace("| 8.638 ", "| 8.6e8e"), r"line \d+: time '8.6e8e' is not a number"),
    (lambda: gen.phiprof_text(8, 0).rsplit("---", 1)[0].rstrip("-\n") + "\n", "ends without its closing rule"),
    (lambda: _cut(gen.phiprof_v1_text(8, 0), "  io", 30), r"line \d+: not a row of phiprof's profile"),
    (lambda: gen.phiprof_v1_text(8, 0).rsplit("\n-", 1)[0] + "\n", "without its closing line of dashes"),
])
def test_damaged_reports_get_our_error_naming_file_and_line(tmp_path, make, words):
    path = _write(tmp_path / "model_timing_stats", make())
    with pytest.raises(DataFormatError, match=words) as info:
        read_profiles(path)
    assert "model_timing_stats" in str(info.value) and "Traceback" not in str(info.value)


def test_damaged_gzip_is_named(tmp_path):
    data = gzip.compress(gen.gptl_summary(8, 0).encode())
    path = tmp_path / "e3sm_timing_stats.gz"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(DataFormatError, match="e3sm_timing_stats.gz: a damaged gzip file"):
        read_profiles(path)


# ----------------------------------------------------------------------------- models

@pytest.mark.parametrize("kind", ["gptl", "phiprof"])
def test_region_predictor_over_runs_at_several_process_counts(timers, kind):
    table = read_profiles(timers[kind])
    assert set(table["processes"]) == set(map(float, gen.PROCESSES))
    assert sorted(table["run"].unique()) == [0, 1]  # two repetitions per process count
    curves = region_curves(table)
    assert curves["metric"].iloc[0] == "time inclusive max"  # the slowest rank, not the mean
    model = RegionPredictor().fit(table)
    frame = model.predict_frame([64, 128], level=0.8).set_index(["region", "n"])
    allreduce = "MPI_Allreduce" if kind == "gptl" else "main->solve->MPI_Allreduce"
    solve = "solve" if kind == "gptl" else "main->solve"
    assert frame.loc[(allreduce, 128.0), "growth"] == "grows like log n"
    assert frame.loc[(solve, 128.0), "growth"] == "shrinks like 1/n"
    # 0.2 log2(128) = 1.4 s on the slowest rank (x 1.01): within the interval
    lower, upper = frame.loc[(allreduce, 128.0), ["lower", "upper"]]
    assert lower < 1.4 * 1.0099 < upper


# ----------------------------------------------------------------------------- upstream outputs

def test_gptl_repository_outputs(tmp_path):
    """GPTL's own example outputs (jmrosinski/GPTL, read from a fetched mirror, never copied)."""
    if not GPTL_REPO.exists():
        pytest.skip("jmrosinski/GPTL is not mirrored here (fetch github:jmrosinski/GPTL)")
    git_mirror.extract(GPTL_REPO, "fortran/tests/out.utrtest.4threads", tmp_path)
    git_mirror.extract(GPTL_REPO, "unsupported_utils/cprsummary", tmp_path)
    # GPTL 8's per-rank layout: no On column, unquoted names, Wall/max/min, selfOH/parentOH
    rank = read_profiles(tmp_path / "fortran/tests/out.utrtest.4threads")
    assert (rank["threads"] == 4).all()  # Stats for thread 0 .. 3
    row = rank[rank["region"] == "total_startstop->1e7x1"].set_index("metric")["value"]
    assert row.to_dict() == {"time": 0.261, "count": 1.0e7}  # "1e7x1  1.0e+07  -  0.261 2.27e-05 ..."
    assert rank["depth"].max() == 1 and rank["region"].str.startswith("total_").any()
    # a GPTL 8 summary without its header lines: processes from the most ranks of any timer
    summary = read_profiles(tmp_path / "unsupported_utils/cprsummary/file1")
    # "coupler_main  24  24  259.602  0.343  260.351 (0 0)  259.443 (12 0)"
    assert _stats(summary, "coupler_main")[0] == {"max": 260.351, "avg": 259.602, "min": 259.443}
    assert _stats(summary, "coupler_main", "count")[0] == {"sum": 24.0}
    assert (summary["processes"] == 24).all()


def test_phiprof_repository_example(tmp_path):
    """phiprof's hello-world report (fmihpc/phiprof, read from a fetched mirror, never copied)."""
    if not PHIPROF_REPO.exists():
        pytest.skip("fmihpc/phiprof is not mirrored here (fetch github:fmihpc/phiprof)")
    git_mirror.extract(PHIPROF_REPO, "example/hello_world/profile_0.txt", tmp_path)
    table = read_profiles(tmp_path / "example/hello_world/profile_0.txt")
    # its groups and compact tables: "| 3 | 2 | |   cout | 1 | 0.001401 | ..." under "Greetings"
    assert set(table["region"]) == {"Greetings", "Greetings->cout", "LB"}  # the Other rows are no timers
    assert _stats(table, "Greetings->cout")[0] == {"avg": 0.001401}
    assert (table["processes"] == 4).all() and (table["threads"] == 4).all()


def test_gptl8_summary_with_older_lower_case_header(tmp_path):
    """GPTL 8's summary as its manual page shows it (synthetic values): "total ranks" in lower case."""
    text = ("total ranks in communicator=3\nnthreads on rank 0=1\n\n"
            "name   ncalls nranks mean_time std_dev wallmax (rank thread) wallmin (rank thread)\n"
            "step        3      3     2.000   0.100   2.100 (   2      0)   1.900 (   0      0)\n"
            "halo        6      3     0.500   0.050   0.550 (   1      0)   0.450 (   2      0)\n")
    table = read_profiles(_write(tmp_path / "timing.summary", text))
    assert _stats(table, "halo")[0] == {"max": 0.55, "avg": 0.5, "min": 0.45}
    assert (table["processes"] == 3).all() and (table["threads"] == 1).all()


def test_gptl_rank_file_of_older_gptl(tmp_path):
    """Older GPTL (its GPTLpr(3) example's layout, synthetic values): no On column, unquoted names,
    the overhead totals right under the table instead of a blank line."""
    text = ("Stats for thread 0:\n"
            "               Called  Recurse Wallclock max       min       UTR_Overhead\n"
            "  step               10    -       5.000     0.600     0.400         0.000\n"
            "    halo             20    -       1.500     0.100     0.050         0.000\n"
            "Overhead sum          =  0.000276 wallclock seconds\n"
            "Total calls           = 30\n")
    table = read_profiles(_write(tmp_path / "timing.7", text))
    time, row = _stats(table, "step->halo")
    assert time == {"none": 1.5} and (row["depth"], row["parent"]) == (1, "step")
    assert (table["rank"] == 7).all() and (table["threads"] == 1).all()


@pytest.mark.timeout(20)
@pytest.mark.parametrize("row", ["a" + " " * 16_000 + "b", "x " + " ".join(["1" * 300] * 50) + " z", "a 1 " * 4_000,
                                 "b" * 20_000])
def test_hostile_timer_lines_end_quickly_with_our_error(tmp_path, row):
    """Lines built to make a backtracking pattern take quadratic or exponential time (they did, before
    the patterns matched each token one way only), and a line over the length cap."""
    for header in ("name on processes threads count walltotal wallmax (proc thrd) wallmin (proc thrd)",
                   "name ncalls nranks mean_time std_dev wallmax (rank thread) wallmin (rank thread)",
                   "Stats for thread 0:\n        Called Recurse Wallclock max min"):
        path = _write(tmp_path / "timing.0", f"{header}\n{row}\n\n")
        with pytest.raises(DataFormatError, match=r"timing\.0, line \d: ") as info:
            read_profiles(path)
        assert len(row) < 16_384 or "more than the 16,384" in str(info.value)


def test_timing_tarball_of_a_run(tmp_path):
    """E3SM keeps a run's timing folder as timing.<LID>.tar.gz: its GPTL files are read, others skipped."""
    members = [("timing/model_timing_stats", gen.gptl_summary(8, 0).encode()),
               *((f"timing/model_timing.{r:04d}", gen.gptl_rank(4, 0, r).encode()) for r in range(2)),
               ("timing/../../escape.txt", b"not a profile\n"), ("timing/notes.txt", b"not a profile\n")]
    path = tmp_path / "timing.43235257.210608-222102.tar.gz"
    path.write_bytes(gen.tar_bytes(members, compress=True, symlink="timing/link"))
    with pytest.warns(ParseWarning, match=r"2 file\(s\) of no profile format skipped"):
        table = read_profiles(path)
    names = sorted({p.rsplit(":", 1)[-1] for p in table["profile"]})
    assert names == ["timing/model_timing.0000", "timing/model_timing.0001", "timing/model_timing_stats"]
    summary = table[table["profile"].str.endswith("model_timing_stats")]
    assert _stats(summary, "solve")[0]["max"] == 8.675 and (summary["processes"] == 8).all()
    assert not (tmp_path.parent / "escape.txt").exists()
    nested = tmp_path / "nested.tar.gz"
    nested.write_bytes(gen.tar_bytes([("inner.tar", gen.tar_bytes(members[:1]))], compress=True))
    with pytest.raises(DataFormatError, match=r"nested\.tar\.gz:inner\.tar: a tar archive inside an archive"):
        read_profiles(nested)


def test_phiprof_sets_of_processes_stay_apart(tmp_path):
    """phiprof writes one report per set of processes with identical timers (phiprof_0.txt: the
    largest): a smaller set's report must not become a point of the largest set's curves."""
    for p in gen.PROCESSES:
        run = tmp_path / f"run-{p}"
        run.mkdir()
        _write(run / "phiprof_0.txt", gen.phiprof_text(p, 0))
        _write(run / "phiprof_1.txt", gen.phiprof_text(2, 0))  # two processes that ran other timers
    table = read_profiles(tmp_path)
    assert sorted(table["timer_set"].unique()) == [0, 1]
    curves = region_curves(table)
    largest = curves[curves["config"] == "timer_set=0.0"]
    assert sorted(largest["n"].unique()) == list(map(float, gen.PROCESSES))
    assert set(curves[curves["config"] == "timer_set=1.0"]["n"]) == {2.0}
