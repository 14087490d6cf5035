"""Where each reading of an ambiguity parts from the ruling, for the FAQ: the parting-game
engine of `rulespec diff` (`properties.compare.parting.reading_parting`: the rules
compared, then z3 on the product of both readings, then lock-step games) run for every
reading, and the results stored beside the published FAQ so that publishing it again
re-runs only the readings whose rules changed.

A reading is searched at the FAQ's player count first, then at the other counts the game
allows (nearest first), until a parting game is found; where none is, the entry says what
was shown at each count (proved the same, or alike for the first N actions from every deal
and none in K games).

The store (`--partings DIR`) holds, per game, `<game>.yaml` — each reading's result with a
digest of the rules that decide it (the ruling's and the reading's IR as they play, at
every count searched: no positions, citations or prose) — and, per parting game, the
replay file `<game>-<ambiguity>-<reading>.yaml` that `rulespec replay` shows under either
reading. A stored result whose digest no longer matches is searched again. Every stored
parting game is replayed when it is read back, and dropped unless both readings agree up
to its last step and part there: a published example cannot drift from the model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs
import yaml

import model
from model import Game, ModelError, SpecError, State, Where, ir
from model.limits import IDENTIFIER, short
from model.safe_write import LINK_REFUSED, make_folder, write_text

from ..compare.lockstep import observe, seen
from ..compare.parting import Parting as Found
from ..compare.parting import reading_parting, shortened_parting
from ..compare.rules import PLAY, Normal
from ..compare.shorten import STEPS as SHORTEN_STEPS
from ..concrete import trace as tr
from ..symbolic.queries.parting import PROOF_UNITS, WITH_INVARIANTS
from .effects import GAMES, Declared, Effect

#: Bumped when what a stored result means changes; older stores are searched again.
#: 2: the key is the rules alone; the search that left a reading undecided is kept with it.
STORE_VERSION = 2
Say = Callable[[str], None]


@attrs.frozen
class Step:
    """One action of an example game: who took it (None: every player at once, a joint
    action), what it was, and the round-end conditions it made true (with their
    citations), if it ended a round."""

    player: int | None
    action: str
    ended: tuple[str, ...] = ()


@attrs.frozen
class Parting:
    """Where `reading` parts from the ruling, or what was shown when it does not.

    `status`: `parted` (an example follows), or, with no parting game, `proved_same` (at
    every player count the readings play alike, proved from the rules or by z3), `bounded`
    (z3: from every deal the first N actions behave alike; none in K games either) or
    `none_in_games`. `shown` says it in a sentence; `how` names the search that decided it
    (rules, z3, random games, hypothesis).

    For `parted`: the game from the deal — its replay file `replay` (a seed or z3's
    shuffles) — the actions before the parting step (`steps`), the state there and the
    player to act, the legal actions each reading allows there and, when those agree, the
    action whose outcome differs and how.
    """

    reading: str
    status: str
    shown: str
    how: str = ""
    players: int | None = None
    seed: int | None = None
    replay: str | None = None  # the replay file's name, in the store
    steps: tuple[Step, ...] = ()
    active: int | None = None
    state: dict = attrs.field(factory=dict, eq=False)
    ruling_legal: tuple[str, ...] = ()
    reading_legal: tuple[str, ...] = ()
    action: str | None = None
    differences: tuple[tuple[str, str, str], ...] = ()  # (what, under the ruling, this reading)
    #: where `action` ends the round: the round-end conditions it makes true (with their
    #: citations) under the ruling and under the reading
    ends: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    effect: Effect | None = attrs.field(default=None, eq=False)  # what it does to play
    at_deal: bool = False  # the deals differ (the set-up rules do)
    properties: tuple[Declared, ...] = attrs.field(default=(), eq=False)  # declared to fail
    #: the states under the ruling from the deal to the parting step (the last one is where
    #: they part), for drawing the table (`table.py`)
    states: tuple[State, ...] = attrs.field(default=(), eq=False)
    #: after `action` (or, where the deals differ, the deals): under the ruling, under the
    #: reading
    after: tuple[State, ...] = attrs.field(default=(), eq=False)
    #: before they part: after how many actions the states first differ in what no player
    #: sees, and what differs then (a variable, the order of a hidden pile); None if never
    hidden: tuple[int, tuple[str, ...]] | None = None

    @property
    def parted(self) -> bool:
        return self.status == "parted"

    @property
    def step(self) -> int:
        """The number of the step where they part (the deal is step 0)."""
        return 0 if self.at_deal else len(self.steps) + 1


# ------------------------------------------------------------------ searching
@attrs.frozen
class Search:
    """How hard to look: z3's budget per player count (resource units: the same search on
    any machine), then random and Hypothesis games; and how many games per policy the play
    statistics of both readings take (0: none)."""

    z3_limit: int = 100_000_000
    games: int = 200
    examples: int = 100
    statistics_games: int = GAMES
    #: z3's budget for a proof where the first search found no parting game at a count
    proof_limit: int = 600_000_000
    #: lock-step steps the shortening of a parting game found by concrete games may play
    #: (`compare.shorten`); a stored game is shortened once for each budget
    shorten_steps: int = SHORTEN_STEPS
    #: how many times the random games the concrete search then plays there (a rare
    #: situation: a bout played out to the last card, say), with twice the Hypothesis games
    longer: int = 10

    def search(self) -> list[float]:
        """What the first search at each count is (kept with a result that did not part
        the readings, so that another search looks again): z3's budget, the random and
        Hypothesis games."""
        return [self.z3_limit, self.games, self.examples]

    def second_try(self) -> list[float]:
        """What the second try at a count with no parting game is (kept with its result, so
        that a bound reached with another one is searched again): z3's budget and its
        resource units for each try of a proof, then the random and Hypothesis games."""
        return [self.proof_limit, PROOF_UNITS, self.games * self.longer, self.examples * 2]


def counts_to_try(g: ir.GameIR, first: int) -> list[int]:
    """The FAQ's player count, then the others the game allows, nearest first."""
    others = sorted(range(g.min_players, g.max_players + 1), key=lambda n: (abs(n - first), n))
    return [first] + [n for n in others if n != first]


