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
from properties.concrete import trace as tr
from properties.faq.claims import refutations, step_difference

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


# ------------------------------------------------------------ against the published games
STORE = SPECS[0].parent.parent / "docs" / "faq" / "partings"


def _published() -> list[tuple[Path, ir.Ambiguity, ir.Variant, str]]:
    out = []
    for spec, _, amb, v in CASES:
        readings = model.source.read_yaml(STORE / f"{spec.stem}.yaml").data["readings"]
        entry = readings.get(f"{amb.id}={v.name}", {})
        if entry.get("status") == "parted" and (spec, amb, v, entry["replay"]) not in out:
            out.append((spec, amb, v, entry["replay"]))
    return out


PUBLISHED = _published()


@pytest.mark.parametrize(("spec", "amb", "variant", "replay"), PUBLISHED,
                         ids=[f"{s.stem}/{a.id}={v.name}" for s, a, v, _ in PUBLISHED])
def test_claim_agrees_with_the_published_parting_game(spec: Path, amb: ir.Ambiguity,
                                                      variant: ir.Variant, replay: str) -> None:
    """The step where the FAQ's parting game (z3's shortest, or a shrunk lock-step game)
    parts the readings differs only in what `differs_in` allows, where `parts_only_when`
    holds."""
    data = tr.read_replay(STORE / replay)
    old = tr.replay({**data, "variants": {amb.id: amb.default}})[1]
    new = tr.replay({**data, "variants": {amb.id: variant.name}})[1]
    before = old[-1]
    legal = [str(a) for a in old[-1].legal_actions()], [str(a) for a in new[-1].legal_actions()]
    if old[-1].to_dict() == new[-1].to_dict() and legal[0] != legal[1]:
        seen = frozenset({"legal"})
    elif not data["actions"]:
        seen = frozenset({"components" if old[0].game.ir.kinds != new[0].game.ir.kinds
                          else "setup"})
    else:
        before = old[-2]
        seen = step_difference(before, old[-1], new[-1])
    assert seen, "the published game does not part the readings at its end"
    if variant.differs_in is not None:
        assert seen <= set(variant.differs_in), (
            f"they part in {sorted(seen)}; differs_in says {sorted(variant.differs_in)}")
    condition = before.game.ns["PARTS_ONLY_WHEN"].get((amb.id, variant.name))
    if condition is not None and data["actions"]:
        # the condition is of the state where the readings' states first differ at all:
        # a player may see the difference only later (a variable differs first)
        first = next((k for k in range(1, len(old) - 1)
                      if old[k].to_dict() != new[k].to_dict()), None)
        if first is not None:
            before = old[first - 1]
        assert condition(before.z, before.v), "they part where parts_only_when does not hold"
