"""Shuffles are canonical by kind name: the same seed deals the same cards even when a
spec declares its kinds in another order (common random numbers for `rulespec diff`)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import model
from model.chance import SeededChance, canonical_order
from model.schema import SPEC_DIR


def _reversed_kinds(spec: str, tmp_path: Path) -> Path:
    """A copy of a spec whose card kinds are declared in the opposite order."""
    text = (SPEC_DIR / f"{spec}.yaml").read_text(encoding="utf-8")
    start = text.index("cards:")
    block = text.index("  kinds:\n", start) + len("  kinds:\n")
    lines = text[block:].split("\n")
    n = next(i for i, ln in enumerate(lines) if not re.match(r"\s+- \{name:", ln))
    assert n >= 3, "expected the kinds as one flow mapping per line"
    text = text[:block] + "\n".join(lines[:n][::-1] + lines[n:])
    path = tmp_path / f"{spec}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _by_name(game: model.Game, state: model.State) -> dict:
    d = state.to_dict()
    return {"zones": d["zones"], "vars": d["vars"]}


@pytest.mark.parametrize("spec", ["lama", "kadabra"])
def test_reordered_kinds_deal_the_same_cards(spec: str, tmp_path: Path) -> None:
    old = model.load(spec, players=3)
    new = model.load(_reversed_kinds(spec, tmp_path), players=3)
    assert old.kind_names != new.kind_names
    assert sorted(old.kind_names) == sorted(new.kind_names)
    for seed in range(20):
        assert _by_name(old, old.initial_state(seed)) == _by_name(new, new.initial_state(seed))


def test_the_pile_order_before_a_shuffle_does_not_matter() -> None:
    canonical = canonical_order(["b", "a", "c"], ["cards"] * 3)
    pile = [0, 0, 1, 2, 2, 1]
    outcomes = set()
    for _ in range(5):
        mixed = pile[:]
        random.Random(len(outcomes)).shuffle(mixed)
        SeededChance(7, 3, canonical).shuffle(mixed)
        outcomes.add(tuple(mixed))
    assert len(outcomes) == 1


def test_a_plain_sort_when_names_follow_the_declaration() -> None:
    assert canonical_order(["1", "2", "llama", "white", "black"],
                           ["cards", "cards", "cards", None, None]) is list.sort
    assert canonical_order(["2", "1"], ["cards", "cards"]) is not list.sort