def search(spec: Path, amb: ir.Ambiguity, reading: str, counts: Iterable[int], how: Search,
           say: Say) -> tuple[Found | None, list[Found]]:
    """The first parting game over `counts`, and what was shown at each count before it."""
    tried: list[Found] = []
    for n in counts:
        found = reading_parting(str(spec), n, amb.id, reading, use_z3=how.z3_limit > 0,
                                z3_limit=how.z3_limit, games=how.games, examples=how.examples,
                                shorten_steps=how.shorten_steps,
                                progress=lambda m: say(f"{amb.id}={reading}: {m}"))
        if found.parted:
            return found, tried
        tried.append(found)
    if how.proof_limit > how.z3_limit > 0:
        # nothing parts them: z3 gets a longer try where it only reached a bound
        for i, f in enumerate(tried):
            if f.status != "bounded":
                continue
            say(f"{amb.id}={reading}: {f.players} players: z3 tries to prove that they never "
                f"part (at most {how.proof_limit / 1e6:g} million z3 resource units)")
            again = reading_parting(str(spec), f.players, amb.id, reading,
                                    z3_limit=how.proof_limit, max_depth=60, games=0,
                                    examples=0)
            if again.parted:
                return again, tried[:i] + tried[i + 1:]
            if again.status == "proved_same" or (again.bound or 0) > (f.bound or 0):
                tried[i] = attrs.evolve(again, detail=_keep_games(again.detail, f))
    if how.longer > 1:
        # and the concrete search plays `longer` times the games there
        for i, f in enumerate(tried):
            if f.status == "proved_same":
                continue
            games, examples = how.games * how.longer, how.examples * 2
            say(f"{amb.id}={reading}: {f.players} players: {games} random and {examples} "
                "Hypothesis games in lock-step")
            again = reading_parting(str(spec), f.players, amb.id, reading, use_z3=False,
                                    games=games, examples=examples,
                                    shorten_steps=how.shorten_steps)
            if again.parted:
                return again, tried[:i] + tried[i + 1:]
            z3 = f.detail.split("; ", 1)[0] + "; " if f.status == "bounded" else ""
            tried[i] = attrs.evolve(f, detail=z3 + _lower(again.detail), games=again.games)
    return None, tried


