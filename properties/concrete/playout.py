"""Seeded random playouts with the generic property checks applied after every action.

Each property here is generic: it reads only what the spec declares (kinds and their
copies, the round measure, the invariants), never a game's name or rules.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import attrs

from model import Action, Game, ModelError, State

from .invariants import (
    PROPERTIES,
    RoundMeasure,
    expected_totals,
    first_illegal,
    illegal_problems,
    snapshot,
    state_problems,
)

__all__ = ["PROPERTIES", "Batch", "Counter", "Ends", "Finding", "Limits", "expected_totals", "play_and_check",
           "play_games"]


@attrs.frozen
class Finding:
    """A property that failed in one game: where, and the actions that led there."""

    property: str
    players: int
    seed: int
    message: str
    actions: tuple[str, ...]
    variants: dict[str, str] = attrs.field(factory=dict)


@attrs.define
class Limits:
    max_actions: int = 20_000  # per game
    max_round: int = 5_000  # per round, used where a spec declares no measure
    #: Once a game has run past `max_actions` (game_ends fails), the later games of the
    #: same batch stop at this many actions (see `play_games`).
    after_endless: int = 1_000


@attrs.define
class Ends:
    """What seeded playouts reached besides the actions they took, for coverage: the
    round-end and game-end conditions that ended a round or a game, and how many games and
    rounds were played (the actions are `Batch.fired`)."""

    round_ends: Counter = attrs.field(factory=lambda: Counter())
    game_ends: Counter = attrs.field(factory=lambda: Counter())
    games: int = 0
    rounds: int = 0  # rounds ended
    finished: int = 0  # games played to their end


def play_and_check(game: Game, seed: int, limits: Limits | None = None,
                   deep: bool = False, ends: Ends | None = None
                   ) -> tuple[list[Finding], Counter]:
    """Play one seeded random game, checking every property after every action.

    `deep` adds the costlier checks (value semantics, illegal actions, determinism) on
    every action instead of every 16th.
    """
    limits = limits or Limits()
    rng = random.Random(seed)
    # Odd seeds play with a random preference per action (some actions become rare), so
    # that rules which uniform play seldom reaches (a hand emptied, say) are exercised.
    weights = None if seed % 2 == 0 else [
        rng.random() ** 3 + 1e-3 for _ in game.ir.actions]
    findings: list[Finding] = []
    trace: list[Action] = []  # made text only for a finding (str() costs per action)
    fired = Counter()
    totals = expected_totals(game)
    variants = dict(game.ir.chosen)

    def fail(problems: list[tuple[str, str]]) -> None:
        for prop, message in problems:
            findings.append(Finding(prop, game.players, seed, message,
                                    tuple(str(a) for a in trace), variants))

    try:
        state = game.initial_state(seed)
    except ModelError as exc:
        fail([("rules_defined", f"set-up failed: {exc}")])
        return findings, fired
    fail(state_problems(game, state, totals))
    rounds = RoundMeasure(game, limits.max_round)
    fail(rounds.start(state))
    seen_actions: dict[int, Action] = {}
    steps = 0
    while not state.is_terminal:
        if findings:
            return findings, fired
        if steps >= limits.max_actions:
            fail([("game_ends", f"no end after {steps} actions (round {state.round})")])
            return findings, fired
        actions = state.legal_actions()
        if weights is None:
            action = actions[rng.randrange(len(actions))]
        else:
            action = rng.choices(actions, [weights[a.index] for a in actions])[0]
        for a in actions:
            seen_actions.setdefault(id(a), a)
        check_deep = deep or steps % 16 == 0
        before = snapshot(state) if check_deep else None
        try:
            nxt = state.apply(action)
        except ModelError as exc:
            trace.append(action)
            fail([("rules_defined", str(exc))])
            return findings, fired
        trace.append(action)
        fired[action.name] += 1
        steps += 1
        if ends is not None:
            _count_ends(ends, state, action, nxt)
        if before is not None:
            if snapshot(state) != before:
                fail([("value_semantics", f"apply({action}) changed the state it was applied to")])
            other = first_illegal(actions, seen_actions.values())
            if other is not None:
                fail(illegal_problems(state, other))
            if state.apply(action) != nxt:
                fail([("determinism", f"applying {action} twice gave two different states")])
        fail(rounds.step(state, action, nxt))
        # the observation property costs two redeals and their legal lists: every 4th state
        fail(state_problems(game, nxt, totals, observe=deep or steps % 4 == 0))
        state = nxt
    return findings, fired


def _count_ends(ends: Ends, state: State, action: Action, nxt: State) -> None:
    if nxt.round != state.round or nxt.is_terminal:  # the round ended (checked: rare)
        ends.rounds += 1
        for name in state.round_end_reasons(action):
            ends.round_ends[name] += 1
    if nxt.is_terminal:
        ends.finished += 1
        for name in nxt.game_end_reasons():
            ends.game_ends[name] += 1


@attrs.frozen
class Batch:
    """What `play_games` found: the first finding of each property, the actions taken."""

    findings: dict[str, Finding]
    fired: Counter
    games: int
    cut: int  # games stopped at `Limits.after_endless` (after an endless one) unfinished
    ends: Ends = attrs.field(factory=Ends)


def play_games(game: Game, first_seed: int, count: int, limits: Limits | None = None) -> Batch:
    """Play `count` seeded games (seeds `first_seed`, `first_seed + 1`, ...) with
    `play_and_check`; keep the first finding of each property.

    A game that runs past `limits.max_actions` fails game_ends, and costs that many
    actions (20,000, against a few hundred for a game that ends). Once one has, the
    later games stop at `limits.after_endless` actions: game_ends has its verdict, and
    where one game does not end, most do not, so playing each to the full limit would
    check the other properties on ever more of the same endless play. The games so
    stopped are counted.
    """
    limits = limits or Limits()
    first: dict[str, Finding] = {}
    fired = Counter()
    short = attrs.evolve(limits, max_actions=min(limits.after_endless, limits.max_actions))
    cut = 0
    ends = Ends(games=count)
    for seed in range(first_seed, first_seed + count):
        endless = "game_ends" in first
        findings, used = play_and_check(game, seed, short if endless else limits, ends=ends)
        for k, v in used.items():
            fired[k] += v
        for f in findings:
            if endless and f.property == "game_ends":
                cut += 1  # stopped short: no finding
            else:
                first.setdefault(f.property, f)
    return Batch(first, fired, count, cut, ends)


class Counter(dict):
    """Counts of how often each action was taken (coverage of the rules)."""

    def __missing__(self, key: str) -> int:
        return 0


def seeds(first: int, count: int) -> Iterator[int]:
    return iter(range(first, first + count))
