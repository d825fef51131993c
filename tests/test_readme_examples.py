"""Every code block of README.md and docs/**/*.md runs, and the tables the tools write are where they say.

How the blocks are run (the convention is stated at the end of README.md):

* ```` ```python ```` blocks run in one namespace per file, ```` ```bash ```` / ```` ```sh ```` blocks in
  ``bash -euo pipefail``, ```` ```console ```` blocks' ``$ `` lines likewise; all of one file in document
  order, in one subprocess (``PYTHONPATH`` = this checkout, ``WORKBENCH_DATA_MIRROR`` set, a timeout),
  in a fresh folder that links the checkout's top-level entries (so ``data/templates/my_runs.csv``
  resolves and outputs such as ``preds.csv`` land in the folder) and ``.venv`` to the running
  interpreter's environment (so ``.venv/bin/workbench`` is the console script of this install).
  The first block that fails stops the file and is named by file and line.
* A block preceded by ``<!-- not-run: REASON -->`` (a server, minutes of CPU, a cluster) is not run;
  the reason is required.
* ```` ```csv ```` blocks are read with :func:`workbench.io.read_scaling_csv`; ```` ```text ```` blocks are
  prose.  A block without a language, or with another one, fails the test: nothing is skipped silently.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import doc_tables  # noqa: E402  (tools/)
from readme_block import documents, find_block, write_readme_block  # noqa: E402

RUN = {"python", "bash", "sh", "console"}
DATA = {"csv", "text"}
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(?P<reason>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+)(?P<lang>[\w+-]*)\s*$")
TIMEOUT_S = 600


@dataclass(frozen=True)
class Block:
    path: Path
    line: int        # 1-based line of the opening fence
    lang: str
    code: str
    not_run: str | None  # the reason, when marked

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, in order (indented fences in list items too)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, indent, fence = i, len(m["indent"]), m["fence"]
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), None)
        if end is None:
            raise AssertionError(f"{path.relative_to(ROOT)}:{i + 1}: code block never closed")
        body = textwrap.dedent("\n".join(line[indent:] if line[:indent].strip() == "" else line
                                         for line in lines[start + 1:end]))
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        mark = NOT_RUN.match(before)
        found.append(Block(path, start + 1, m["lang"], body + "\n", mark["reason"] if mark else None))
        i = end + 1
    return found


DOCUMENTS = documents(ROOT)
ALL_BLOCKS = [b for path in DOCUMENTS for b in blocks(path)]


def test_the_parser_by_hand(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("text\n\n<!-- not-run: starts a server -->\n```bash\nmake dashboards\n```\n\n"
                   "- item:\n\n  ```python\n  x = 1\n  ```\n", encoding="utf-8")
    found = blocks(doc)
    assert [(b.line, b.lang, b.code, b.not_run) for b in found] == [
        (4, "bash", "make dashboards\n", "starts a server"), (10, "python", "x = 1\n", None)]


def test_every_block_is_run_or_says_why_not():
    assert len(DOCUMENTS) >= 10 and ALL_BLOCKS
    bad = [f"{b.where}: ```{b.lang or '(no language)'}" for b in ALL_BLOCKS if b.lang not in RUN | DATA]
    assert not bad, f"blocks with no or an unknown language (use one of {sorted(RUN | DATA)}): {bad}"
    unexplained = [b.where for b in ALL_BLOCKS if b.not_run is not None and not b.not_run]
    assert not unexplained, f"<!-- not-run: --> without a reason: {unexplained}"


def test_the_readme_runs_its_newcomer_examples():
    """The three ways to predict are run, not marked away: a Python example and the CLI."""
    readme = [b for b in ALL_BLOCKS if b.path == ROOT / "README.md"]
    run = [b for b in readme if b.lang in RUN and b.not_run is None]
    assert any(b.lang == "python" and "ScalingPredictor().fit(n, t)" in b.code for b in run)
    assert any("workbench predict " in b.code for b in run)


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.lang == "csv"], ids=lambda b: b.where)
def test_csv_examples_read(block, tmp_path):
    from workbench.io import read_scaling_csv

    path = tmp_path / "example.csv"
    path.write_text(block.code, encoding="utf-8")
    frame = read_scaling_csv(path)
    assert len(frame) == block.code.strip().count("\n")  # every data row became a run


#: Run by the subprocess: executes the blocks of one file in order, stops at the first failure.
DRIVER = r'''
import json, subprocess, sys, traceback
blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for b in blocks:
    print(f"--- {b['where']} ({b['lang']})", flush=True)
    try:
        if b["lang"] == "python":
            exec(compile(b["code"], b["where"], "exec"), namespace)
        else:
            code = b["code"]
            if b["lang"] == "console":
                code = "\n".join(line[2:] for line in code.splitlines() if line.startswith("$ "))
            subprocess.run(["bash", "-euo", "pipefail", "-c", code], check=True, timeout=%(timeout)d)
    except BaseException:
        traceback.print_exc()
        print(f"FAILED: the example at {b['where']}", flush=True)
        sys.exit(1)
'''


def _runnable(path: Path) -> list[Block]:
    return [b for b in blocks(path) if b.lang in RUN and b.not_run is None]


def run_examples(runnable: list[Block], cwd: Path, mirror: Path) -> tuple[int, str]:
    """Run ``runnable`` in order in one subprocess in ``cwd``: (return code, its output)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_DATA_MIRROR": str(mirror),
           "MPLBACKEND": "Agg", "PATH": f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    payload = json.dumps([{"where": b.where, "lang": b.lang, "code": b.code} for b in runnable])
    try:
        done = subprocess.run([sys.executable, "-c", DRIVER % {"timeout": TIMEOUT_S}], input=payload, text=True,
                              capture_output=True, cwd=cwd, env=env, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return -1, f"FAILED: the examples did not finish in {TIMEOUT_S} s"
    return done.returncode, done.stdout + done.stderr


def _failure(path: Path, output: str) -> str:
    failed = re.findall(r"FAILED: the example at (\S+)", output)
    return f"{failed[0] if failed else path.relative_to(ROOT)}: example failed\n{output[-4000:]}"


@pytest.mark.parametrize("path", [p for p in DOCUMENTS if _runnable(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run(path, tmp_path, data_mirror):
    for entry in ROOT.iterdir():
        if entry.name not in {".git", ".venv"}:
            (tmp_path / entry.name).symlink_to(entry)
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    code, output = run_examples(_runnable(path), tmp_path, data_mirror)
    if code:
        pytest.fail(_failure(path, output))


def test_a_broken_example_stops_the_file_and_is_named(tmp_path):
    doc = ROOT / "docs" / "never-written.md"  # only its name is used, for the messages
    runnable = [Block(doc, 3, "python", "x = 41\n", None), Block(doc, 7, "bash", "echo shell ok\n", None),
                Block(doc, 11, "python", "assert x == 42, 'x is 41'\n", None),
                Block(doc, 15, "python", "print('never reached')\n", None)]
    code, output = run_examples(runnable, tmp_path, tmp_path)
    assert code == 1
    assert "shell ok" in output and "x is 41" in output and "never reached" not in output
    assert _failure(doc, output).startswith("docs/never-written.md:11: example failed")
    code, output = run_examples([Block(doc, 2, "bash", "false\necho reached-after\n", None)], tmp_path, tmp_path)
    assert code == 1 and "reached-after\n" not in output.replace("echo reached-after\\n", "")
    assert "docs/never-written.md:2" in _failure(doc, output)


# -- the blocks the tools write ------------------------------------------------------------------

BLOCK_MARK = re.compile(r"^<!-- (?P<name>[\w:.-]+):(?P<side>begin|end)\b", re.M)


def test_every_tool_block_is_closed_and_in_one_file():
    names: dict[str, list[str]] = {}
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        sides = [(m["name"], m["side"]) for m in BLOCK_MARK.finditer(text)]
        begins = [n for n, s in sides if s == "begin"]
        ends = [n for n, s in sides if s == "end"]
        assert sorted(begins) == sorted(ends), f"{path.relative_to(ROOT)}: unmatched block markers {sides}"
        for name in begins:
            names.setdefault(name, []).append(str(path.relative_to(ROOT)))
    doubled = {n: files for n, files in names.items() if len(files) > 1}
    assert not doubled, f"blocks in more than one place (a tool would not know where to write): {doubled}"
    # the README keeps only the summary of the scaling benchmark; the other tables live in docs/
    assert [n for n, files in names.items() if "README.md" in files] == ["scaling-benchmark"]
    for name in ("scaling-benchmark-full", "screenshots", "adept-speed", "batch-throughput-1000",
                 "load-test:default", "load-test:class", "doc-table:holdout"):
        assert name in names, f"the block {name} is missing from README.md and docs/"


def test_a_block_is_written_where_its_markers_are(tmp_path):
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "README.md").write_text("# R\n", encoding="utf-8")
    page = tmp_path / "docs" / "sub" / "p.md"
    page.write_text("a\n<!-- t:begin (note) -->\nold\n<!-- t:end -->\nb\n", encoding="utf-8")
    assert write_readme_block("<!-- t:begin", "<!-- t:end -->", "new\n", root=tmp_path) == page
    assert page.read_text(encoding="utf-8") == "a\n<!-- t:begin (note) -->\nnew\n<!-- t:end -->\nb\n"
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "# R\n"
    with pytest.raises(SystemExit, match="no file"):
        write_readme_block("<!-- u:begin -->", "<!-- u:end -->", "x\n", root=tmp_path)
    assert write_readme_block("<!-- u:begin -->", "<!-- u:end -->", "x\n", append=True,
                              root=tmp_path) == tmp_path / "README.md"
    assert (tmp_path / "README.md").read_text(encoding="utf-8").endswith("<!-- u:begin -->\nx\n<!-- u:end -->\n")
    (tmp_path / "docs" / "q.md").write_text("<!-- t:begin -->\n<!-- t:end -->\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="several files"):
        find_block("<!-- t:begin", "<!-- t:end -->", root=tmp_path)


def _block_body(name: str) -> str:
    begin, end = doc_tables.markers(name)
    path = find_block(begin, end)
    assert path is not None, f"no document holds the doc-table:{name} block"
    text = path.read_text(encoding="utf-8")
    return text[text.index("\n", text.index(begin)) + 1:text.index(end)]


@pytest.mark.parametrize("name", sorted(set(doc_tables.TABLES) - set(doc_tables.SLOW)))
def test_doc_tables_are_current(name, data_mirror):
    """The table in the docs is what its function computes today (rerun tools/doc_tables.py).

    The tables of ``doc_tables.SLOW`` are only checked to be in place (below), not recomputed.
    """
    assert _block_body(name) == doc_tables.TABLES[name](), (
        f"the doc-table:{name} block is stale: run .venv/bin/python tools/doc_tables.py {name}")


LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def test_relative_links_resolve():
    """Moving text between README.md and docs/ keeps its links pointing at files that exist."""
    broken, checked = [], 0
    for path in DOCUMENTS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in LINK.finditer(line):
                target = m["target"].split("#", 1)[0]
                if not target or re.match(r"^[a-z]+:", target):
                    continue  # an anchor on the same page, or http(s)/mailto
                checked += 1
                if not (path.parent / target).exists():
                    broken.append(f"{path.relative_to(ROOT)}:{number}: {m['target']}")
    assert checked > 30
    assert not broken, f"links to files that do not exist: {broken}"


@pytest.mark.parametrize("name", sorted(doc_tables.TABLES))
def test_every_doc_table_has_its_block_and_says_where_it_comes_from(name):
    body = _block_body(name)
    assert f"`tools/doc_tables.py {name}`" in body and "\n|---" in body, f"the doc-table:{name} block is empty"
