"""Where play parts: the shortest game from a deal after which two versions of a game behave
differently, as data — shared by `rulespec diff` and `rulespec faq`.

Two versions *behave differently* at a point of a game when a player can see it: the player
to act has another set of legal actions, or one action leads to states a player tells apart
(`lockstep.seen`): a zone some player sees (a hidden one by its size and any top a player
sees), whose turn it is, whether the round or the game ended, each player's score, or the
winners (so readings that differ only in who wins are told apart). The deals themselves
may differ so too (the set-up rules changed). A difference only in the rules' own record (a
variable, the order of a face-down pile) is not yet a parting: play goes on, and the
result notes where it began.

`find_parting` answers, in this order:

1. the rules are the same (citations aside): proved alike, no search;
2. z3 on the product of both versions (`properties.symbolic.queries.parting`): a proof that
   they never part, or the shortest parting game from a symbolic deal — which is then
   replayed on both concrete models and kept only if they really part there;
3. concretely, where z3 could not decide: breadth first over pairs of states from a few
   seeded deals (`breadth_first`: the shortest parting game from each, within a budget of
   pairs; `Game.chance` shuffles by kind name, so both versions deal alike from one seed);
   if that finds none, games played in lock-step with those common random numbers,
   uniformly random; then Hypothesis-generated and shrunk games, kept if shorter.

The result (`Parting`) says exactly what was shown when nothing parts them: proved for
every well-formed state, none within N actions (z3), or none in K concrete games.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

import model
from model import Game, ModelError, State
from model.chance import ScriptedChance

from .lockstep import (
    Chooser,
    Found,
    Names,
    Part,
    Renames,
    legal_by_key,
    lockstep,
    outcome_differences,
)

Progress = Callable[[str], None] | None


@attrs.frozen
class Parting:
    """Where two versions part at one player count, or what was shown when they do not.

    `status`: parted / proved_same / bounded (z3: from every deal the first `bound` actions
    behave alike) /
    none_in_games (none in `games` concrete games). For `parted`: `actions` is the game from
    the deal (old version's action texts); `mode` is deal (the deals differ), legal (the
    player to act after `actions` has other legal actions) or state (the last action leads to
    different states); `step` numbers the action where they part (0: the deal).
    """

    status: str
    players: int
    how: str  # rules / z3 / random games / hypothesis / none
    detail: str
    actions: tuple[str, ...] = ()
    mode: str | None = None
    step: int | None = None
    player: int | None = None  # the player to act where they part
    old_legal: tuple[str, ...] = ()
    new_legal: tuple[str, ...] = ()
    differences: tuple[Part, ...] = ()
    situation: str = ""  # the state where they part (before the last action), described
    chance: dict[str, Any] = attrs.field(factory=dict)  # {"seed": s}, or z3's "shuffles"
    bound: int | None = None
    games: int = 0
    notes: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def parted(self) -> bool:
        return self.status == "parted"

    def replay(self, spec: str, variants: Mapping[str, str]) -> dict[str, Any]:
        """A replay file's data (`properties.concrete.trace.write_replay`'s arguments)."""
        data: dict[str, Any] = {"spec": spec, "players": self.players,
                                "seed": int(self.chance.get("seed", 0)),
                                "variants": dict(variants), "actions": list(self.actions),
                                "note": self.summary()}
        if "shuffles" in self.chance:
            data["shuffles"] = [list(s) for s in self.chance["shuffles"]]
            data["unrecorded"] = "seed"
        return data

    def summary(self) -> str:
        """One sentence: where they part, or what was shown."""
        if not self.parted:
            return self.detail
        if self.mode == "deal":
            return "the two versions deal differently"
        if self.mode == "legal":
            return (f"after {len(self.actions)} action(s), player {self.player} has other legal "
                    "actions in the two versions")
        return (f"action {self.step} ({self.actions[-1]}, player {self.player}) leads to "
                "different states in the two versions")


def find_parting(old: Game, new: Game, *, use_z3: bool = True, z3_limit: int = 300_000_000,
                 max_depth: int = 40, games: int = 200, max_actions: int = 400,
                 examples: int = 100, seed: int = 0, renames: Renames | None = None,
                 shorten_steps: int | None = None, progress: Progress = None) -> Parting:
    """Where two loaded versions of a game (same player count) first behave differently.

    `use_z3`/`z3_limit`/`max_depth`: the z3 product search and its limits; `games` random
    lock-step games of at most `max_actions` actions from seeds `seed`, `seed + 1`, ...;
    `examples` Hypothesis-generated games; the shortest of those games then shortened
    (`shorten`, at most `shorten_steps` lock-step steps, `shorten.STEPS` by default, 0 for
    none). `renames` maps old names to new ones where the versions name things differently.
    """
    if old.players != new.players:
        raise ValueError("both versions must be loaded for the same player count")
    t0 = time.perf_counter()
    P = old.players
    say = progress or (lambda _m: None)
    names = Names(renames) if renames else None
    from .rules import PLAY, ROUND, alike

    if alike(old.ir, new.ir, renames, PLAY):
        return Parting("proved_same", P, "rules", f"with {P} players the two versions have the "
                       "same rules of play (up to names, citations and the order of actions "
                       "and definitions), so every game plays alike",
                       seconds=time.perf_counter() - t0)
    notes: list[str] = []
    bound: int | None = None
    if use_z3:
        from ..symbolic.queries.parting import parting_search

        say(f"{P} players: z3 searches both versions for the shortest game where they part "
            f"(at most {z3_limit / 1e6:g} million resource units)")
        product = parting_search(old, new, limit=z3_limit, max_depth=max_depth, renames=renames,
                                 round_rules_alike=alike(old.ir, new.ir, renames, ROUND),
                                 progress=lambda m: say(f"{P} players: {m}"))
        if product.status == "proved_same":
            return Parting("proved_same", P, "z3", f"proved by z3: {product.detail}",
                           seconds=time.perf_counter() - t0)
        if product.status == "parted":
            assert product.trace is not None  # a parted search holds its game
            found, why = _confirm(old, new, product, names)
            if found is not None:
                return attrs.evolve(found, seconds=time.perf_counter() - t0)
            notes.append(f"z3 found a game of {len(product.trace.actions)} action(s) where "
                         f"they part, but it does not part them on the concrete models ({why})")
        else:
            notes.append(f"z3: {product.detail} ({product.seconds:.1f} s)")
            if product.status == "bounded":
                bound = product.bound
    say(f"{P} players: breadth first from {BFS_DEALS} deals, at most {BFS_STATES} pairs of "
        "states")
    best, pairs = breadth_first(old, new, names)
    how = "breadth-first search"
    # random games from more deals, for one shorter than the breadth-first search's
    limit = len(best[1].actions) - 1 if best is not None else max_actions
    say(f"{P} players: {games} random games in lock-step on both versions")
    played = 0
    if limit >= 0:
        shorter, played = _random_search(old, new, games, limit, seed, names,
                                         lambda m: say(f"{P} players: {m}"))
        if shorter is not None and (best is None
                                    or len(shorter[1].actions) < len(best[1].actions)):
            best, how = shorter, "random games"
    if examples:
        say(f"{P} players: {examples} Hypothesis-generated games in lock-step")
        limit = len(best[1].actions) if best else max_actions
        shrunk = _hypothesis_search(old, new, examples, limit, names)
        if shrunk is not None and (best is None or len(shrunk[1].actions) < len(best[1].actions)):
            best, how = shrunk, "hypothesis"
    if best is not None:
        s, f = best
        chance: dict[str, Any] = {"seed": s}
        short = _shortened(old, new, s, f, names, shorten_steps, say)
        if short is not None:
            notes.append(_shortened_note(len(f.actions), short))
            f, how = short.found, f"{how}, shortened"
            chance = {"seed": short.seed, "shuffles": short.shuffles(old)}
        if bound is not None and len(f.actions) <= bound:
            notes.append("z3 shares chance by what it is (the k-th card revealed, a shuffle's "
                         "top) and found none this short; these games share the seed instead")
        return _parting(P, how, f, chance, notes, time.perf_counter() - t0, games=played)
    seconds = time.perf_counter() - t0
    searched = (f"none breadth first over {pairs} pairs of states from {BFS_DEALS} deals, nor "
                f"in {played} random games of up to {max_actions} actions"
                + (f" and {examples} Hypothesis-generated games" if examples else ""))
    if bound is not None:
        return Parting("bounded", P, "z3", f"from every deal the first {bound} action(s) "
                       f"behave alike (z3); {searched}", bound=bound, games=played,
                       notes=tuple(notes), seconds=seconds)
    return Parting("none_in_games", P, "none", searched[0].upper() + searched[1:], games=played,
                   notes=tuple(notes), seconds=seconds)


def _shortened(old: Game, new: Game, seed: int, f: Found, names: Names | None,
               steps: int | None, say: Callable[[str], None]) -> Any:
    """A shorter parting game than `f` (from `seed`), or None if shortening finds none."""
    from . import shorten

    steps = shorten.STEPS if steps is None else steps
    if not steps or f.mode == "deal" or shorten.cost(f) <= 1:
        return None
    say(f"{old.players} players: shortening the parting game of {len(f.actions)} action(s) "
        f"(at most {steps} lock-step steps)")
    short = shorten.shorten(old, new, seed, f, names, steps=steps)
    return short if short is not None and shorten.cost(short.found) < shorten.cost(f) else None


def shortened_parting(old: Game, new: Game, seed: int, actions: Sequence[str], how: str, *,
                      steps: int | None = None, progress: Progress = None) -> Parting | None:
    """A shorter parting game than the seeded game `actions` (from `seed`, found by `how`),
    or None where that game does not part the versions at its end or none shorter is found:
    for a parting game kept from an earlier search."""
    f = lockstep(old, new, None, None, [*actions, "(end)"], max_actions=len(actions),
                 seed=seed)
    if f is None:
        return None
    short = _shortened(old, new, seed, f, None, steps, progress or (lambda _m: None))
    if short is None:
        return None
    return _parting(old.players, f"{how}, shortened", short.found,
                    {"seed": short.seed, "shuffles": short.shuffles(old)},
                    [_shortened_note(len(f.actions), short)], 0.0)


def _shortened_note(before: int, short: Any) -> str:
    return (f"shortened from {before} to {len(short.found.actions)} action(s) in "
            f"{short.steps} lock-step steps"
            + ("" if short.finished else ", when its budget was spent"))


def reading_parting(spec: str, players: int, ambiguity: str, variant: str, *,
                    base: Mapping[str, str] | None = None, **options: Any) -> Parting:
    """Where a reading of an ambiguity parts from the ruling (or from the readings in
    `base`): `find_parting` on the spec loaded both ways; `options` as for it."""
    ruling = model.load(spec, players=players, variants=dict(base or {}))
    reading = model.load(spec, players=players, variants={**dict(base or {}), ambiguity: variant})
    return find_parting(ruling, reading, **options)


def _parting(P: int, how: str, f: Found, chance: dict, notes: list[str], seconds: float,
             games: int = 0) -> Parting:
    if f.hidden is not None:
        k, parts = f.hidden
        at = "from the deal" if k == 0 else f"after action {k}"
        notes = [*notes, f"{', '.join(parts[:4])}{' ...' if len(parts) > 4 else ''} "
                 f"differ(s) {at}, only in the rules' own record (variables, hidden zones), "
                 "not on the table; a player sees a difference at the parting step"]
    step = 0 if f.mode == "deal" else len(f.actions) + (1 if f.mode == "legal" else 0)
    where = {"deal": "the deals differ",
             "legal": f"after {len(f.actions)} action(s) the legal actions differ",
             "state": f"action {step} ({f.actions[-1] if f.actions else ''}) leads to different "
                      "states"}[f.mode]
    return Parting("parted", P, how, f"{where} ({how})", f.actions, f.mode, step, f.player,
                   f.old_legal, f.new_legal, f.differences, f.situation, chance, None, games,
                   tuple(notes), seconds)


#: Pairs of states (one per version) the breadth-first search may expand in all, and the
#: seeded deals it searches from: a deterministic budget, the same on any machine.
BFS_STATES = 5_000
BFS_DEALS = 4


def breadth_first(old: Game, new: Game, names: Names | None = None, *,
                  states: int = BFS_STATES, deals: int = BFS_DEALS
                  ) -> tuple[tuple[int, Found] | None, int]:
    """The shortest game from a seeded deal after which the versions part, breadth first
    over pairs of states played alike (the same actions, each step's shuffles from the
    seed and step, so both versions draw alike), pairs seen before not expanded again:
    from each of `deals` deals, within a budget of `states` pairs in all. Returns the
    shortest parting found (its seed, what parts) and the pairs explored."""
    from ..concrete.trace import describe

    best: tuple[int, Found] | None = None
    explored = 0
    for seed in range(deals):
        at_deal = lockstep(old, new, None, None, [], max_actions=0, names=names, seed=seed)
        if at_deal is not None:
            return (seed, at_deal), explored
        try:
            frontier: list[tuple[State, State, tuple[str, ...]]] = [
                (old.initial_state(seed), new.initial_state(seed), ())]
        except ModelError:
            continue
        seen = {(frontier[0][0], frontier[0][1])}
        share = explored + (states - explored) // (deals - seed)
        while frontier and explored < share:
            if best is not None and len(frontier[0][2]) + 1 >= len(best[1].actions):
                break  # nothing shorter is left at this depth
            later = []
            for so, sn, taken in frontier:
                if so.is_terminal or explored >= share:
                    continue
                explored += 1
                lo, ln = legal_by_key(so, names), legal_by_key(sn, None)
                if set(lo) != set(ln):
                    best = (seed, Found(taken, "legal", so.active_player,
                                         tuple(str(a) for a in lo.values()),
                                         tuple(str(a) for a in ln.values()),
                                         situation=describe(old, so)))
                    break
                hit = None
                for key, ao in lo.items():
                    diff = outcome_differences(old, new, so, sn, ao, ln[key], None, None, names)
                    if diff is not None:
                        hit = Found((*taken, str(ao)), "state", so.active_player,
                                     differences=diff, situation=describe(old, so))
                        break
                    try:
                        pair = (so.apply(ao), sn.apply(ln[key]))
                    except ModelError:
                        continue
                    if pair not in seen:
                        seen.add(pair)
                        later.append((*pair, (*taken, str(ao))))
                if hit is not None:
                    if best is None or len(hit.actions) < len(best[1].actions):
                        best = (seed, hit)
                    break
            else:
                frontier = later
                continue
            break
    if best is not None:  # where the pair first differed in the rules' own record
        seed, f = best
        again = lockstep(old, new, None, None, [*f.actions, "(end)"], max_actions=len(f.actions),
                         names=names, seed=seed, every_action=False)
        if again is not None:
            best = (seed, attrs.evolve(f, hidden=again.hidden))
    return best, explored


def _random_search(old: Game, new: Game, games: int, max_actions: int, seed: int,
                   names: Names | None, say: Callable[[str], None]
                   ) -> tuple[tuple[int, Found] | None, int]:
    best: tuple[int, Found] | None = None
    t0 = time.perf_counter()
    for s in range(seed, seed + games):
        if (s - seed) % 50 == 49:
            shortest = f", the shortest parting game so far {len(best[1].actions)} action(s)" \
                if best else ""
            say(f"{s - seed + 1}/{games} random games ({time.perf_counter() - t0:.0f} s"
                f"{shortest})")
        limit = max_actions if best is None else len(best[1].actions) - 1
        if limit < 0:
            break
        rng = random.Random(s)
        found = lockstep(old, new, None, None, _uniform(rng),
                         max_actions=limit + 1, names=names, seed=s)
        if found is not None and (best is None or len(found.actions) < len(best[1].actions)):
            best = (s, found)
    return best, games


def _uniform(rng: random.Random) -> Chooser:
    """A `choose` for `lockstep`: uniform among the legal actions, from `rng`."""
    return lambda _step, keys, _state: rng.randrange(len(keys))


class _Parted(Exception):
    pass


def _hypothesis_search(old: Game, new: Game, examples: int, max_actions: int,
                       names: Names | None) -> tuple[int, Found] | None:
    """Hypothesis generates games — a seed, then choices among the legal actions, then always
    the first legal action (what shrinking tends to) — steered towards long rounds and towards
    emptying each zone (where rare situations arise: an exhausted pile, a short supply, a
    player without cards), and shrinks the first that parts them."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
    from hypothesis import strategies as st

    last: list[tuple[int, list[int]]] = []

    def play(x: tuple[int, list[int]], rounds: list[int] | None = None,
             low: dict[str, int] | None = None) -> Found | None:
        s, choices = x
        return lockstep(old, new, None, None,
                        lambda k, keys, _s: choices[k] % len(keys) if k < len(choices) else 0,
                        max_actions=max_actions, names=names, rounds=rounds, low=low, seed=s)

    @settings(max_examples=examples, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
              phases=[Phase.generate, Phase.target, Phase.shrink], report_multiple_bugs=False)
    @given(st.tuples(st.integers(0, 2**16),
                     st.lists(st.integers(0, 255), max_size=max(max_actions, 0))))
    def search(x: tuple[int, list[int]]) -> None:
        rounds: list[int] = []
        low: dict[str, int] = {}
        found = play(x, rounds, low)
        target(float(max(rounds, default=0)), label="longest round")
        for name, n in low.items():
            target(-float(n), label=f"fewest in {name}")
        if found is not None:
            last[:] = [x]
            raise _Parted

    with contextlib.suppress(_Parted):
        search()
    if not last:
        return None
    result = play(last[0])
    return None if result is None else (last[0][0], result)


