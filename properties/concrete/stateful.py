"""A Hypothesis state machine for any compiled game, and the runs the property suite makes.

`build_machine(game, checks)` turns a `Game` into a `RuleBasedStateMachine` with no
per-game code:

- `deal` (an `initialize` rule) starts a game; the shuffles of the deal, and of every
  reshuffle later on, come from a `random.Random` that Hypothesis controls
  (`st.randoms(use_true_random=False)`), so a failure shrinks to a small deal (a
  shuffle shrinks towards the cards in declaration order);
- `take_action` chooses among the legal actions: first the action declaration (by its
  number, so that a choice means the same in every state and shrinking can delete
  steps; each example avoids some declarations when it can, a form of swarm testing
  that reaches long rounds and played-out hands), then the instance (which card,
  which target), so the machine only ever takes legal actions;
- `new_game`, enabled only in a terminal state, deals a new game: a finished game is
  handled explicitly, never as Hypothesis's "no progress can be made" error.

After the deal and after every action the machine checks the generic properties
(`CHECKS`, see properties/concrete/invariants.py): conservation, legal-move existence, the
spec's invariants, the round measure (round_ends), that the rules are defined, value
semantics, determinism (a replica replays every action from its text and the recorded
shuffles and must reach the same state), and that an illegal action is rejected.

A failure raises `PropertyFailure` with the trace since the deal; Hypothesis shrinks
it, and `run_config` returns it as an `Outcome` with a replay file that
`rulespec replay FILE` plays back step by step. Profiles (`PROFILES`) set how many
examples and steps a run takes; see docs/property-suite.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

import model
from model import Action, Game, IllegalAction, ModelError, State
from model.chance import RandomChance, RecordingChance, ScriptedChance

from .coverage import Coverage, Recorder
from .invariants import (
    PROPERTIES,
    RoundMeasure,
    expected_totals,
    first_illegal,
    illegal_problems,
    snapshot,
    state_problems,
)
from .pairwise import covering_rows

#: Properties that need games played to their end: `rulespec check` plays those.
WHOLE_GAMES: tuple[str, ...] = ("game_ends",)
#: The properties the state machine checks: every property of properties/concrete/invariants.py
#: (where each is described once) but those, in the same order.
CHECKS: tuple[str, ...] = tuple(p for p in PROPERTIES if p not in WHOLE_GAMES)
assert set(WHOLE_GAMES) <= set(PROPERTIES)


# ----------------------------------------------------------------- profiles
@attrs.frozen
class Profile:
    """How hard the suite tries: examples and steps per run, and which variants run."""

    name: str
    examples: int  # Hypothesis examples (games dealt) per player count and variant choice
    steps: int  # actions per example at most (stateful_step_count)
    variants: str  # "sample", "pairwise" or "all" (see VARIANT_CHOICES and configurations)
    derandomize: bool  # a fixed seed per run: the same examples every time
    database: bool  # keep failing examples in .hypothesis/ and try them first next time
    shrink_seconds: int  # at most this long shrinking one failure (Hypothesis's own cap is 300)
    description: str


PROFILES: dict[str, Profile] = {
    "ci": Profile("ci", examples=10, steps=40, variants="sample", derandomize=True,
                  database=False, shrink_seconds=20,
                  description="deterministic, no example database; default variants at "
                              "every player count plus each other variant once"),
    "thorough": Profile("thorough", examples=50, steps=200, variants="pairwise",
                        derandomize=False, database=True, shrink_seconds=60,
                        description="random, with the example database; default variants at "
                                    "every player count plus every pair of choices once"),
}
DEFAULT_PROFILE = "ci"


DATABASE_DIR = Path(".hypothesis") / "rulespec"


def hypothesis_settings(profile: Profile, examples: int | None = None,
                        steps: int | None = None) -> settings:
    """The Hypothesis settings of a profile (registered as profile `rulespec-NAME` too)."""
    return settings(
        max_examples=examples or profile.examples,
        stateful_step_count=steps or profile.steps,
        derandomize=profile.derandomize,
        database=DirectoryBasedExampleDatabase(str(DATABASE_DIR)) if profile.database else None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        print_blob=False,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    )


for _p in PROFILES.values():
    settings.register_profile(f"rulespec-{_p.name}", hypothesis_settings(_p))


# ----------------------------------------------------------------- configurations
@attrs.frozen
class Config:
    """One player count and one choice of variants (only the ones that differ from the default)."""

    players: int
    variants: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """`players=3` or `players=3,chip_exchange=never`, as test ids use it."""
        return ",".join([f"players={self.players}"] + [f"{a}={v}" for a, v in self.variants])


VARIANT_CHOICES: dict[str, str] = {
    "sample": "default variants at every player count, plus every other variant once",
    "pairwise": "default variants at every player count, plus every pair of choices "
                "(player count x variant, variant x variant) at least once",
    "all": "every combination of variants at every player count",
}


def configurations(g: model.ir.GameIR, profile: Profile,
                   players: Iterable[int] | None = None, variants: str | None = None
                   ) -> list[Config]:
    """The player counts and variant choices a profile runs for a spec.

    `variants` (default: the profile's) picks how:

    - "sample": every player count with the default variants, then every other variant
      of every ambiguity once, at player counts taken in turn (so each variant runs);
    - "pairwise": every player count with the default variants, then a greedy covering
      array (properties/concrete/pairwise.py) so that every player count meets every variant,
      and every variant every variant of each other ambiguity, in some configuration;
    - "all": every combination of variants at every player count (the product: for a
      spec with a dozen ambiguities, hundreds of thousands of configurations).
    """
    how = variants or profile.variants
    if how not in VARIANT_CHOICES:
        raise ValueError(f"variants={how!r}: choose one of {', '.join(VARIANT_CHOICES)}")
    counts = list(players) if players else list(range(g.min_players, g.max_players + 1))
    # Each ambiguity's values with its default first (value 0 is the preferred one).
    axes = [[amb.default] + [v.name for v in amb.variants if v.name != amb.default]
            for amb in g.ambiguities]

    def config(n: int, chosen: Iterable[str]) -> Config:
        return Config(n, tuple((amb.id, v) for amb, v in zip(g.ambiguities, chosen, strict=True)
                               if v != amb.default))

    if how == "all":
        return [config(n, combo) for n in counts for combo in itertools.product(*axes)]
    if how == "pairwise":
        defaults = [(k,) + (0,) * len(axes) for k in range(len(counts))]
        rows = covering_rows([len(counts)] + [len(a) for a in axes], defaults)
        return [config(counts[r[0]], [a[v] for a, v in zip(axes, r[1:], strict=True)])
                for r in rows]
    out = [Config(n) for n in counts]
    turn = 0
    for amb in g.ambiguities:
        for v in amb.variants:
            if v.name != amb.default:
                out.append(Config(counts[turn % len(counts)], ((amb.id, v.name),)))
                turn += 1
    return out


# ----------------------------------------------------------------- failures
@attrs.frozen
class Trace:
    """A game from its deal: the shuffles Hypothesis drew and the actions taken."""

    spec: str
    players: int
    variants: dict[str, str]
    deal: tuple[tuple[int, ...], ...]  # the shuffles of the deal, kinds bottom first
    actions: tuple[str, ...]
    shuffles: tuple[tuple[tuple[int, ...], ...], ...]  # the shuffles during each action

    def replay_data(self, game: Game, prop: str = "", note: str = "") -> dict[str, Any]:
        """The trace as a replay file's data (see properties/concrete/trace.py)."""
        names = game.kind_names
        piles = list(self.deal) + [s for step in self.shuffles for s in step]
        return {"spec": self.spec, "players": self.players, "seed": 0,
                "variants": dict(self.variants), "property": prop, "note": note,
                "actions": list(self.actions),
                "shuffles": [[names[k] for k in pile] for pile in piles]}


class PropertyFailure(AssertionError):
    """A generic property failed; `trace` leads from the deal to the failing state."""

    prop = "property"

    def __init__(self, message: str, trace: Trace) -> None:
        super().__init__(f"{self.prop} fails: {message}")
        self.message = message
        self.trace = trace


#: One subclass per property, so that Hypothesis shrinks each failure on its own (it
#: tells failures apart by their exception type).
FAILURES: dict[str, type[PropertyFailure]] = {
    p: type(f"{''.join(w.title() for w in p.split('_'))}Fails", (PropertyFailure,),
            {"prop": p, "__module__": __name__})
    for p in PROPERTIES
}


# ----------------------------------------------------------------- the machine
@attrs.frozen
class MachineConfig:
    """What the state machine of one game checks and records: the properties, the totals
    conservation keeps, how replay files name the spec, the coverage recorder (or None),
    the deep checks among the properties, and the game's kind parameters and zones."""

    game: Game
    checks: frozenset[str]
    totals: Any
    spec_name: str
    variants: dict[str, str]
    recorder: Recorder | None
    deep: frozenset[str]
    kind_params: list[tuple[int, ...]]
    zones: list[tuple[tuple[int, bool], ...]]

    @property
    def cov(self) -> Coverage | None:
        return self.recorder.coverage if self.recorder is not None else None


class GameMachineBase(RuleBasedStateMachine):
    """The property suite's state machine for one game, without its rules: what a
    step does and checks, configured by `cfg`. `build_machine` adds the rules (deal, take
    an action, deal anew), whose strategies are sized by the game, in a subclass."""

    cfg: MachineConfig
    #: set by the deal rule: the actions an example avoids, the kinds it holds back, and
    #: the zone it presses (see `build_machine`)
    rare: list[bool]
    held: list[bool]
    pressure: tuple[int, bool]

    def __init__(self) -> None:
        super().__init__()
        self.state: State | None = None
        self.enabled: frozenset[int] = frozenset()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.state!r})"

    # -------------------------------------------------------- choosing an action
    def _candidates(self, decl: int) -> list[Action]:
        """The legal instances of a declaration, without those naming a held-back kind
        (unless only those are legal)."""
        cfg = self.cfg
        choices = [a for a in self.legal if a.index == decl]
        if len(choices) > 1 and cfg.kind_params[decl]:
            choices = [a for a in choices if not any(self.held[a.args[j]]
                                                     for j in cfg.kind_params[decl])] or choices
        return choices

    def _pressed(self, choices: list[Action]) -> list[Action]:
        """The choices that leave the pressed zone emptiest (or fullest), one step ahead.

        The look-ahead applies each choice with the state's own chance, untraced: it
        only ranks the choices (one the rules cannot carry out ranks as no change).
        """
        cfg = self.cfg
        assert self.state is not None
        zone, fill = self.pressure
        here = zone_size(self.state, cfg.zones[zone])
        ranks = []
        for a in choices:
            try:
                n = zone_size(self.state.apply(a), cfg.zones[zone])
            except ModelError:
                n = here
            ranks.append(-n if fill else n)
        best = min(ranks)
        return [a for a, r in zip(choices, ranks, strict=True) if r == best]


    def _deal(self, rng) -> None:
        cfg = self.cfg
        inner = RandomChance(rng)
        self.chance = RecordingChance(cfg.recorder.untraced(inner) if cfg.recorder else inner)
        self.deal_shuffles: list[list[int]] = []
        self.actions: list[str] = []
        self.step_shuffles: list[list[list[int]]] = []
        self.seen: dict[int, Action] = {}
        self.state = None
        self.enabled = frozenset()
        try:
            if cfg.recorder is not None:
                with cfg.recorder:
                    state = cfg.game.initial_state(0, chance=self.chance)
            else:
                state = cfg.game.initial_state(0, chance=self.chance)
        except ModelError as exc:
            self.deal_shuffles = list(self.chance.outcomes)
            self._fail([("rules_defined", f"the deal fails: {exc}")])
            return  # rules_defined is not checked in this run: deal again
        self.deal_shuffles = list(self.chance.outcomes)
        if cfg.cov is not None:
            cfg.cov.games += 1
        problems = []
        if "determinism" in cfg.checks:
            self.replica = cfg.game.initial_state(0, chance=ScriptedChance(self.deal_shuffles))
            if snapshot(self.replica) != snapshot(state):
                problems.append(("determinism", "dealing again with the same shuffles "
                                                "gives another state"))
        self.rounds = RoundMeasure(cfg.game)
        problems += self._enter(state)
        problems += self.rounds.start(state)
        self._fail(problems)

    def _enter(self, state: State) -> list[tuple[str, str]]:
        cfg = self.cfg
        self.state = state
        try:
            self.legal = legal = state.legal_actions()
        except ModelError as exc:  # an index out of range in a guard, say
            self.legal, self.enabled = [], frozenset()
            return [("rules_defined", f"the legal actions cannot be listed: {exc}")]
        self.enabled = frozenset(a.index for a in legal)
        for a in legal:
            self.seen.setdefault(id(a), a)
        return state_problems(cfg.game, state, cfg.totals, legal, observe="observation" in cfg.checks)

    # -------------------------------------------------------- one action
    def _step(self, action: Action) -> None:
        cfg = self.cfg
        state = self.state
        assert state is not None
        before = snapshot(state) if cfg.deep else None
        mark = len(self.chance.outcomes)
        self.actions.append(str(action))
        self.step_shuffles.append([])
        try:
            if cfg.recorder is not None:
                with cfg.recorder:
                    nxt = state.apply(action, chance=self.chance)
            else:
                nxt = state.apply(action, chance=self.chance)
        except IllegalAction as exc:
            self._fail([("legal_move", f"{action} is listed as legal, but apply refuses "
                                       f"it: {exc}")])
            self.enabled = frozenset()  # not checked in this run: stuck, deal again
            return
        except ModelError as exc:
            self.step_shuffles[-1] = list(self.chance.outcomes[mark:])
            self._fail([("rules_defined", f"{action}: {exc}")])
            self.enabled = frozenset()
            return
        shuffles = self.step_shuffles[-1] = list(self.chance.outcomes[mark:])
        problems: list[tuple[str, str]] = []
        if before is not None and snapshot(state) != before:
            problems.append(("value_semantics",
                             f"apply({action}) changed the state it was applied to"))
        if "determinism" in cfg.checks:
            problems += self._replicate(action, shuffles, nxt)
        if "illegal_rejected" in cfg.checks:
            other = first_illegal(self.legal, self.seen.values(), len(self.actions))
            if other is not None:
                problems += illegal_problems(state, other)
        ended = nxt.is_terminal or nxt.round != state.round
        if cfg.cov is not None:
            cfg.cov.steps += 1
            cfg.cov.actions[action.name] += 1
            if ended:
                cfg.cov.rounds += 1
                for name in state.round_end_reasons(action, ScriptedChance(shuffles)):
                    cfg.cov.round_ends[name] += 1
            if nxt.is_terminal:
                cfg.cov.finished += 1
                for name in nxt.game_end_reasons():
                    cfg.cov.game_ends[name] += 1
        problems += self.rounds.step(state, action, nxt)
        problems += self._enter(nxt)
        self._fail(problems)

    def _replicate(self, action: Action, shuffles: list[list[int]], nxt: State
                   ) -> list[tuple[str, str]]:
        """Replay the action from its text on the replica; it must reach the same state."""
        cfg = self.cfg
        try:
            again = cfg.game.parse_action(str(action))
            self.replica = self.replica.apply(again, chance=ScriptedChance(shuffles))
        except model.RulespecError as exc:
            return [("determinism", f"replaying {action} from its text fails: {exc}")]
        if snapshot(self.replica) != snapshot(nxt):
            return [("determinism", f"replaying the trace from the deal gives another "
                                    f"state after {action}")]
        return []

    def _fail(self, problems: list[tuple[str, str]]) -> None:
        cfg = self.cfg
        for prop, message in problems:
            if prop in cfg.checks:
                raise FAILURES[prop](message, self.trace())

    def trace(self) -> Trace:
        cfg = self.cfg
        return Trace(cfg.spec_name, cfg.game.players, cfg.variants,
                     tuple(tuple(s) for s in self.deal_shuffles), tuple(self.actions),
                     tuple(tuple(tuple(s) for s in step) for step in self.step_shuffles))



