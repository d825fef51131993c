"""The profile table (workbench.io.callpath): every reader on generated fixtures (always) and on
Extra-P's and Thicket's own test data (when their repositories are mirrored), values equal to
caliper-reader's and pycubexr's, Extra-P JSON Lines round trips, region curves."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.errors import DataFormatError, ParseWarning, ValidationError
from workbench.io import (
    PROFILE_TABLE_COLUMNS,
    from_thicket,
    read_profiles,
    region_curves,
    to_extrap,
    validate_curves,
    validate_profile_table,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "profiles"))
import make_profiles as gen  # noqa: E402  (the fixture generator lives beside its outputs)

sys.path.insert(0, str(ROOT / "tools"))
import git_mirror  # noqa: E402

RELEARN = Path("/work/shared/data/extrap-mpi/relearn_data.txt")
MIRROR = Path("/work/.mirror")
EXTRAP_REPO = MIRROR / "extra-p+extrap" / "repo"
THICKET_REPO = MIRROR / "LLNL+thicket" / "repo"


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    return gen.write_all(tmp_path_factory.mktemp("profiles"))


def _git_files(repo: Path, prefix: str, out: Path) -> Path:
    """Files under ``prefix`` of a fetched mirror (read with git, never copied into the tree)."""
    if not repo.exists():
        pytest.skip(f"{repo.name} is not mirrored here (fetch github:{repo.parent.name.replace('+', '/')})")
    git_mirror.extract(repo, prefix, out)
    return out / prefix


# ----------------------------------------------------------------------------- generated fixtures

@pytest.mark.parametrize("fmt", ["caliper", "cube", "cali-json", "extrap-text", "extrap-json", "extrap-json-legacy",
                                 "extrap-jsonl"])
def test_every_reader_gives_the_laws_of_the_fixture(fixtures, fmt):
    table = read_profiles(fixtures[fmt])
    assert list(table.columns[:len(PROFILE_TABLE_COLUMNS)]) == PROFILE_TABLE_COLUMNS
    assert set(table["region"]) == set(gen.LAWS)
    row = table[(table["region"] == "main->solve") & (table["processes"] == 8) & (table["run"] == 0)]
    inclusive_max = max(gen.rank_times("main->solve", 8, 0))  # 64/8 + 0.2*3 = 8.6, slowest rank
    if fmt in ("caliper", "cube", "cali-json"):
        row = row[(row["kind"] == "inclusive") & (row["aggregation"] == "max") & (row["metric"] != "visits")]
    assert len(row) == 1
    assert row["value"].iloc[0] == pytest.approx(inclusive_max, rel=1e-8)
    solve = table[table["region"] == "main->solve"].iloc[0]
    assert (solve["name"], solve["parent"], solve["depth"]) == ("solve", "main", 1)
    if fmt != "cali-json":
        assert sorted(table["run"].unique()) == [0, 1]  # two repetitions per process count


def test_caliper_fixture_keeps_adiak_globals_and_maps_allocations(fixtures):
    table = read_profiles(fixtures["caliper"])
    assert set(table["processes"]) == set(map(float, gen.PROCESSES))
    assert (table["problem_size"] == 30).all() and (table["cluster"] == "demo-cluster").all()
    assert (table["jobsize"] == table["processes"]).all()
    # the launch date differs between repetitions but is not a configuration: runs 0 and 1
    assert table.groupby("processes")["run"].nunique().eq(2).all()
    assert set(table["aggregation"]) == {"min", "avg", "max"}


def test_cube_fixture_processes_and_ranks(fixtures):
    table = read_profiles(fixtures["cube"])
    assert set(table["processes"]) == set(map(float, gen.PROCESSES))  # process location groups counted
    assert (table["threads"] == 1).all() and (table["nodes"] == 1).all()
    rows = table[(table["region"] == "main") & (table["processes"] == 4) & (table["run"] == 0)
                 & (table["kind"] == "exclusive")].set_index("aggregation")["value"]
    per_rank = gen.rank_times("main", 4, 0, kind="exclusive")
    assert rows["sum"] == pytest.approx(sum(per_rank))
    assert rows["min"] == pytest.approx(min(per_rank)) and rows["max"] == pytest.approx(max(per_rank))
    assert "p" in table and (table["p"] == table["processes"]).all()  # Extra-P folder naming demo.p4.r1


def test_values_equal_pycubexr_and_caliper_reader(fixtures):
    from caliperreader import CaliperReader
    from pycubexr import CubexParser

    cube = next(Path(fixtures["cube"]).rglob("*.cubex"))
    table = read_profiles(cube)
    with CubexParser(cube) as parser:
        values = parser.get_metric_values(parser.get_metric_by_name("time"))
        for cnode in parser.all_cnodes():
            name = parser.get_region(cnode).name
            ours = table[(table["name"] == name) & (table["aggregation"] == "sum")].set_index("kind")["value"]
            assert ours["inclusive"] == values.value(cnode, convert_to_inclusive=True)
            assert ours["exclusive"] == values.value(cnode, convert_to_exclusive=True)
    cali = next(Path(fixtures["caliper"]).glob("*.cali"))
    reader = CaliperReader()
    reader.read(str(cali))
    table = read_profiles(cali)
    for record in reader.records:
        region = "->".join(record["path"])
        for attribute in ("min#inclusive#sum#time.duration", "max#inclusive#sum#time.duration"):
            ours = table[(table["region"] == region) & (table["aggregation"] == attribute[:3])]["value"]
            assert ours.tolist() == [float(record[attribute])]


def test_text_indentation_is_nesting(fixtures):
    table = read_profiles(fixtures["extrap-text"])
    assert set(table["depth"]) == {0, 1, 2}
    assert "size" in table and (table["size"] == 30).all()


@pytest.mark.parametrize("fmt", ["caliper", "cube", "extrap-text", "extrap-jsonl"])
def test_to_extrap_round_trips_exactly(fixtures, tmp_path, fmt):
    table = read_profiles(fixtures[fmt])
    back = read_profiles(to_extrap(table, tmp_path / "out.jsonl"))
    pd.testing.assert_frame_equal(table, back)


def test_to_extrap_lines_are_extrap_json_lines(fixtures, tmp_path):
    import json

    table = read_profiles(fixtures["caliper"])
    lines = (to_extrap(table, tmp_path / "x.jsonl")).read_text().splitlines()
    first = json.loads(lines[0])
    assert set(first) >= {"params", "callpath", "metric", "value"} and "processes" in first["params"]
    assert all(isinstance(v, float) for v in first["params"].values())  # Extra-P needs numbers
    assert first["metric"].startswith(("min#inclusive#", "avg#inclusive#", "max#inclusive#"))


def test_folder_glob_list_and_zip_give_the_same_table(fixtures, tmp_path):
    folder = Path(fixtures["caliper"])
    files = sorted(folder.glob("*.cali"))
    by_folder = read_profiles(folder)
    by_glob = read_profiles(str(folder / "*.cali"))
    by_list = read_profiles([str(f) for f in files])
    pd.testing.assert_frame_equal(by_folder, by_glob)
    pd.testing.assert_frame_equal(by_folder, by_list)
    archive = tmp_path / "runs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in files:
            z.write(f, f"runs/{f.name}")
    zipped = read_profiles(archive)
    assert len(zipped) == len(by_folder)
    assert np.allclose(np.sort(zipped["value"]), np.sort(by_folder["value"]))


def test_formats_are_told_by_content_not_name(fixtures, tmp_path):
    renamed = tmp_path / "profile.dat"
    renamed.write_bytes(next(Path(fixtures["caliper"]).glob("*.cali")).read_bytes())
    assert read_profiles(renamed)["format"].iloc[0] == "caliper"
    json_named_txt = tmp_path / "a.txt"
    json_named_txt.write_text(gen.extrap_jsonl())
    assert read_profiles(json_named_txt)["format"].iloc[0] == "extrap-jsonl"


@pytest.mark.parametrize("content, words", [
    (b"hello world\n", "unknown format"),
    (b"PARAMETER p\nPOINTS ( 2 ) ( 4 )\nREGION a\nDATA 1\nDATA 2\nDATA 3\n", "line 6: more DATA lines"),
    (b"PARAMETER p\nPOINTS 2 4\nREGION a\nDATA 1 x\n", "line 4: DATA holds a value that is not a number"),
    (b'{"params": {"p": 2}, "value": 1}\n{"params": {"q": 2}, "value": 1}\n', "line 2: parameter 'p' missing"),
    (b"__rec=node,id=12,attr=99999,data=x\n__rec=ctx,ref=12,attr=1,data=zz\n", "not a readable Caliper"),
    (b"__rec=node,id=8,attr=8,data=x,parent=8\n__rec=ctx,ref=8\n", "node 8 names itself as its parent"),
    (b'{"parameters": ["p"], "measurements": {"a": {"time": [{"point": [1, 2], "values": [1]}]}}}',
     "measurement 1 has 2 coordinates"),
])
def test_bad_files_get_our_errors_naming_file_and_line(tmp_path, content, words):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(DataFormatError, match=words) as info:
        read_profiles(path)
    assert "bad.txt" in str(info.value)


def test_damaged_cube_and_folder_without_profiles(fixtures, tmp_path):
    cube = next(Path(fixtures["cube"]).rglob("*.cubex")).read_bytes()
    broken = tmp_path / "broken.cubex"
    broken.write_bytes(cube[:1200] + b"\0" * 600 + cube[1800:])
    with pytest.raises(DataFormatError, match="broken.cubex"):
        read_profiles(broken)
    empty = tmp_path / "nothing"
    empty.mkdir()
    (empty / "notes.cfg").write_text("SCOREP_ENABLE_PROFILING=true\n")
    with pytest.raises(DataFormatError, match="no profiles found"):
        read_profiles(empty)
    with pytest.raises(DataFormatError, match="no files match"):
        read_profiles(str(tmp_path / "*.cali"))


def test_validator_names_column_and_rows(fixtures):
    table = read_profiles(fixtures["extrap-json"])
    bad = table.copy()
    bad.loc[3, "value"] = np.inf
    with pytest.raises(ValidationError, match=r"column 'value', row\(s\) 3 \(profile \S+extrap\.json#p1r1\): "
                                              "not a finite number"):
        validate_profile_table(bad)
    bad = table.copy()
    bad.loc[[1, 2], "aggregation"] = "median"
    with pytest.raises(ValidationError, match=r"column 'aggregation', row\(s\) 1, 2"):
        validate_profile_table(bad)
    with pytest.raises(ValidationError, match="missing column"):
        validate_profile_table(table.drop(columns="run"))
    bad = pd.concat([table, table.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValidationError, match="appears more than once"):
        validate_profile_table(bad)


# ----------------------------------------------------------------------------- Thicket-shaped objects

class _Node:
    def __init__(self, name, parent=None):
        self.frame = {"name": name, "type": "function"}
        self.parents = [parent] if parent else []


class _FakeThicket:
    """The shape of a Thicket: dataframe indexed by (node, profile), metadata by profile."""

    def __init__(self):
        main = _Node("main")
        solve = _Node("solve", main)
        rows = []
        for profile, p in ((101, 4), (102, 8)):
            rows += [(main, profile, 20.0 / p + 1, 10.0 / p), (solve, profile, 16.0 / p, 16.0 / p)]
        index = pd.MultiIndex.from_tuples([(r[0], r[1]) for r in rows], names=["node", "profile"])
        self.dataframe = pd.DataFrame({"Max time/rank": [r[2] for r in rows], "time": [r[3] for r in rows],
                                       "name": [r[0].frame["name"] for r in rows]}, index=index)
        self.metadata = pd.DataFrame({"jobsize": [4, 8], "problem_size": [30, 30], "cluster": ["x", "x"]},
                                     index=pd.Index([101, 102], name="profile"))


def test_from_thicket_duck_typed():
    table = from_thicket(_FakeThicket())
    assert set(table["region"]) == {"main", "main->solve"}
    row = table[(table["region"] == "main->solve") & (table["profile"] == "102") & (table["aggregation"] == "max")]
    assert row["value"].tolist() == [2.0] and row["kind"].tolist() == ["inclusive"]
    assert row["processes"].tolist() == [8.0] and row["problem_size"].tolist() == [30.0]
    excl = table[(table["kind"] == "exclusive") & (table["region"] == "main")]
    assert sorted(excl["value"]) == [1.25, 2.5]
    with pytest.raises(DataFormatError, match="expected a Hatchet GraphFrame or a Thicket"):
        from_thicket(object())


# ----------------------------------------------------------------------------- curves

def test_region_curves_keep_repeats_and_derive_exclusive(fixtures):
    table = read_profiles(fixtures["caliper"])
    curves = validate_curves(region_curves(table))
    assert set(curves["curve_id"]) == set(gen.LAWS) and curves["metric"].iloc[0] == "time.duration inclusive max"
    assert curves.groupby(["curve_id", "n"])["run"].max().eq(1).all()
    excl = region_curves(table, kind="exclusive", aggregation="avg")
    io_ = excl[(excl["curve_id"] == "main->solve") & (excl["n"] == 16) & (excl["run"] == 0)]["time_s"]
    avg = lambda r: float(np.mean(gen.rank_times(r, 16, 0)))  # noqa: E731
    assert io_.iloc[0] == pytest.approx(avg("main->solve") - avg("main->solve->MPI_Allreduce"), rel=1e-6)


def test_region_curves_of_relearn_split_by_problem_size():
    if not RELEARN.exists():
        pytest.skip("the RELeARN Extra-P file is not in the data mirror")
    table = read_profiles(RELEARN)
    assert table["region"].nunique() == 14 and len(table) == 14 * 25 * 2
    curves = region_curves(table)
    assert set(curves["config"]) == {f"n={k}.0" for k in (5000, 6000, 7000, 8000, 9000)}
    main = curves[(curves["region"] == "main()") & (curves["config"] == "n=5000.0")]
    assert main["n"].tolist() == [32, 32, 64, 64, 128, 128, 256, 256, 512, 512]
    assert main["time_s"].iloc[:2].tolist() == [406.498, 405.58]


# ----------------------------------------------------------------------------- upstream test data

def test_extrap_repository_examples(tmp_path):
    base = _git_files(EXTRAP_REPO, "tests/data", tmp_path)
    for sub in ("text", "json", "jsonlines"):
        for path in sorted((base / sub).rglob("*")):
            if path.is_file():
                table = read_profiles(path)
                assert len(table) > 0 and table["value"].notna().all(), path
    table = read_profiles(base / "cubeset" / "single_parameter")
    assert sorted(table["x"].unique()) == [1, 10, 25, 50, 100, 250, 500, 1000, 2000]
    # Extra-P's multi-parameter Cube set also holds Score-P's scorep.cfg and one Cube GUI profile.ini
    with pytest.warns(ParseWarning, match=r"skipped .*by name: scorep\.cfg \(\d+\), profile\.ini \(1\)"):
        multi = read_profiles(base / "cubeset" / "multi_parameter")
    assert {"x", "y", "z"} <= set(multi.columns) and multi["profile"].str.endswith("profile.cubex").all()
    from pycubexr import CubexParser

    cube = base / "cubeset" / "single_parameter" / "mm.x10y1z1.r1" / "profile.cubex"
    ours = read_profiles(cube)
    with CubexParser(cube) as parser:
        values = parser.get_metric_values(parser.get_metric_by_name("time"))
        for cnode in parser.all_cnodes():
            row = ours[(ours["name"] == parser.get_region(cnode).name) & (ours["metric"] == "time")
                       & (ours["aggregation"] == "sum") & (ours["kind"] == "inclusive")]
            assert row["value"].tolist() == [values.value(cnode, convert_to_inclusive=True)]


def test_thicket_repository_caliper_files(tmp_path):
    base = _git_files(THICKET_REPO, "thicket/tests/data/mpi_scaling_cali", tmp_path)
    table = read_profiles(base)
    assert sorted(table["processes"].unique()) == [27, 64, 125, 216, 343]
    assert (table["problem_size"] == 30).all() and "numhosts" in table
    from caliperreader import CaliperReader

    reader = CaliperReader()
    reader.read(str(base / "64_cores.cali"))
    ours = table[table["profile"].str.endswith("64_cores.cali")]
    n = 0
    for record in reader.records:
        if "path" not in record:
            continue
        path = record["path"] if isinstance(record["path"], list) else [record["path"]]
        got = ours[(ours["region"] == "->".join(path)) & (ours["aggregation"] == "max")]["value"]
        assert got.tolist() == [float(record["max#inclusive#sum#time.duration"])]
        n += 1
    assert n > 30
    raja = _git_files(THICKET_REPO, "thicket/tests/data/rajaperf/quartz", tmp_path / "r")
    table = read_profiles(raja)
    assert table["profile"].nunique() == 5 and "ProblemSizeRunParam" in table
    assert sorted(table.drop_duplicates("profile")["run"]) == [0, 0, 1, 2, 3]  # 4 repeats of one size


def test_optional_readers_are_installed():
    assert importlib.util.find_spec("caliperreader") and importlib.util.find_spec("pycubexr")


def test_processes_and_progress_bar_give_the_same_table(fixtures):
    serial = read_profiles(fixtures["caliper"])
    parallel = read_profiles(fixtures["caliper"], n_jobs=2, progress=True)
    pd.testing.assert_frame_equal(serial, parallel)
    mixed = read_profiles([fixtures["extrap-text"], fixtures["caliper"], fixtures["cube"]], n_jobs=2)
    assert set(mixed["format"]) == {"extrap-text", "caliper", "cube"}
    assert mixed.groupby("format")["profile"].nunique().to_dict() == {"caliper": 10, "cube": 10, "extrap-text": 10}


def test_dask_client_gives_the_same_table_with_a_bar(fixtures, capsys):
    distributed = pytest.importorskip("dask.distributed")
    serial = read_profiles(fixtures["caliper"])
    mixed = [fixtures["extrap-text"], fixtures["caliper"], fixtures["cube"]]
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = read_profiles(fixtures["caliper"], client=client, progress=True)
        assert "reading profiles" in capsys.readouterr().err  # the tqdm bar
        mixed_dask = read_profiles(mixed, client=client)
        with pytest.raises(DataFormatError, match="not a readable Caliper"):
            bad = fixtures["caliper"].parent / "bad_for_dask"
            bad.mkdir(exist_ok=True)
            (bad / "broken.cali").write_text("__rec=node,id=0,attr=8,data=oops\n__rec=ctx,ref=99\n")
            read_profiles(bad, client=client)
    pd.testing.assert_frame_equal(serial, on_dask)
    pd.testing.assert_frame_equal(read_profiles(mixed), mixed_dask)


def test_folder_with_other_files_skips_them_with_one_warning(fixtures, tmp_path):
    folder = tmp_path / "runs"
    shutil.copytree(fixtures["caliper"], folder)
    (folder / "mm.r1").mkdir()
    (folder / "mm.r1" / "profile.ini").write_text("[globalSettings]\nMainWindow\\precision\\prec0=2\n")
    (folder / "scorep.cfg").write_text("SCOREP_ENABLE_PROFILING=true\n")
    (folder / "notes.md").write_text("# runs of 2026-11-27\n")
    with pytest.warns(ParseWarning, match=r"3 file\(s\) of no profile format skipped") as caught:
        table = read_profiles(folder)
    message = str(caught[0].message)
    assert "profile.ini" in message and "scorep.cfg" in message and "notes.md" in message
    assert len([w for w in caught if issubclass(w.category, ParseWarning)]) == 1
    clean = read_profiles(fixtures["caliper"])
    assert table["profile"].nunique() == clean["profile"].nunique() == 10
    assert np.array_equal(table["value"].to_numpy(), clean["value"].to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error", ParseWarning)
        read_profiles(fixtures["caliper"])  # no warning when every file is a profile
    with pytest.warns(ParseWarning, match="profile.ini"):
        parallel = read_profiles(folder, n_jobs=2)
    pd.testing.assert_frame_equal(table, parallel)


@pytest.mark.parametrize("name, content, words", [
    ("run9.cubex", b"\0\1garbage, not a tar archive" * 20, "run9.cubex: named like a profile, but its content "
                                                           "is not a Score-P Cube profile"),
    ("run9.cali", b"this was a Caliper file once\n", "run9.cali: named like a profile, but its content is not "
                                                     "a Caliper"),
    ("run9.jsonl", b"\x00\x01", "run9.jsonl: named like a profile"),
    ("run9.txt", b"__rec=node,id=12,attr=99999,data=x\n__rec=ctx,ref=12,attr=1,data=zz\n",
     "run9.txt: not a readable Caliper"),
])
def test_folder_with_a_damaged_profile_fails_naming_it(fixtures, tmp_path, name, content, words):
    folder = tmp_path / "runs"
    shutil.copytree(fixtures["caliper"], folder)
    (folder / "profile.ini").write_text("[globalSettings]\n")
    (folder / name).write_bytes(content)
    with pytest.raises(DataFormatError, match=words):
        read_profiles(folder)


def test_a_file_that_breaks_the_table_is_named(fixtures, tmp_path):
    """A Caliper file holding one region's record twice (found by the fuzz suite): our error names the file."""
    folder = tmp_path / "runs"
    shutil.copytree(fixtures["caliper"], folder)
    victim = sorted(folder.glob("*.cali"))[3]
    lines = victim.read_text().splitlines(keepends=True)
    ctx = next(line for line in lines if line.startswith("__rec=ctx"))
    victim.write_text("".join(lines) + ctx)
    with pytest.raises(DataFormatError, match=rf"\(profile {victim}\): the same \(profile, region, metric"):
        read_profiles(folder)
