"""Rationales that say how two readings differ are checked against play.

A variant's `differs_in` and `parts_only_when` (docs/spec-language.md#how-readings-differ)
record what its rationale claims; random games under the ruling, compared step by step
with the same steps under the reading, must show no step that contradicts the claim.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import model
from model import ir
from model.loader import any_player_count as _any_player_count
from properties.faq.claims import refutations

SPECS = sorted((Path(__file__).resolve().parent.parent / "spec").glob("*.yaml"))


def _claims() -> list[tuple[Path, int, ir.Ambiguity, ir.Variant]]:
    out = []
    for spec in SPECS:
        g = model.load_ir(spec, players=_any_player_count(spec))
        for amb in g.ambiguities:
            for v in amb.variants:
                if v.differs_in is not None or v.parts_only_when is not None:
                    for n in sorted({g.min_players, g.max_players}):
                        out.append((spec, n, amb, v))
    return out


CASES = _claims()


@pytest.mark.parametrize(("spec", "players", "amb", "variant"), CASES,
                         ids=[f"{s.stem}/{a.id}={v.name}/{n}p" for s, n, a, v in CASES])
def test_claim_is_not_refuted_by_random_games(spec: Path, players: int, amb: ir.Ambiguity,
                                              variant: ir.Variant) -> None:
    found = next(refutations(str(spec), players, amb, variant, games=6, max_steps=200), None)
    assert found is None, str(found)