def build_machine(game: Game, checks: Iterable[str] = CHECKS, spec: str | None = None,
                  recorder: Recorder | None = None) -> type[RuleBasedStateMachine]:
    """A RuleBasedStateMachine class for `game` that checks `checks` after every step.

    `spec` is how replay files name the spec (default: the file the game came from);
    `recorder` collects coverage (actions, clauses, end conditions) if given.
    """
    checks = frozenset(checks)
    unknown = checks - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown checks {sorted(unknown)}; known: {', '.join(CHECKS)}")
    totals = expected_totals(game)
    spec_name = spec or game.ir.file
    variants = dict(game.ir.chosen)
    deep = frozenset({"value_semantics", "determinism", "illegal_rejected"} & checks)
    n_decls = len(game.ir.actions)
    n_kinds = len(game.kind_names)
    # Per declaration, the positions of its parameters that are kinds (which card).
    kind_params = [tuple(j for j, (_, dom) in enumerate(a.params)
                         if dom.type.of is not None and dom.type.of.name == "kind")
                   for a in game.ir.actions]
    zones = zone_slots(game)

    config = MachineConfig(game, checks, totals, spec_name, variants, recorder, deep,
                           kind_params, zones)

    class GameMachine(GameMachineBase):
        cfg = config

        @initialize(rng=st.randoms(use_true_random=False),
                    rare=st.lists(st.booleans(), min_size=n_decls, max_size=n_decls),
                    held=st.lists(st.booleans(), min_size=n_kinds, max_size=n_kinds),
                    pressure=st.tuples(st.integers(0, len(zones) - 1), st.booleans()))
        def deal(self, rng, rare, held, pressure) -> None:
            """Deal a game; `rare` marks the actions this example avoids when it can, `held`
            the kinds it plays only when nothing else will do (so they are kept to the last),
            and `pressure` (zone, fill) a zone whose cards or tokens it drains (or fills)
            at the steps that press (a choice drawn per step, which shrinks to "not")."""
            self.rare = rare
            self.held = held
            self.pressure = pressure
            self._deal(rng)

        @precondition(lambda self: bool(self.enabled))
        @rule(data=st.data())
        def take_action(self, data) -> None:
            """Take one of the legal actions.

            Hypothesis draws an action declaration by its number, which means the same
            declaration in every state (so a step can be deleted while shrinking without
            changing what the later steps do). If it is not legal, the nearest legal one
            before it is taken (cyclically), so that a smaller number, which the shrinker
            tries, never stands for a later declaration; the ones this example avoids
            are skipped unless only those are legal. Then it draws which instance
            (which card, which target) among the legal ones, leaving out those that
            name a kind this example holds back, unless only those are legal; under
            pressure on a zone, at about every other step (drawn), only the instances
            that leave it emptiest (or fullest): always pressing gets stuck in one
            pattern of play, half the time drains a pile far more often.
            """
            wanted = data.draw(st.integers(0, n_decls - 1)) if n_decls > 1 else 0
            legal = self.enabled
            pool = [i for i in legal if not self.rare[i]] or legal
            decl = min(pool, key=lambda i: (wanted - i) % n_decls)
            choices = self._candidates(decl)
            if len(choices) > 1 and data.draw(st.booleans()):
                choices = self._pressed(choices)
            action = choices[data.draw(st.integers(0, len(choices) - 1))] \
                if len(choices) > 1 else choices[0]
            self._step(action)


        @precondition(lambda self: self.state is None or self.state.is_terminal
                      or not self.enabled)
        @rule(rng=st.randoms(use_true_random=False))
        def new_game(self, rng) -> None:
            """The game is over (or stuck, where a property not checked here failed): deal anew."""
            self._deal(rng)


    key = re.sub(r"\W", "_", f"{game.id}_{game.players}p_" + "_".join(
        f"{a}_{v}" for a, v in sorted(variants.items())))
    GameMachine.__name__ = GameMachine.__qualname__ = f"Machine_{key}"
    return GameMachine