def _keep_games(detail: str, first: Found) -> str:
    """The longer z3 try's finding, with the games the first try played."""
    if "proved" in detail:
        return detail
    games = first.detail.split("; ", 1)[1] if "; " in first.detail else ""
    z3 = detail.split("; ", 1)[0]
    return f"{z3}; {games}" if games else z3


def not_parted(reading: str, tried: list[Found]) -> Parting:
    """What was shown when no count parts them: proved alike everywhere, or per count."""
    same_rules = sorted(f.players for f in tried if f.status == "proved_same" and f.how == "rules")
    by_z3 = [f for f in tried if f.status == "proved_same" and f.how == "z3"]
    anywhere = sorted(f.players for f in by_z3 if WITH_INVARIANTS not in f.detail)
    reachable = sorted(f.players for f in by_z3 if WITH_INVARIANTS in f.detail)
    parts = []
    if same_rules:
        parts.append(f"with {_counts_text(same_rules)} players the readings have the same rules "
                     "of play, so every game plays alike")
    if anywhere:
        parts.append(f"with {_counts_text(anywhere)} players z3 proves that from every "
                     "well-formed state they allow the same actions and reach the same state")
    if reachable:
        parts.append(f"with {_counts_text(reachable)} players z3 proves that from every state a "
                     "game can reach (well-formed and meeting the spec's invariants, which z3 "
                     "proves hold at every deal and after every step) they allow the same "
                     "actions and reach the same state")
    rest = [f for f in tried if f.status != "proved_same"]
    if not rest:
        return Parting(reading, "proved_same", "the two readings never part: " + "; ".join(parts),
                       "z3" if by_z3 else "rules")
    status = "bounded" if any(f.status == "bounded" for f in rest) else "none_in_games"
    parts += [f"with {f.players} players {_lower(f.detail)}" for f in rest]
    return Parting(reading, status, "no parting game found — " + "; ".join(parts),
                   "z3" if status == "bounded" else "none")


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _counts_text(counts: list[int]) -> str:
    counts = sorted(counts)
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]}"
    return ", ".join(map(str, counts[:-1])) + (" and " if len(counts) > 1 else "") + str(counts[-1])


def shortened(spec: Path, amb: ir.Ambiguity, reading: str, data: dict[str, Any], how: str,
              steps: int, say: Say) -> Found | None:
    """A shorter parting game than a stored one (`data`, its replay file), or None: a game
    played from a seed is shortened (`compare.shorten`); one from recorded shuffles (z3's,
    or shortened before) is left as it is."""
    if "shuffles" in data or data.get("situation") is not None or not steps:
        return None
    n = int(data["players"])
    old = model.load(str(spec), players=n, variants={amb.id: amb.default})
    new = model.load(str(spec), players=n, variants={amb.id: reading})
    return shortened_parting(old, new, int(data.get("seed", 0)),
                             [str(a) for a in data["actions"]], how, steps=steps,
                             progress=lambda m: say(f"{amb.id}={reading}: {m}"))


# ------------------------------------------------------------------ replaying a parting game
def replay_data(spec: Path, amb: ir.Ambiguity, found: Found) -> dict[str, Any]:
    """The replay file of a parting game, under the ruling."""
    return found.replay(tr.spec_reference(spec), {amb.id: amb.default})


