"""The FAQ: every ambiguity appears, and each example really is a place where the
readings part (replayed here independently of the FAQ code's own comparison)."""

from __future__ import annotations

import random

import model
from model import ir
from properties.faq.entries import build
from properties.faq.markdown import render
from properties.faq.search import find_divergence


def test_faq_lists_every_ambiguity_with_its_ruling() -> None:
    text = render(build("lama", players=3, games=5))
    g = model.load_ir("lama", players=3)
    for amb in g.ambiguities:
        assert f"id `{amb.id}`" in text
        assert f"**Ruling: `{amb.default}`.**" in text


def _amb(game_id: str, amb_id: str) -> ir.Ambiguity:
    return next(a for a in model.load_ir(game_id, players=3).ambiguities if a.id == amb_id)


def test_divergence_replays_from_seed_and_actions() -> None:
    amb = _amb("lama", "next_round_starter")
    found = find_divergence("lama", 3, amb, "first_seat", games=10)
    assert found is not None and found.seed is not None
    base = model.load("lama", players=3)
    other = model.load("lama", players=3, variants={"next_round_starter": "first_seat"})
    rng = random.Random(found.seed)
    state = base.initial_state(found.seed)
    for text in found.actions:  # the same random game `rulespec play --seed` plays
        actions = state.legal_actions()
        assert str(actions[rng.randrange(len(actions))]) == text
        state = state.apply(base.parse_action(text))
    twin = other.state_from_dict(state.to_dict())
    mine = base.state_from_dict(state.to_dict())
    parted = any(mine.apply(base.parse_action(str(a))).to_dict()
                 != twin.apply(other.parse_action(str(a))).to_dict()
                 for a in mine.legal_actions())
    assert parted or [str(a) for a in mine.legal_actions()] != [
        str(a) for a in twin.legal_actions()]


def test_same_reading_never_diverges() -> None:
    amb = _amb("lama", "chip_exchange")
    assert find_divergence("lama", 3, amb, amb.default, games=3) is None
