"""Runs situation files: a written-down state, its expected legal actions, and what
happens after given actions. The expectations in these files come from the rulebooks,
not from the model's output.

File format (YAML):

    game: lama            # a game id of spec/ or a path
    players: 3
    variants: {}          # optional: ambiguity -> variant
    rule: what the scenario shows, with citations
    situation: {...}      # the state, as in model/situation.py
    legal: [play 6, ...]  # optional: exactly the legal actions, in order
    illegal: [play 2]     # optional: actions that must be rejected
    steps:                # optional: actions applied in turn, each with expectations
      - do: play llama
        expect:
          active: 1
          zones: {discard: ["6", llama]}   # only the zones named are compared
          vars: {quit: [false, false, true]}
          scores: [0, 5, 11]
          winners: [1]
          terminal: false
          round: 2
          legal: [draw, quit]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import model
from model import IllegalAction, State
from properties.concrete.clarify import outcome_problems

SITUATIONS = Path(__file__).parent / "situations"


def load_scenario(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def run_scenario(path: Path) -> None:
    sc = load_scenario(path)
    game = model.load(sc["game"], players=sc["players"], variants=sc.get("variants") or {})
    state = game.state_from_dict(sc["situation"], str(path))
    if "legal" in sc:
        assert [str(a) for a in state.legal_actions()] == sc["legal"], path.name
    for text in sc.get("illegal", []):
        before = state.to_dict()
        try:
            state.apply(game.parse_action(text))
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{path.name}: {text!r} was accepted")
        assert state.to_dict() == before
    for i, step in enumerate(sc.get("steps", [])):
        state = state.apply(game.parse_action(step["do"]))
        _compare(state, step.get("expect", {}), f"{path.name} step {i + 1} ({step['do']})")


def _compare(state: State, expect: dict[str, Any], label: str) -> None:
    problems = outcome_problems(state, expect, label)
    assert not problems, "\n".join(problems)
