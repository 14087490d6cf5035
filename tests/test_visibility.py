"""Visibility: a zone's `sees:` and a pile's `top:`, what a seat observes, and the
property that the player to act has the same legal actions in states that look alike.

The language part: the keys are read with positioned errors and a spec that does not
use them means what it meant (everyone sees everything). The state part: an observation
hides what the seat cannot see, keeps the rest, and a redeal changes only what is hidden.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import model
from model import SpecError

ROOT = Path(__file__).resolve().parent.parent
LAMA = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
STOCK = "  stock: {order: pile, holds: cards, sees: nobody, cite: lama.en#L11}"
HAND = "  hand: {order: bag, holds: cards, per: player, sees: owner, cite: lama.en#L11}"


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the shipped LAMA spec with one zone line replaced."""
    text = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith(old))
    path = tmp_path / "lama.yaml"
    path.write_text(text.replace(line, new), encoding="utf-8")
    return path


def _error(path: Path) -> SpecError:
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    return info.value


@pytest.mark.parametrize(("old", "new", "message", "at"), [
    ("  stock:", "  stock: {order: pile, holds: cards, sees: secret}",
     "zones/stock/sees: expected one of everyone, owner, nobody, found 'secret'", "sees:"),
    ("  stock:", "  stock: {order: pile, holds: cards, sees: owner}",
     "sees: owner needs a zone with per: player", "sees:"),
    ("  stock:", "  stock: {order: pile, holds: cards, sees: nobody, top: sometimes}",
     "expected one of everyone, owner, nobody, found 'sometimes'", "top:"),
    ("  stock:", "  stock: {order: pile, holds: cards, top: everyone}",
     "top: everyone shows the top to no more players than sees: everyone", "top:"),
    ("  stock:", "  stock: {order: pile, holds: cards, sees: nobody, top: owner}",
     "top: owner needs a zone with per: player", "top:"),
    ("  hand:", "  hand: {order: bag, holds: cards, per: player, sees: owner, top: everyone}",
     "top: is for a pile; a bag has no top", "top:"),
    ("  hand:", "  hand: {order: bag, holds: cards, per: player, sees: owner, top: owner}",
     "a bag has no top", "top:"),
])
def test_a_bad_visibility_is_a_positioned_error(tmp_path: Path, old: str, new: str,
                                                message: str, at: str) -> None:
    path = _variant(tmp_path, old, new)
    err = _error(path)
    assert message in str(err)
    lines = path.read_text(encoding="utf-8").splitlines()
    row = next(i for i, x in enumerate(lines, 1) if x == new)
    # the error points at the value of the key at fault
    assert (err.where.line, err.where.column) == (row, new.index(at) + len(at) + 2), err.where