def zone_slots(game: Game) -> list[tuple[tuple[int, bool], ...]]:
    """Per declared zone, its instances in a state's `z` (one per player for a per-player
    zone), each with whether it is a pile (a list of kinds) or a bag (counts per kind)."""
    out = []
    for z in game.ir.zones:
        base = game.layout.zone_base[z.name]
        out.append(tuple((base + i, z.order == "pile")
                         for i in range(game.layout.zone_count[z.name])))
    return out


def zone_size(state: State, slots: tuple[tuple[int, bool], ...]) -> int:
    """How many cards or tokens lie in a zone (all its instances together)."""
    return sum(len(state.z[i]) if pile else sum(state.z[i]) for i, pile in slots)


# ----------------------------------------------------------------- running
@attrs.frozen
class Outcome:
    """What one run found for one property."""

    prop: str
    status: str  # "holds", "fails" or "error"
    message: str
    trace: Trace | None = None
    replay: dict[str, Any] | None = None  # the replay file's data, for a failure


def run_game(game: Game, profile: Profile | str = DEFAULT_PROFILE, *,
             checks: Iterable[str] = CHECKS, examples: int | None = None,
             steps: int | None = None, spec: str | None = None,
             coverage: Coverage | None = None,
             expected_failures: Iterable[str] = ()) -> dict[str, Outcome]:
    """Run the state machine over one compiled game; one Outcome per checked property.

    A run stops at its first failure, so after a failure the remaining properties are
    run again without it, until all hold or have failed. `expected_failures` (the
    spec's `expect` entries for this game) are run first and not shrunk.
    """
    prof = PROFILES[profile] if isinstance(profile, str) else profile
    s = hypothesis_settings(prof, examples, steps)
    recorder = Recorder(game, coverage) if coverage is not None else None
    wanted = [c for c in CHECKS if c in set(checks)]
    # Properties the spec expects to fail are looked for first, without shrinking (their
    # trace is not news); the others get the shrinker, so a new failure reads short.
    known = [c for c in wanted if c in set(expected_failures)]
    out: dict[str, Outcome] = {}
    try:
        if known:
            quick = settings(s, phases=(Phase.explicit, Phase.generate))
            out.update(_run_until_done(game, known, quick, spec, recorder, prof))
        out.update(_run_until_done(game, [c for c in wanted if c not in known], s, spec,
                                   recorder, prof))
    finally:
        if recorder is not None:
            recorder.finish()
    return {c: out[c] for c in wanted}


