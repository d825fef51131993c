"""The documentation blocks the tools write (``<!-- NAME:begin -->`` ... ``<!-- NAME:end -->``).

A block lives in exactly one of README.md and docs/**/*.md: the tools find the file that holds its
markers, so moving a block (markers and content) to another page needs no change to the tool that
writes it.  A marker may carry a note after its name (``<!-- screenshots:begin (rewritten by ...) -->``):
``begin`` is matched as a prefix of its line.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def documents(root: Path = ROOT) -> list[Path]:
    """The files a block may live in: ``root``'s README.md, then every ``docs/**/*.md``, sorted."""
    readme = root / "README.md"
    return ([readme] if readme.is_file() else []) + sorted((root / "docs").rglob("*.md"))


def _span(text: str, begin: str, end: str) -> tuple[int, int] | None:
    """Offsets of the block's body (after the ``begin`` line, up to the ``end`` marker), if any."""
    start = re.search(rf"^{re.escape(begin)}[^\n]*\n", text, flags=re.M)
    if start is None:
        return None
    stop = text.find(end, start.end())
    return None if stop < 0 else (start.end(), stop)


def find_block(begin: str, end: str, root: Path = ROOT) -> Path | None:
    """The one document holding the markers ``begin`` ... ``end``; None when none does.

    Raises
    ------
    SystemExit
        When several documents hold them (the tool could not know which to write).
    """
    found = [path for path in documents(root) if _span(path.read_text(encoding="utf-8"), begin, end)]
    if len(found) > 1:
        names = ", ".join(str(p.relative_to(root)) for p in found)
        raise SystemExit(f"the block {begin} ... {end} is in several files ({names}); keep it in one")
    return found[0] if found else None


def write_readme_block(begin: str, end: str, body: str, *, append: bool = False, root: Path = ROOT) -> Path:
    """Replace what the document holding ``begin`` ... ``end`` has between them with ``body``.

    Parameters
    ----------
    begin, end : str
        The markers, e.g. ``"<!-- adept-speed:begin -->"`` and ``"<!-- adept-speed:end -->"``.
    body : str
        The new content, ending with a newline.
    append : bool, default False
        When no document holds the markers, append the block to README.md instead of failing.
    root : Path, default the repository
        Where README.md and docs/ are.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    SystemExit
        When no document holds the markers (and not ``append``), or several do.
    """
    path = find_block(begin, end, root)
    if path is None:
        if not append:
            raise SystemExit(f"no file of README.md, docs/**/*.md has a {begin} ... {end} block to write into")
        path = root / "README.md"
        path.write_text(path.read_text(encoding="utf-8") + f"\n{begin}\n{body}{end}\n", encoding="utf-8")
        return path
    text = path.read_text(encoding="utf-8")
    start, stop = _span(text, begin, end)
    path.write_text(text[:start] + body + text[stop:], encoding="utf-8")
    return path


def publish(text: str, out: Path | None = None, block: str | None = None) -> Path | None:
    """A benchmark's markdown ``text`` (a title line, a blank line, the rest): print it, write it to
    ``out`` and, without its title, into the ``<!-- block:begin -->`` block of README.md or docs/.

    Returns
    -------
    Path or None
        The document the block was written to.
    """
    print(text)
    if out:
        Path(out).write_text(text)
    if block:
        return write_readme_block(f"<!-- {block}:begin -->", f"<!-- {block}:end -->", text.split("\n", 2)[2])
    return None
