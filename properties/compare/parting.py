"""Where play parts: the shortest game from a deal after which two versions of a game behave
differently, as data — shared by `rulespec diff` and `rulespec faq`.

Two versions *behave differently* at a point of a game when the player to act has another
set of legal actions, or one action leads to another state: zones, variables, whose turn it
is, whether the round or the game ended, each player's score, or the winners (so readings
that differ only in who wins are told apart). The deals themselves may differ too (the
set-up rules changed).

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

#: Renames found between the versions: category (zones, kinds, vars, actions) -> old -> new.
Renames = Mapping[str, Mapping[str, str]]
#: How many legal actions besides the one taken a lock-step game tries at each step (where
#: there are more, an even spread that shifts from step to step).
OTHERS = 8
Progress = Callable[[str], None] | None


@attrs.frozen
class Part:
    """One part of the state (or of the outcome) that differs: its name and both values."""

    name: str
    old: str
    new: str


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


# ------------------------------------------------------------------ comparing states
class Names:
    """Old names read as new names (zones, variables, kinds, actions), for renamed versions."""

    def __init__(self, renames: Renames | None = None) -> None:
        r = renames or {}
        self.zones = dict(r.get("zones", {}))
        self.vars = dict(r.get("vars", {}))
        self.kinds = dict(r.get("kinds", {}))
        self.actions = dict(r.get("actions", {}))

    def kind(self, name: str) -> str:
        return self.kinds.get(name, name)

    def content(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.content(x) for x in value]
        if isinstance(value, dict):
            return {self.kind(str(k)): v for k, v in value.items()}
        return self.kind(value) if isinstance(value, str) else value


def observe(state: State, names: Names | None = None) -> dict[str, Any]:
    """A state as comparable plain data, in the new version's names: every zone and variable
    slot, whose turn it is, the round, the game's end, the scores and the winners."""
    d = state.to_dict()
    g = state.game
    out: dict[str, Any] = {}
    per = {z.name: z.per for z in g.ir.zones}
    for name, value in d["zones"].items():
        new = names.zones.get(name, name) if names else name
        if per[name] is not None:
            for i, v in enumerate(value):
                out[f"{new}[{i}]"] = names.content(v) if names else v
        else:
            out[new] = names.content(value) if names else value
    vper = {v.name: v.per for v in g.ir.vars}
    for name, value in d["vars"].items():
        new = names.vars.get(name, name) if names else name
        if vper[name] is not None:
            for i, v in enumerate(value):
                out[f"{new}[{i}]"] = v
        else:
            out[new] = value
    for key in ("active", "round", "last_actor", "terminal"):
        out[key] = d[key]
    out["scores"] = list(state.scores)
    out["winners"] = sorted(state.winners)
    return out


def state_differences(so: State, sn: State, names: Names | None) -> tuple[Part, ...]:
    """What differs between a state of each version (empty if they are alike)."""
    # fast path: with one layout the raw values compare directly
    if (names is None and _same_layout(so.game, sn.game) and so.z == sn.z and so.v == sn.v
            and so.is_terminal == sn.is_terminal and so.scores == sn.scores
            and so.winners == sn.winners):
        return ()
    return differences(observe(so, names), observe(sn, None))


_LAYOUTS: dict[tuple[int, int], tuple[Game, Game, bool]] = {}


def _same_layout(a: Game, b: Game) -> bool:
    """Both versions keep their states alike: the same kinds, zones, variables and names."""
    key = (id(a), id(b))
    if key not in _LAYOUTS:  # the games are kept with the answer, so the ids stay theirs
        ga, gb = a.ir, b.ir
        same = (a.kind_names == b.kind_names and a.layout == b.layout and ga.enums == gb.enums
                and [(z.name, z.order, z.per) for z in ga.zones]
                == [(z.name, z.order, z.per) for z in gb.zones]
                and [(v.name, v.type) for v in ga.vars] == [(v.name, v.type) for v in gb.vars])
        _LAYOUTS[key] = (a, b, same)
    return _LAYOUTS[key][2]


def differences(a: dict[str, Any], b: dict[str, Any]) -> tuple[Part, ...]:
    return tuple(Part(k, _show(a.get(k, "(none)")), _show(b.get(k, "(none)")))
                 for k in list(a) + [k for k in b if k not in a] if a.get(k) != b.get(k))


def _show(value: Any) -> str:
    if isinstance(value, list) and len(value) > 10 and all(isinstance(x, str) for x in value):
        return f"{len(value)} items, top {value[-1]}"
    if isinstance(value, dict):
        return " ".join(f"{k}x{c}" if c > 1 else str(k) for k, c in value.items() if c) or "-"
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return "[" + " ".join(value) + "]" if value else "[]"
    return str(value)


def action_key(action: model.Action, names: Names | None) -> tuple:
    """An action as the same move in either version: its (renamed) name and its values."""
    values = tuple(names.content(v) if names else v for v in action.named_args().values())
    name = names.actions.get(action.name, action.name) if names else action.name
    return (name, values)