def _run_until_done(game: Game, remaining: list[str], s: settings, spec: str | None,
                    recorder: Recorder | None, prof: Profile) -> dict[str, Outcome]:
    """Run the machine, and again without each property that failed, until none fails."""
    from hypothesis.internal.conjecture import engine

    remaining = list(remaining)
    out: dict[str, Outcome] = {}
    # Hypothesis documents this limit as the one to patch for a different shrink time.
    saved = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = prof.shrink_seconds
    constants = _no_local_constants()
    constants.__enter__()
    try:
        while remaining:
            machine = build_machine(game, remaining, spec=spec, recorder=recorder)
            try:
                run_state_machine_as_test(machine, settings=s)
            except PropertyFailure as f:
                out[f.prop] = Outcome(f.prop, "fails", f.message, f.trace,
                                      f.trace.replay_data(game, f.prop, f.message))
                remaining.remove(f.prop)
                continue
            except Exception as exc:  # reported per property below, not swallowed
                for p in remaining:
                    out[p] = Outcome(p, "error", f"the run itself failed: "
                                                 f"{type(exc).__name__}: {exc}")
                break
            for p in remaining:
                out[p] = Outcome(p, "holds", f"{s.max_examples} examples of up to "
                                             f"{s.stateful_step_count} actions")
            break
    finally:
        engine.MAX_SHRINKING_SECONDS = saved
        constants.__exit__(None, None, None)
    return out


