"""`score.better`: each spec says whether a lower or a higher score is better."""

from __future__ import annotations

from pathlib import Path

import pytest

import model
from model.schema import SPEC_DIR

LAMA = (SPEC_DIR / "lama.yaml").read_text(encoding="utf-8")
STATED = "  better: lower   # penalty points"


@pytest.mark.parametrize("spec", sorted(p.stem for p in SPEC_DIR.glob("*.yaml")))
def test_every_spec_states_which_score_is_better(spec: str) -> None:
    game = model.load(spec, players=model.load_ir(spec, players=2).min_players)
    assert game.ir.score_better in ("lower", "higher")


def test_the_rulebooks_direction_is_read(tmp_path: Path) -> None:
    assert model.load("lama", players=3).ir.score_better == "lower"
    assert model.load("lambada", players=3).ir.score_better == "higher"


def test_unstated_is_none(tmp_path: Path) -> None:
    assert STATED in LAMA
    path = tmp_path / "unstated.yaml"
    path.write_text(LAMA.replace(STATED, "  #"), encoding="utf-8")
    assert model.load(path, players=3).ir.score_better is None


def test_a_third_direction_is_a_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "sideways.yaml"
    path.write_text(LAMA.replace(STATED, "  better: sideways  #"), encoding="utf-8")
    with pytest.raises(model.SpecError) as info:
        model.load(path, players=3)
    assert "score/better" in str(info.value) and "lower, higher" in str(info.value)
    assert info.value.where.line == LAMA[: LAMA.index(STATED)].count("\n") + 1