def replayed(data: dict[str, Any], amb: ir.Ambiguity, reading: str) -> tuple[list[State],
                                                                               list[State]]:
    """The states of a replay under the ruling and under `reading`."""
    return replay_states(data, {amb.id: amb.default})[0], replay_states(data, {amb.id: reading})[0]


def replay_states(data: dict[str, Any], variants: dict[str, str]
                  ) -> tuple[list[State], list[tuple[str, ...]]]:
    """The states of a replay under `variants` and, per action, the round-end conditions it
    made true (`name, citation, ...`; none where the round went on). Each call replays
    with a chance of its own (a seed's, or the recorded shuffles), so the same file can be
    replayed under each reading (the FAQ, the explorer)."""
    data = {**data, "variants": variants}
    game = tr.load_game(data)
    state, chance = tr.start(game, data)
    cites = {c.name: c.cite for c in game.ir.round_end}
    states, ends = [state], []
    for text in data["actions"]:
        out = state.outcome(game.parse_action(str(text)), chance=chance)
        state = out.state
        states.append(state)
        ends.append(tuple(", ".join((n, *cites.get(n, ()))) for n in out.reasons))
    return states, ends


def parts_at_the_end(old: list[State], new: list[State]) -> bool:
    """Both readings look alike to every player up to the last state of a game and part
    there: other legal actions, or a state a player tells apart (a zone some player sees,
    the turn, the round and game end, the scores, the winners: `seen`)."""
    if len(old) != len(new):
        return False
    for a, b in zip(old[:-1], new[:-1], strict=True):
        if seen(a) != seen(b) or _legal(a) != _legal(b):
            return False
    return seen(old[-1]) != seen(new[-1]) or set(_legal(old[-1])) != set(_legal(new[-1]))


def hidden_from(old: list[State], new: list[State]) -> tuple[int, tuple[str, ...]] | None:
    """Before the last state: after how many actions the readings' states first differ
    in the rules' own record, and what differs; None if they do not."""
    for k, (a, b) in enumerate(zip(old[:-1], new[:-1], strict=True)):
        oa, ob = observe(a), observe(b)
        if oa != ob:
            return k, tuple(key for key in oa if oa[key] != ob.get(key))
    return None


def _legal(state: State) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def from_replay(data: dict[str, Any], name: str, amb: ir.Ambiguity, reading: str,
                how: str) -> Parting | None:
    """The FAQ's example from a parting game's replay, or None unless the replay parts the
    readings exactly at its end. The game stops either after the step whose outcome
    differs (the last action is then that step's) or where the legal actions differ."""
    try:
        (old, old_ends), (new, new_ends) = (replay_states(data, {amb.id: amb.default}),
                                            replay_states(data, {amb.id: reading}))
    except (ModelError, SpecError):
        return None
    if not parts_at_the_end(old, new):
        return None
    found = _from_replay(data, name, reading, how, old, old_ends, new, new_ends)
    return attrs.evolve(found, hidden=hidden_from(old, new))


def _from_replay(data: dict[str, Any], name: str, reading: str, how: str, old: list[State],
                 old_ends: list[tuple[str, ...]], new: list[State],
                 new_ends: list[tuple[str, ...]]) -> Parting:
    actions = [str(a) for a in data["actions"]]
    last_o, last_n = old[-1], new[-1]
    legal_o, legal_n = _legal(last_o), _legal(last_n)
    if not actions and seen(last_o) != seen(last_n):  # the deals differ
        return Parting(reading, "parted", "", how, last_o.game.players, _seed(data), name,
                       (), last_o.active_player, last_o.to_dict(), tuple(legal_o),
                       tuple(legal_n), None,
                       tuple(_differences(last_o.game, last_o, last_n)), at_deal=True,
                       after=(last_o, last_n))
    if actions and seen(last_o) != seen(last_n):
        before = old[-2]
        steps = _steps(old, actions[:-1], old_ends)
        return Parting(reading, "parted", "", how, before.game.players, _seed(data), name,
                       steps, before.active_player, before.to_dict(),
                       tuple(_legal(before)), tuple(_legal(new[-2])), actions[-1],
                       tuple(_differences(before.game, last_o, last_n)),
                       ends=(old_ends[-1], new_ends[-1]), states=tuple(old[:-1]),
                       after=(last_o, last_n))
    steps = _steps(old, actions, old_ends)
    return Parting(reading, "parted", "", how, last_o.game.players, _seed(data), name,
                   steps, last_o.active_player, last_o.to_dict(), tuple(legal_o),
                   tuple(legal_n), states=tuple(old))