@contextlib.contextmanager
def _no_local_constants():
    """Keep Hypothesis from drawing constants found in the local modules loaded so far.

    Hypothesis (since 6.131) now and then draws a constant it found in the source of the
    project's own modules that are imported at the time; which those are depends on
    what else the process ran (pytest imports every test module it collects), so the
    same derandomized run would draw differently in `pytest spec/` and in the whole
    suite. With no local constants, a CI run draws the same in every process. This
    patches two internals; if a Hypothesis version lacks them, nothing is changed.
    """
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants

        saved = (providers._get_local_constants, providers.CONSTANTS_CACHE)
    except (ImportError, AttributeError):
        yield
        return
    empty = Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE = {}
    try:
        yield
    finally:
        providers._get_local_constants, providers.CONSTANTS_CACHE = saved


def run_config(spec: str | Path, config: Config, profile: Profile | str = DEFAULT_PROFILE,
               **kwargs: Any) -> dict[str, Outcome]:
    """`run_game` for a spec at one configuration (player count and variants)."""
    game = model.load(spec, players=config.players, variants=dict(config.variants))
    return run_game(game, profile, spec=kwargs.pop("spec", None) or _spec_name(spec), **kwargs)


def _spec_name(spec: str | Path) -> str:
    """How a replay file names a spec: relative to the working directory when possible."""
    p = Path(spec)
    if p.suffix not in (".yaml", ".yml") and not p.exists():
        return str(spec)  # a game id
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def replay_name(game_id: str, config: Config, prop: str) -> str:
    """The file name of a failure's replay: `<game>-3p-conservation.yaml` and the like.

    A configuration with many variants (pairwise ones have a dozen) would make a name
    longer than file systems allow (255 bytes); its variants are then named by a short
    digest of them instead (the replay file itself lists them).
    """
    parts = [game_id, f"{config.players}p"] + [f"{a}={v}" for a, v in config.variants] + [prop]
    name = re.sub(r"[^\w=.-]", "_", "-".join(parts)) + ".yaml"
    if len(name.encode()) <= MAX_REPLAY_NAME:
        return name
    digest = hashlib.sha256(config.label.encode()).hexdigest()[:12]
    short = [game_id, f"{config.players}p", f"{len(config.variants)}variants", digest, prop]
    return re.sub(r"[^\w=.-]", "_", "-".join(short)) + ".yaml"


#: Longest replay file name written as is (most file systems allow 255 bytes).
MAX_REPLAY_NAME = 200


def variants_of(config: Config) -> Mapping[str, str]:
    return dict(config.variants)
