"""Every clarification of every spec in spec/ plays its example, so the published answer
to a player's question cannot drift from the rules the model runs.

A clarification (docs/spec-language.md#clarifications) names a situation file and what
the model must do there; `example_problems` lists each expectation the model misses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import model
from model import ir
from model.loader import any_player_count as _any_player_count
from properties.concrete.clarify import example_problems, situation_path

SPECS = sorted((Path(__file__).resolve().parent.parent / "spec").glob("*.yaml"))


def _clarifications() -> list[tuple[Path, ir.Clarification]]:
    out = []
    for spec in SPECS:
        g = model.load_ir(spec, players=_any_player_count(spec))
        out += [(spec, c) for c in g.clarifications]
    return out


CASES = _clarifications()


@pytest.mark.parametrize(("spec", "clar"), CASES,
                         ids=[f"{s.stem}/{c.id}" for s, c in CASES])
def test_clarification_example_holds(spec: Path, clar: ir.Clarification) -> None:
    problems = example_problems(spec, clar)
    assert not problems, "\n".join(problems)


def test_every_clarification_has_its_own_situation_file() -> None:
    for spec, c in CASES:
        assert situation_path(spec, c.example).is_file(), (spec.name, c.id)