def _seed(data: dict[str, Any]) -> int | None:
    return None if "shuffles" in data else int(data.get("seed", 0))


def _steps(states: list[State], actions: list[str], ends: list[tuple[str, ...]]
           ) -> tuple[Step, ...]:
    return tuple(Step(None if s.game.parse_action(a).is_joint else s.active_player, a, e)
                 for s, a, e in zip(states, actions, ends, strict=False))


#: The parts of a state listed first where two readings differ after one action.
FIRST = ("terminal", "round", "winners", "scores", "active")


def _differences(game: Game, a: State, b: State) -> list[tuple[str, str, str]]:
    """What differs after the same action, per player where a family differs."""
    oa, ob = observe(a), observe(b)
    families = {z.name for z in game.ir.zones if z.per} | {v.name for v in game.ir.vars if v.per}
    out = []
    first = [k for k in FIRST if k in oa]  # what a player notices first: the end, the scores
    for key in first + [k for k in oa if k not in first]:
        value, other = oa[key], ob.get(key)
        if value == other:
            continue
        if (key in families or key in ("scores",)) and isinstance(value, list | tuple) \
                and isinstance(other, list | tuple) and len(value) == len(other):
            out += [(f"{key}[{i}]", _text(x), _text(y))
                    for i, (x, y) in enumerate(zip(value, other, strict=True)) if x != y]
        else:
            out.append((key, _text(value), _text(other)))
    return out


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}×{v}" for k, v in value.items() if v) or "empty"
    if isinstance(value, list | tuple):
        if len(value) > 8 and all(isinstance(x, str | int) for x in value):
            return f"{len(value)} items, the last {_text(value[-1])}"
        return "[" + ", ".join(map(_text, value)) + "]"
    return str(value)


# ------------------------------------------------------------------ the store
def play_form(g: ir.GameIR) -> str:
    """The rules of one IR as they play (what `compare.rules.alike` compares), as text."""
    n = Normal(g)
    parts: list[Any] = [[k.name for k in g.kinds], [z.name for z in g.zones]]
    for f in PLAY:
        x = getattr(g, f)
        if f == "actions":
            parts.append(sorted((v.name, n.action(v)) for v in x))
        elif f in ("round_end", "game_end"):
            parts.append(sorted(repr(n(c.expr)) for c in x))
        elif f == "score":
            parts.append(n(x, {"p": "#p"}))
        elif f in ("vars", "zones", "kinds", "indices"):
            parts.append(sorted(map(repr, n(list(x)))))
        else:
            parts.append(n(x))
    return repr(parts)


def digest(spec: Path, amb: ir.Ambiguity, reading: str, counts: Iterable[int]) -> str:
    """What decides a reading's result: both readings' rules at every count. A parting game
    or a proof holds whatever search found it; a result that left the readings undecided
    keeps its search beside it (`Search.search`, `second_try`), and so do the statistics
    their games."""
    h = hashlib.sha256(repr((STORE_VERSION, amb.id, amb.default, reading)).encode())
    for n in counts:
        for v in (amb.default, reading):
            h.update(play_form(model.load_ir(spec, players=n, variants={amb.id: v})).encode())
    return h.hexdigest()[:32]


