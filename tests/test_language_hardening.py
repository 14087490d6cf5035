"""Issue 22, the language side: regression tests, one block per finding.

Each test writes a broken (or surprising) copy of spec/lama.yaml, or a situation file,
and checks that the mistake ends as one `file:line:column: what was expected` error
(a `SpecError`, exit 2) instead of being accepted and misread.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import model
from model import SpecError

ROOT = Path(__file__).resolve().parent.parent
LAMA = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")


def lama_with(tmp_path: Path, old: str, new: str, name: str = "broken.yaml") -> Path:
    """A copy of spec/lama.yaml with `old` replaced once by `new`."""
    assert old in LAMA, old
    path = tmp_path / name
    path.write_text(LAMA.replace(old, new, 1), encoding="utf-8")
    return path


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of the first `fragment` in `text`."""
    return text[: text.index(fragment)].count("\n") + 1


def spec_error(path: Path, players: int = 3) -> SpecError:
    with pytest.raises(SpecError) as info:
        model.load(path, players=players)
    return info.value


# ------------------------------------------------- 1. move_all(bag, ..., keep=n)
QUIT = "      - move_all(hand[active], out[active])"


def test_keep_on_a_bag_is_refused_where_it_is_written(tmp_path: Path) -> None:
    """A bag has no top, so `keep=` cannot say what stays; both back ends ignored it."""
    new = "      - move_all(hand[active], out[active], keep=2)"
    error = spec_error(lama_with(tmp_path, QUIT, new))
    assert error.where.line == line_of(LAMA, QUIT)
    assert error.where.column == new.index("keep=") + 1
    assert "keep" in error.message and "hand" in error.message and "bag" in error.message


def test_keep_on_a_pile_is_still_allowed() -> None:
    assert "keep=1" in LAMA and model.load("lama", players=3) is not None
