"""The README blocks the tools write (``<!-- NAME:begin -->`` ... ``<!-- NAME:end -->``)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def write_readme_block(begin: str, end: str, body: str, *, append: bool = False) -> None:
    """Replace what README.md holds between the markers ``begin`` and ``end`` with ``body``;
    a README without them gets the block at its end when ``append``, else SystemExit."""
    text = README.read_text()
    block = f"{begin}\n{body}{end}"
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    elif append:
        text += "\n" + block + "\n"
    else:
        raise SystemExit(f"README.md has no {begin} ... {end} block to write into")
    README.write_text(text)


def publish(text: str, out: Path | None = None, block: str | None = None) -> None:
    """A benchmark's markdown ``text`` (a title line, a blank line, the rest): print it, write
    it to ``out`` and, without its title, into README's ``<!-- block:begin -->`` block."""
    print(text)
    if out:
        Path(out).write_text(text)
    if block:
        write_readme_block(f"<!-- {block}:begin -->", f"<!-- {block}:end -->", text.split("\n", 2)[2])