def _legal(state: State, names: Names | None) -> dict[tuple, model.Action]:
    return {action_key(a, names): a for a in state.legal_actions()}


def _clone(chance: Any) -> Any:
    """A copy at the same point (None, the seeded chance of each step, needs none)."""
    if not isinstance(chance, ScriptedChance):
        return chance
    return ScriptedChance(list(chance.outcomes), fallback=chance.fallback)


@attrs.frozen
class _Found:
    actions: tuple[str, ...]
    mode: str
    player: int | None
    old_legal: tuple[str, ...] = ()
    new_legal: tuple[str, ...] = ()
    differences: tuple[Part, ...] = ()
    situation: str = ""


def lockstep(old: Game, new: Game, chance_o: Any, chance_n: Any, choose: Callable[[int, int], int]
             | Sequence[str], *, max_actions: int, names: Names | None = None, seed: int = 0,
             every_action: bool = True, rounds: list[int] | None = None,
             low: dict[str, int] | None = None) -> _Found | None:
    """Play both versions side by side from one deal until they part (or the game ends, or
    `max_actions`): `choose(step, n)` picks among the n legal actions, or a list of action
    texts is followed. The chances are None for seeded games (`seed`; each step's shuffles
    from the seed, alike in both versions) or recorded ones. With `every_action`, the
    outcomes of the other legal actions are compared at every step too (up to `OTHERS` of
    them, each on a copy of the chance), not only the one taken. `rounds` collects the
    number of actions of each round played, `low` the fewest items each shared zone held."""
    from ..concrete.trace import describe

    try:
        so = old.initial_state(seed, chance_o)
    except ModelError:
        return None
    try:
        sn = new.initial_state(seed, chance_n)
    except ModelError as exc:
        return _Found((), "deal", None, differences=(Part("the deal", "dealt", f"fails: {exc}"),))
    diff = state_differences(so, sn, names)
    if diff:
        return _Found((), "deal", None, differences=diff, situation=describe(old, so))
    taken: list[str] = []
    round_now = so.round
    for step in range(max_actions if callable(choose) else len(choose)):
        if so.is_terminal:
            return None
        lo, ln = _legal(so, names), _legal(sn, None)
        if set(lo) != set(ln):
            return _Found(tuple(taken), "legal", so.active_player,
                          tuple(str(a) for a in lo.values()), tuple(str(a) for a in ln.values()),
                          situation=describe(old, so))
        keys = list(lo)
        if not callable(choose):  # a script of actions
            pick = next((k for k, a in lo.items() if str(a) == choose[step]), None)
            if pick is None:
                return None  # the recorded action is not legal here: nothing to show
        else:
            pick = keys[choose(step, len(keys))]
        tried = [pick]
        if every_action:  # the others too: all of them, or an even spread of OTHERS
            others = [k for k in keys if k != pick]
            step_ = max(1, -(-len(others) // OTHERS))
            tried += others[(step % step_)::step_]
        for key in tried:
            found = _outcome(old, new, so, sn, lo[key], ln[key], chance_o, chance_n, names)
            if found is not None:
                return _Found((*taken, str(lo[key])), "state", so.active_player,
                              differences=found, situation=describe(old, so))
        try:
            so = so.apply(lo[pick], chance_o)
            sn = sn.apply(ln[pick], chance_n)
        except ModelError:
            return None
        taken.append(str(lo[pick]))
        if rounds is not None:
            if not rounds or so.round != round_now:
                rounds.append(0)
            rounds[-1] += 1
            round_now = so.round
        if low is not None:
            for name, z in _zone_sizes(so):
                low[name] = min(low.get(name, z), z)
    return None


def _zone_sizes(state: State) -> list[tuple[str, int]]:
    """Each shared zone's size, and the smallest of each per-player (or indexed) family."""
    g = state.game
    out = []
    for name, value in state.to_dict()["zones"].items():
        per = next(z for z in g.ir.zones if z.name == name).per
        sizes = [_size(v) for v in value] if per is not None else [_size(value)]
        out.append((name if per is None else f"some {name}", min(sizes, default=0)))
    return out


def _size(value: Any) -> int:
    return len(value) if isinstance(value, list) else sum(value.values())


def _outcome(old: Game, new: Game, so: State, sn: State, ao: model.Action, an: model.Action,
             chance_o: Any, chance_n: Any, names: Names | None) -> tuple[Part, ...] | None:
    """How one action's outcomes differ (with copies of the same chance), or None."""
    try:
        po: State | None = so.apply(ao, _clone(chance_o))
        why_o = ""
    except ModelError as exc:
        po, why_o = None, str(exc)
    try:
        pn: State | None = sn.apply(an, _clone(chance_n))
        why_n = ""
    except ModelError as exc:
        pn, why_n = None, str(exc)
    if po is None and pn is None:
        return None
    if po is None or pn is None:
        return (Part("the rules", f"undefined: {why_o}" if po is None else "defined",
                     f"undefined: {why_n}" if pn is None else "defined"),)
    diff = state_differences(po, pn, names)
    return diff or None


# ------------------------------------------------------------------ searching
def find_parting(old: Game, new: Game, *, use_z3: bool = True, z3_limit: int = 300_000_000,
                 max_depth: int = 40, games: int = 200, max_actions: int = 400,
                 examples: int = 100, seed: int = 0, renames: Renames | None = None,
                 progress: Progress = None) -> Parting:
    """Where two loaded versions of a game (same player count) first behave differently.

    `use_z3`/`z3_limit`/`max_depth`: the z3 product search and its limits; `games` random
    lock-step games of at most `max_actions` actions from seeds `seed`, `seed + 1`, ...;
    `examples` Hypothesis-generated games. `renames` maps old names to new ones where the
    versions name things differently.
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
    seconds = time.perf_counter() - t0
    if best is not None:
        s, f = best
        if bound is not None and len(f.actions) <= bound:
            notes.append("z3 shares chance by what it is (the k-th card revealed, a shuffle's "
                         "top) and found none this short; these games share the seed instead")
        return _parting(P, how, f, {"seed": s}, notes, seconds, games=played)
    searched = (f"none breadth first over {pairs} pairs of states from {BFS_DEALS} deals, nor "
                f"in {played} random games of up to {max_actions} actions"
                + (f" and {examples} Hypothesis-generated games" if examples else ""))
    if bound is not None:
        return Parting("bounded", P, "z3", f"from every deal the first {bound} action(s) "
                       f"behave alike (z3); {searched}", bound=bound, games=played,
                       notes=tuple(notes), seconds=seconds)
    return Parting("none_in_games", P, "none", searched[0].upper() + searched[1:], games=played,
                   notes=tuple(notes), seconds=seconds)


def reading_parting(spec: str, players: int, ambiguity: str, variant: str, *,
                    base: Mapping[str, str] | None = None, **options: Any) -> Parting:
    """Where a reading of an ambiguity parts from the ruling (or from the readings in
    `base`): `find_parting` on the spec loaded both ways; `options` as for it."""
    ruling = model.load(spec, players=players, variants=dict(base or {}))
    reading = model.load(spec, players=players, variants={**dict(base or {}), ambiguity: variant})
    return find_parting(ruling, reading, **options)


def _parting(P: int, how: str, f: _Found, chance: dict, notes: list[str], seconds: float,
             games: int = 0) -> Parting:
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
                  ) -> tuple[tuple[int, _Found] | None, int]:
    """The shortest game from a seeded deal after which the versions part, breadth first
    over pairs of states played alike (the same actions, each step's shuffles from the
    seed and step, so both versions draw alike), pairs seen before not expanded again:
    from each of `deals` deals, within a budget of `states` pairs in all. Returns the
    shortest parting found (its seed, what parts) and the pairs explored."""
    from ..concrete.trace import describe

    best: tuple[int, _Found] | None = None
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
                lo, ln = _legal(so, names), _legal(sn, None)
                if set(lo) != set(ln):
                    best = (seed, _Found(taken, "legal", so.active_player,
                                         tuple(str(a) for a in lo.values()),
                                         tuple(str(a) for a in ln.values()),
                                         situation=describe(old, so)))
                    break
                hit = None
                for key, ao in lo.items():
                    diff = _outcome(old, new, so, sn, ao, ln[key], None, None, names)
                    if diff is not None:
                        hit = _Found((*taken, str(ao)), "state", so.active_player,
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
    return best, explored


def _random_search(old: Game, new: Game, games: int, max_actions: int, seed: int,
                   names: Names | None, say: Callable[[str], None]
                   ) -> tuple[tuple[int, _Found] | None, int]:
    best: tuple[int, _Found] | None = None
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


def _uniform(rng: random.Random) -> Callable[[int, int], int]:
    """A `choose` for `lockstep`: uniform among the legal actions, from `rng`."""
    return lambda _step, n: rng.randrange(n)


class _Parted(Exception):
    pass


def _hypothesis_search(old: Game, new: Game, examples: int, max_actions: int,
                       names: Names | None) -> tuple[int, _Found] | None:
    """Hypothesis generates games — a seed, then choices among the legal actions, then always
    the first legal action (what shrinking tends to) — steered towards long rounds and towards
    emptying each zone (where rare situations arise: an exhausted pile, a short supply, a
    player without cards), and shrinks the first that parts them."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
    from hypothesis import strategies as st

    last: list[tuple[int, list[int]]] = []

    def play(x: tuple[int, list[int]], rounds: list[int] | None = None,
             low: dict[str, int] | None = None) -> _Found | None:
        s, choices = x
        return lockstep(old, new, None, None,
                        lambda k, n: choices[k] % n if k < len(choices) else 0,
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