class Store:
    """The stored results of one game (`<dir>/<game>.yaml`) and its replay files.

    A store is a file anybody may have edited, in a folder other games' stores share: every
    name read from an entry is checked (`replay_name`: exactly the name this store gives
    that entry's reading's replay, a plain file of the folder), a replay file is read back
    as a game of `spec` (whatever spec it names), and a file is deleted only when its name
    is such a name and it is a replay file of this game (`_ours`): never another game's
    store or replays, nor a file the store did not write."""

    def __init__(self, folder: Path, game: str, spec: Path | None = None) -> None:
        self.folder = folder
        self.game = game
        self.spec = spec
        self.path = folder / f"{game}.yaml"
        self.entries: dict[str, dict[str, Any]] = {}
        if self.path.is_symlink():  # neither read nor written through
            raise SpecError(Where(str(self.path)), f"cannot use the store: {LINK_REFUSED}")
        if self.path.exists():
            data = model.source.read_yaml(self.path).data
            if not isinstance(data, dict) or not isinstance(data.get("readings"), dict):
                raise SpecError(Where(str(self.path)), "expected a mapping with 'readings'")
            self.entries = {str(k): _sound(str(k), v, game) for k, v in data["readings"].items()
                            if isinstance(v, dict)}
        self.used: set[str] = set()
        self.stale: set[str] = set()  # replay names of entries that no longer have one

    @staticmethod
    def key(amb: ir.Ambiguity, reading: str) -> str:
        return f"{amb.id}={reading}"

    def get(self, amb: ir.Ambiguity, reading: str, digest_: str) -> dict[str, Any] | None:
        e = self.entries.get(self.key(amb, reading))
        return e if e is not None and e.get("digest") == digest_ else None

    def replay(self, name: str) -> dict[str, Any]:
        """A stored replay file of this game (SpecError unless `name` is one of this store's
        names, a file inside the folder), to be replayed on this game's spec."""
        path = self._inside(name)
        if path is None:
            raise SpecError(Where(str(self.folder)), f"{short(name)} is not a replay file of "
                            f"the {self.game} store")
        data = tr.read_replay(path)
        return data if self.spec is None else {**data, "spec": str(self.spec)}

    def put(self, amb: ir.Ambiguity, reading: str, entry: dict[str, Any],
            replay: dict[str, Any] | None) -> None:
        key = self.key(amb, reading)
        before = self.entries.get(key, {}).get("replay")
        if replay is None and isinstance(before, str):
            self.stale.add(before)  # a parting game no longer shown: its file goes
        if replay is not None:
            name = replay_name(self.game, key)
            if name is None:
                raise SpecError(Where(str(self.folder)), f"{key} cannot name a replay file")
            target = self.folder / name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.exists() or target.is_symlink():
                    if not self._ours(name):
                        raise SpecError(Where(str(target)), "the store folder holds a file of "
                                        f"this name that is not a replay of {self.game}: move it "
                                        "away and publish again")
                    target.unlink()  # ours: the store owns these names
                tr.write_replay(target, **_replay_args(replay))
            except OSError as exc:
                raise SpecError(Where(str(target)),
                                f"cannot write the store: {exc.strerror or exc}") from None
            entry = {**entry, "replay": name}
        self.entries[key] = entry
        self.used.add(key)

    def keep(self, amb: ir.Ambiguity, reading: str) -> None:
        self.used.add(self.key(amb, reading))

    def save(self) -> None:
        """Write the results used this time (others belonged to readings that are gone, and
        their replay files go too, as does the file of a reading no game parts any more:
        only files of this store, named as it names them, that are replay files of this
        game). The store file is replaced, never written through a link (model.safe_write)."""
        kept = {k: self.entries[k] for k in sorted(self.used)}
        mine = {e.get("replay") for k, e in kept.items()}
        text = yaml.safe_dump({"game": self.game, "version": STORE_VERSION, "readings": kept},
                              sort_keys=False, allow_unicode=True, width=100)
        try:
            make_folder(self.folder)
            for k, e in self.entries.items():
                name = e.get("replay")
                if k in self.used or not isinstance(name, str) or name in mine:
                    continue
                if replay_name(self.game, k) == name and self._ours(name):
                    (self.folder / name).unlink(missing_ok=True)
            for name in self.stale - mine:
                if any(replay_name(self.game, k) == name for k in self.entries) \
                        and self._ours(name):
                    (self.folder / name).unlink(missing_ok=True)
            write_text(self.path, text)
        except OSError as exc:
            raise SpecError(Where(str(self.path)),
                            f"cannot write the store: {exc.strerror or exc}") from None

    def _inside(self, name: str) -> Path | None:
        """`folder/name` if `name` is one of this store's replay names and the file is in
        the folder itself (not a link elsewhere), else None."""
        if not (isinstance(name, str) and _REPLAY_NAME.fullmatch(name)
                and name.startswith(f"{self.game}-")):
            return None
        path = self.folder / name
        try:
            if path.resolve().parent != self.folder.resolve():
                return None
        except (OSError, RuntimeError):  # a loop of links
            return None
        return path

    def _ours(self, name: str) -> bool:
        """Whether `folder/name` is a file this game's store wrote: one of its names, a plain
        file in the folder, that reads as a replay file of this game's spec."""
        path = self._inside(name)
        if path is None or self.spec is None or path.is_symlink() or not path.is_file():
            return False
        try:
            data = tr.read_replay(path)
        except SpecError:
            return False
        return data.get("spec") in (tr.spec_reference(self.spec), str(self.spec))


