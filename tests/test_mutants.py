"""The property suite catches deliberately broken specs, with short replayable traces.

Each file in tests/mutants/ is spec/lama.yaml with one bug (its header says which).
For each, at the fewest and the most players, the Hypothesis state machine must find
the failure of the property that catches it and shrink the trace to at most 10
actions, and `rulespec replay` of the replay file it writes must reproduce the
failure (exit 1, naming the property).

A spec cannot break conservation (no effect creates or destroys an item), so that
check guards the back end: its mutant breaks the runtime (`FAULTS`) rather than the
spec.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from model import runtime
from properties.cli import main
from properties.concrete import trace as tr
from properties.concrete.stateful import CHECKS, Config, run_config

MUTANTS = Path(__file__).parent / "mutants"

#: With pytest-xdist, run these on one worker, so each mutant's run is made once.
pytestmark = pytest.mark.xdist_group("mutants")

#: mutant file -> the property that must catch it
CASES = {
    "lama_play_keeps_card": "round_ends",
    "lama_draw_duplicates": "conservation",
    "lama_round_never_ends": "round_ends",
}



def _copying_move_pb(src: list[int], dst: list[int], k: int, n: int) -> None:
    """A broken move from a pile to a bag: the items arrive but also stay on the pile."""
    dst[k] += n


#: mutant file -> (runtime function, its broken replacement) while the mutant runs
FAULTS = {"lama_draw_duplicates": ("move_pb", _copying_move_pb)}


@contextlib.contextmanager
def fault(name: str) -> Iterator[None]:
    """The mutant's broken runtime, if it has one, for the duration."""
    if name not in FAULTS:
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runtime, *FAULTS[name])
        yield


@pytest.fixture(scope="module", params=[(m, n) for m in sorted(CASES) for n in (2, 6)],
                ids=lambda p: f"{p[0]}-{p[1]}p")
def caught(request):
    name, players = request.param
    spec = MUTANTS / f"{name}.yaml"
    prop = CASES[name]
    with fault(name):
        outcomes = run_config(spec, Config(players=players), "ci", checks=[prop])
    return name, prop, outcomes[prop]


def test_mutant_is_caught_with_a_short_trace(caught):
    name, prop, outcome = caught
    assert outcome.status == "fails", f"{name}: {prop} was not caught: {outcome.message}"
    assert outcome.trace is not None
    assert 1 <= len(outcome.trace.actions) <= 10, outcome.trace.actions


def test_replay_reproduces_the_failure(caught, tmp_path):
    name, prop, outcome = caught
    data = outcome.replay
    path = tmp_path / f"{name}.yaml"
    tr.write_replay(path, spec=data["spec"], players=data["players"], seed=0,
                    variants=data["variants"], actions=data["actions"], note=outcome.message,
                    shuffles=data["shuffles"], prop=prop)
    with fault(name):
        result = CliRunner().invoke(main, ["replay", str(path), "--quiet"])
    assert result.exit_code == 1, result.output
    assert f"reproduced: {prop} fails at step {len(data['actions'])}" in result.output
    # one numbered line per action, each with the rulebook lines it rests on
    numbered = [line for line in result.output.splitlines() if line[:4].strip().rstrip(".")
                .isdigit()]
    assert len(numbered) == len(data["actions"])
    assert all("[" in line and "#L" in line for line in numbered)


def test_the_readable_failure_shows_deal_actions_and_replay(caught):
    name, prop, outcome = caught
    with fault(name):  # the text replays the failure
        text = tr.failure_text(outcome.replay, "replays/x.yaml")
    assert text.startswith(f"{prop} fails:")
    assert "the deal:" in text
    assert "rulespec replay replays/x.yaml" in text
    assert f"{prop} FAILS here" in text


def test_the_fault_breaks_what_the_draw_duplicates_mutant_calls():
    """The broken runtime function is the one this mutant's draw runs (else the mutant
    would test nothing)."""
    game = model.load(MUTANTS / "lama_draw_duplicates.yaml", players=2)
    assert f"r.{FAULTS['lama_draw_duplicates'][0]}(" in game.source


def test_the_unbroken_spec_holds_where_the_mutants_fail():
    spec = Path(__file__).parent.parent / "spec" / "lama.yaml"
    outcomes = run_config(spec, Config(players=2), "ci", examples=10, checks=CHECKS)
    assert {p: o.status for p, o in outcomes.items()} == dict.fromkeys(CHECKS, "holds")
