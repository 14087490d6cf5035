"""What a rationale claims about how two readings differ, and a concrete check of it.

A variant of an ambiguity may state, in `differs_in`, the parts of the game in which
it can differ from the ruling at a step where the two part, and in `parts_only_when`
a condition that holds wherever they part (docs/spec-language.md#how-readings-differ).
This module defines those parts as code — `step_difference` is the definition — and
plays random games under the ruling, comparing every step with the same step under
the reading. A step that differs in a part the claim leaves out, or where the
condition does not hold, refutes the claim. Random games can refute a claim, never
prove one; the symbolic parting-game search is the proof.

The parts (`model.ir.OBSERVABLES`), for a common state and one action legal in both:

- `components`: the kinds or copies of cards and tokens differ (before any play);
- `setup`: the state after the first deal differs (same seed);
- `legal`: the legal actions in the state differ;
- `round_end`: the action ends the round (or the game) under one reading only; what
  follows from that (the scoring, a new deal) is not compared;
- `game_end`: the action ends a round under both readings and the game under one only;
  the scores are compared, what follows (a new deal under one) is not;
- `scores`: the scores; `active`: who acts next; `winners`: the winners of a game both
  readings end; `state`: any other zone or variable.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import attrs

import model
from model import Game, ModelError, SpecError, State, ir


@attrs.frozen
class Refutation:
    """A step where a reading parts from the ruling in a way its claim does not allow."""

    ambiguity: str
    variant: str
    players: int
    seed: int
    actions: tuple[str, ...]  # from the deal of `seed` to the state where they part
    action: str | None  # the action whose results differ (None: the legal actions differ)
    observed: frozenset[str]
    reason: str

    def __str__(self) -> str:
        where = f"after the deal of seed {self.seed}" + (
            f" and the actions {' / '.join(self.actions)}" if self.actions else "")
        step = f", on {self.action}" if self.action else ""
        return (f"{self.ambiguity}={self.variant}, {self.players} players, {where}{step}: "
                f"{self.reason}")


def step_difference(before: State, a: State, b: State) -> frozenset[str]:
    """The parts in which `a` and `b`, the results of one action from `before` under two
    readings, differ (empty: the step does not part them)."""
    ended_a = a.is_terminal or a.round != before.round
    ended_b = b.is_terminal or b.round != before.round
    if ended_a != ended_b:
        return frozenset({"round_end"})
    out = set()
    if a.scores != b.scores:
        out.add("scores")
    if a.is_terminal != b.is_terminal:
        out.add("game_end")  # one reading deals a new round, the other does not
        return frozenset(out)
    da, db = a.to_dict(), b.to_dict()
    if da["active"] != db["active"]:
        out.add("active")
    if da["zones"] != db["zones"] or da["vars"] != db["vars"]:
        out.add("state")
    if a.is_terminal and a.winners != b.winners:
        out.add("winners")
    return frozenset(out)


def state_difference(state: State, twin: State) -> Iterator[tuple[str | None, frozenset[str]]]:
    """Each way the ruling's `state` and the reading's `twin` (the same situation) part:
    ("legal" when their legal actions differ, else per action the parts that differ)."""
    mine = [str(x) for x in state.legal_actions()]
    if mine != [str(x) for x in twin.legal_actions()]:
        yield None, frozenset({"legal"})
        return
    base = state.game.state_from_dict(state.to_dict())  # the same chance as the twin
    for text in mine:
        try:
            a = base.apply(base.game.parse_action(text))
            b = twin.apply(twin.game.parse_action(text))
        except ModelError:
            continue
        diff = step_difference(base, a, b)
        if diff:
            yield text, diff


def refutations(spec: str, players: int, amb: ir.Ambiguity, variant: ir.Variant, *,
                games: int = 20, max_steps: int = 300) -> Iterator[Refutation]:
    """Steps of random games (under the ruling) that contradict `variant`'s claims."""
    claim = set(variant.differs_in) if variant.differs_in is not None else None
    base = model.load(spec, players=players)
    other = model.load(spec, players=players, variants={amb.id: variant.name})
    condition = base.ns["PARTS_ONLY_WHEN"].get((amb.id, variant.name))

    def judge(seed: int, trace: list[str], state: State | None, action: str | None,
              seen: frozenset[str]) -> Refutation | None:
        reasons = []
        if claim is not None and not seen <= claim:
            reasons.append(f"they differ in {', '.join(sorted(seen - claim))}, which "
                           f"differs_in ({', '.join(sorted(claim)) or 'nothing'}) leaves out")
        if condition is not None and state is not None and not condition(state.z, state.v):
            reasons.append("they part where parts_only_when does not hold")
        if not reasons:
            return None
        return Refutation(amb.id, variant.name, players, seed, tuple(trace), action, seen,
                          "; ".join(reasons))

    if base.ir.kinds != other.ir.kinds:
        found = judge(0, [], None, None, frozenset({"components"}))
        if found is not None:
            yield found
        return
    for seed in range(games):
        state = base.initial_state(seed)
        if state.to_dict() != other.initial_state(seed).to_dict():
            found = judge(seed, [], None, None, frozenset({"setup"}))
            if found is not None:
                yield found
            continue
        rng = random.Random(seed)
        trace: list[str] = []
        for _ in range(max_steps):
            if state.is_terminal:
                break
            twin = _twin(other, state)
            if twin is None:
                break
            for action, seen in state_difference(state, twin):
                found = judge(seed, trace, state, action, seen)
                if found is not None:
                    yield found
            actions = state.legal_actions()
            action_taken = actions[rng.randrange(len(actions))]
            trace.append(str(action_taken))
            try:
                state = state.apply(action_taken)
            except ModelError:
                break


def _twin(other: Game, state: State) -> State | None:
    try:
        return other.state_from_dict(state.to_dict(), checked=False)
    except SpecError:
        return None