def _confirm(old: Game, new: Game, product: Any, names: Names | None
             ) -> tuple[Parting | None, str]:
    """The z3 parting game replayed on both concrete models: a Parting if they part there."""
    trace = product.trace
    onames = old.kind_names
    shuffles = [[onames[k] for k in order] for order in trace.shuffles]
    index_n = {n: i for i, n in enumerate(new.kind_names)}
    # z3's shuffle outcomes, then (where a version shuffles what the record does not hold)
    # seed 0's: the same on both sides, as a replay file with `unrecorded: seed` plays them
    try:
        chance_n = ScriptedChance([[index_n[names.kind(x) if names else x] for x in order]
                                   for order in shuffles], fallback=new.chance(0, -2))
    except KeyError:
        return None, "the new version lacks a kind the shuffles hold"
    chance_o = ScriptedChance(list(trace.shuffles), fallback=old.chance(0, -2))
    actions = [str(a) for a in trace.actions]
    found = lockstep(old, new, chance_o, chance_n, [*actions, "(end)"], max_actions=len(actions),
                     names=names, every_action=False)
    if found is None:
        return None, "both versions behave alike along it"
    parting = _parting(old.players, "z3", found, {"shuffles": shuffles, "seed": 0}, [], 0.0)
    if len(found.actions) < len(actions) - (1 if product.mode == "state" else 0):
        parting = attrs.evolve(parting, notes=("the concrete models part earlier than z3's "
                                               "game says",))
    return parting, ""
