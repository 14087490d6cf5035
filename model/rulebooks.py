"""The rulebooks a spec cites: where they are looked for, how long each is, and what a
citation (`rules.en#L17`, `rules.en#L17-L20`) looks like. The loader checks every
`cite:` of a spec against them (`model.reader.SpecReader.check_cites`)."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

from . import schema
from .errors import SpecError, Where
from .source import read_text

#: The rulebooks of the specs in spec/ (shipped with them); `RULESPEC_RULEBOOKS` overrides.
RULEBOOKS = schema.SPEC_DIR / "rulebooks"
#: A citation: a source, and a line or a range of lines of its rulebook.
CITATION = re.compile(r"^([a-z]+\.[a-z]{2})#L(\d+)(?:-L?(\d+))?$")


def rulebook_folders(spec_file: str) -> list[Path]:
    """Where the rulebooks a spec cites are looked for, in order.

    `$RULESPEC_RULEBOOKS` alone when it is set; else a `rulebooks/` folder beside the spec,
    then the rulebooks shipped with the specs of spec/.
    """
    override = os.environ.get("RULESPEC_RULEBOOKS")
    if override:
        return [Path(override)]
    beside = Path(spec_file).resolve().parent / "rulebooks"
    return [beside, RULEBOOKS] if beside != RULEBOOKS.resolve() else [RULEBOOKS]


def find_rulebook(spec_file: str, source: str) -> Path | None:
    """The rulebook file of a source as the spec at `spec_file` finds it, or None."""
    for folder in rulebook_folders(spec_file):
        book = folder / f"{source}.txt"
        if book.is_file():
            return book
    return None


def rulebook_length(book: Path) -> int:
    """Lines in a rulebook file (an edit to it is seen)."""
    return _rulebook_length(book, book.stat().st_mtime_ns)


@functools.cache
def _rulebook_length(book: Path, stamp: int) -> int:
    """Lines in a rulebook (`stamp`, its modification time, makes an edit seen)."""
    try:
        return len(read_text(book).splitlines())
    except SpecError as exc:
        raise SpecError(Where(str(book)), f"cannot read this rulebook: {exc.message}") from None


def cites(value: Any) -> tuple[str, ...]:
    """A `cite:` value (absent, one citation or a list of them) as a tuple of citations."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)