#: A replay name of a store: `<game>-<ambiguity>-<reading>.yaml`, the last two identifiers.
_REPLAY_NAME = re.compile(r"[A-Za-z0-9_.-]{1,200}-[A-Za-z](?:_?[A-Za-z0-9])*"
                          r"-[A-Za-z](?:_?[A-Za-z0-9])*\.yaml")


def replay_name(game: str, key: str) -> str | None:
    """The name of the replay file of reading `key` (`ambiguity=reading`) in `game`'s store,
    or None where `key` is not two identifiers: what an entry's `replay` must be."""
    amb, _, reading = key.partition("=")
    if not (IDENTIFIER.fullmatch(amb) and IDENTIFIER.fullmatch(reading)):
        return None
    name = f"{game}-{amb}-{reading}.yaml"
    return name if _REPLAY_NAME.fullmatch(name) else None


#: What a stored result may say (Parting.status).
STATUSES = ("parted", "proved_same", "bounded", "none_in_games")


def _sound(key: str, entry: dict[str, Any], game: str) -> dict[str, Any]:
    """A stored entry with what cannot be trusted taken out (a store is a file anybody may
    have edited): a replay name other than the one this store gives the entry's reading
    (`replay_name`), a status this tool does not write (or, but for a parting game, no
    sentence saying what was shown), statistics that do not read back. An entry so mended
    no longer matches and is searched again."""
    out = dict(entry)
    name = out.get("replay")
    if name is not None and name != replay_name(game, key):
        out.pop("replay")
        out["digest"] = None
    status, shown = out.get("status"), out.get("shown")
    if status not in STATUSES or not isinstance(out.get("how", ""), str) or (
            status != "parted" and not (isinstance(shown, str) and shown)):
        out["digest"] = None
    stats = out.get("statistics")
    if stats is not None:
        try:
            Effect.from_data(stats)
        except (KeyError, TypeError, ValueError, AttributeError):
            out.pop("statistics")
    return out


def _replay_args(d: dict[str, Any]) -> dict[str, Any]:
    return {"spec": d["spec"], "players": d["players"], "seed": d["seed"],
            "variants": d["variants"], "actions": d["actions"], "note": d.get("note", ""),
            "shuffles": d.get("shuffles"), "unrecorded": bool(d.get("unrecorded"))}
