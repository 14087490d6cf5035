"""Which parts of a spec the property runs exercised, and which they never did.

A property that holds only because a rule never fired says nothing about that rule, so
every run keeps count of what it exercised and the report names what it did not:

- actions: the spec's action declarations, by name;
- clauses: every statement of the set-up, round start, scoring and action effects,
  and both branches of every `if` (found by tracing which lines of the generated code
  ran; each generated statement carries the spec line it came from); a procedure's
  statement is one clause however many calls expand it, reached when any of them runs it;
- round ends and game ends: the spec's named end conditions that fired;
- variants: the ambiguity variants some run used.

A spec may explain a part that cannot be reached with an `expect` entry of property
`coverage` whose `reason` says why and whose `clause` names it as the report does
(an action or condition name, or `line N`); such parts are listed as explained.
Everything here is generic: it reads the IR and the generated source, never a game.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from model import Game, ir

_LINE_TAG = re.compile(r"  # (\d+):(\d+)$")


# ----------------------------------------------------------------- the clauses
@attrs.frozen
class Clause:
    """A statement, or one branch of an `if`, of the spec: where it is and what it cites."""

    key: str  # "L:C" for a statement, "L:C then" / "L:C else" for a branch
    line: int
    section: str  # "setup", "round start", "scoring" or "action NAME"
    cite: tuple[str, ...]  # its own citations, else the nearest enclosing ones
    own_cite: bool
    parent: str | None  # the key of the enclosing statement or branch


def clauses(g: ir.GameIR) -> dict[str, Clause]:
    """Every statement and `if` branch of a game's IR, in spec order, by key."""
    out: dict[str, Clause] = {}

    def walk(body: tuple[ir.Stmt, ...], section: str, cite: tuple[str, ...],
             parent: str | None) -> None:
        for s in body:
            if not s.where.line:
                continue
            key = f"{s.where.line}:{s.where.column}"
            own = bool(s.cite)
            here = s.cite or cite
            seen = out.get(key)
            if seen is None:
                out[key] = Clause(key, s.where.line, section, here, own, parent)
            else:
                # a procedure's statement, expanded at more than one call: it is reached
                # when any call runs it, and, called from different places, has no parent
                sections = seen.section.split("; ")
                if section not in sections:
                    sections.append(section)
                out[key] = attrs.evolve(seen, section="; ".join(sections),
                                        parent=seen.parent if seen.parent == parent else None)
            match s:
                case ir.If(then=a, orelse=b):
                    for branch, stmts in (("then", a), ("else", b)):
                        if stmts:
                            bkey = f"{key} {branch}"
                            out[bkey] = Clause(bkey, s.where.line, out[key].section, here,
                                               own, key)
                            walk(stmts, section, here, bkey)
                case ir.For(body=b) | ir.Repeat(body=b) | ir.While(body=b):
                    walk(b, section, here, key)

    walk(g.setup, "setup", (), None)
    walk(g.round_start, "round start", (), None)
    walk(g.scoring, "scoring", (), None)
    for a in g.actions:
        walk(a.effects, f"action {a.name}", a.cite, None)
    return out


def line_map(game: Game) -> dict[int, str]:
    """Generated-source line number -> the spec statement key ("L:C") it came from."""
    out = {}
    for n, text in enumerate(game.source.splitlines(), 1):
        m = _LINE_TAG.search(text)
        if m:
            out[n] = f"{m.group(1)}:{m.group(2)}"
    return out


def executed(hit_keys: set[str], table: dict[str, Clause]) -> set[str]:
    """Close a set of executed statement keys upwards: a branch ran if one of its statements did.

    An `if` whose test is a constant for the chosen variants is compiled to just the
    branch taken, so its own line never runs; it counts as reached when a statement
    inside it did.
    """
    done = set()
    key: str | None
    for key in hit_keys:
        while key is not None and key not in done:
            done.add(key)
            c = table.get(key)
            key = c.parent if c is not None else None
    return done


# ----------------------------------------------------------------- the tracer
class LineTracer:
    """Records which lines of one game's generated code run inside a `with` block.

    It uses `sys.settrace` only while the block runs and only traces frames of the
    generated module. If another tracer is active (a debugger, coverage.py) it stands
    aside and records nothing, and `available` is False.
    """

    def __init__(self, game: Game) -> None:
        self.filename = game.filename
        self.hits: set[int] = set()
        self.available = True
        self._prev: Any = None
        self._on = False

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename == self.filename:
            return self._local
        return None

    def _local(self, frame, event, arg):
        if event == "line":
            self.hits.add(frame.f_lineno)
        return self._local

    def __enter__(self) -> LineTracer:
        prev = sys.gettrace()
        if prev is not None:
            self.available = False
            self._on = False
            return self
        self._on = True
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._on:
            sys.settrace(None)
            self._on = False

    def untraced(self, chance: Any) -> _Untraced:
        """`chance` with tracing paused while it shuffles (a Hypothesis-drawn shuffle runs
        a lot of Python that is not the game's; tracing it would only cost time)."""
        return _Untraced(chance, self)

    def take(self) -> set[int]:
        """The lines hit since the last `take`, and forget them."""
        hits, self.hits = self.hits, set()
        return hits


class _Untraced:
    def __init__(self, inner: Any, tracer: LineTracer) -> None:
        self.inner, self.tracer = inner, tracer

    def shuffle(self, pile: list[int]) -> None:
        if not self.tracer._on:
            self.inner.shuffle(pile)
            return
        sys.settrace(None)
        try:
            self.inner.shuffle(pile)
        finally:
            sys.settrace(self.tracer._global)


# ----------------------------------------------------------------- the tally
@attrs.define
class Coverage:
    """What runs of one spec exercised; merged across player counts, variants and workers."""

    spec: str = ""
    actions: Counter = attrs.field(factory=Counter)
    round_ends: Counter = attrs.field(factory=Counter)
    game_ends: Counter = attrs.field(factory=Counter)
    statements: set[str] = attrs.field(factory=set)  # "L:C" keys of statements that ran
    variants: set[tuple[str, str]] = attrs.field(factory=set)  # (ambiguity, variant) run
    players: set[int] = attrs.field(factory=set)
    traced: bool = True  # False if some run could not trace lines (another tracer active)
    steps: int = 0
    games: int = 0  # deals played
    rounds: int = 0  # rounds finished
    finished: int = 0  # games played to their end

    def merge(self, other: Coverage) -> None:
        self.spec = self.spec or other.spec
        self.actions.update(other.actions)
        self.round_ends.update(other.round_ends)
        self.game_ends.update(other.game_ends)
        self.statements |= other.statements
        self.variants |= other.variants
        self.players |= other.players
        self.traced = self.traced and other.traced
        self.steps += other.steps
        self.games += other.games
        self.rounds += other.rounds
        self.finished += other.finished

    def to_dict(self) -> dict[str, Any]:
        """Plain data (pytest-xdist sends it from the workers to the controller)."""
        return {"spec": self.spec, "actions": dict(self.actions),
                "round_ends": dict(self.round_ends), "game_ends": dict(self.game_ends),
                "statements": sorted(self.statements),
                "variants": sorted([a, v] for a, v in self.variants),
                "players": sorted(self.players), "traced": self.traced, "steps": self.steps,
                "games": self.games, "rounds": self.rounds, "finished": self.finished}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Coverage:
        return cls(d["spec"], Counter(d["actions"]), Counter(d["round_ends"]),
                   Counter(d["game_ends"]), set(d["statements"]),
                   {(a, v) for a, v in d["variants"]}, set(d["players"]), d["traced"],
                   d["steps"], d["games"], d["rounds"], d["finished"])


class Recorder:
    """Collects one game's coverage during a run: a tracer plus counters."""

    def __init__(self, game: Game, coverage: Coverage, trace_lines: bool = True) -> None:
        self.game = game
        self.coverage = coverage
        self.tracer = LineTracer(game) if trace_lines else None
        self._lines: set[int] = set()
        self._set_up_seen = False
        coverage.players.add(game.players)
        coverage.variants |= set(game.ir.chosen.items())
        if not trace_lines:
            coverage.traced = False

    def __enter__(self):
        if self.tracer is None:
            return self
        entered = self.tracer.__enter__()
        if not self._set_up_seen:
            # the game keeps a set-up that shuffles nothing from its first run, which may
            # have been before any tracing (the seeded playouts): run it once here
            self._set_up_seen = True
            self.game.after_setup(0, fresh=True)
        return entered

    def __exit__(self, *exc: object) -> None:
        if self.tracer is not None:
            self.tracer.__exit__(*exc)
            if not self.tracer.available:
                self.coverage.traced = False
            self._lines |= self.tracer.take()

    def untraced(self, chance: Any) -> Any:
        """`chance`, with line tracing paused while it shuffles."""
        return self.tracer.untraced(chance) if self.tracer is not None else chance

    def finish(self) -> None:
        """Turn the generated lines hit into spec statement keys."""
        lines = line_map(self.game)
        self.coverage.statements |= {lines[n] for n in self._lines if n in lines}
        self._lines.clear()


# ----------------------------------------------------------------- the report
@attrs.frozen
class Gap:
    """One part of a spec that no run exercised."""

    what: str  # "action", "clause", "round end", "game end", "variant"
    name: str  # as a spec's `expect` entry names it (clause: "line N")
    detail: str
    explained: str | None = None  # the spec's reason, if it says why it cannot be reached


#: What reaches more round and game ends, as a gap in them says.
MORE = ("more seeded games, each played to its end: `rulespec check --games N`; longer "
        "state-machine runs: `--steps N`, in pytest `--rulespec-steps N`")


def gaps(spec: str | Path, cov: Coverage) -> list[Gap]:
    """What `cov` never exercised in a spec, outermost clauses only, in spec order."""
    import model

    base = model.load_ir(spec, players=min(cov.players) if cov.players else _min_players(spec))
    reasons = {e.clause: e.reason for e in base.expectations
               if e.property == "coverage"}
    lines = Path(base.file).read_text(encoding="utf-8").splitlines()
    out: list[Gap] = []

    def add(what: str, name: str, detail: str) -> None:
        out.append(Gap(what, name, detail, reasons.get(name)))

    for a in base.actions:
        if not cov.actions.get(a.name):
            add("action", a.name, f"never taken [{', '.join(a.cite)}]")
    for c in base.round_end:
        if not cov.round_ends.get(c.name):
            add("round end", c.name, f"never ended a round [{', '.join(c.cite)}] "
                f"(of {cov.rounds} rounds ended; {MORE})")
    for c in base.game_end:
        if not cov.game_ends.get(c.name):
            add("game end", c.name, f"never ended a game [{', '.join(c.cite)}] "
                f"(of {cov.finished} games played to their end; {MORE})")
    for amb in base.ambiguities:
        for v in amb.variants:
            if (amb.id, v.name) not in cov.variants:
                add("variant", f"{amb.id}={v.name}", "never run")
    if cov.traced:
        table = clauses(base)
        ran = executed(cov.statements, table)
        for key, clause in table.items():
            if key in ran or (clause.parent is not None and clause.parent not in ran):
                continue  # reached, or inside something already reported as never reached
            text = lines[clause.line - 1].strip() if 0 < clause.line <= len(lines) else key
            branch = f" ({key.split()[1]} branch)" if " " in key else ""
            add("clause", f"line {clause.line}", f"{clause.section}{branch}: {text}  "
                                                 f"[{', '.join(clause.cite)}]")
    return out


def _min_players(spec: str | Path) -> int:
    from model.loader import any_player_count

    return any_player_count(spec)


def report_lines(spec: str | Path, cov: Coverage) -> Iterator[str]:
    """The coverage report of one spec as lines of text."""
    name = Path(str(spec)).name
    found = gaps(spec, cov)
    head = (f"{name}: {cov.steps} actions in {cov.games} deals, {cov.rounds} rounds ended, "
            f"{cov.finished} games finished; players {sorted(cov.players)}, "
            f"{len(cov.actions)} actions, {len(cov.statements)} statements exercised")
    yield head
    if not cov.traced:
        yield ("  (clauses not traced: seeded playouts only, or another tracer such as "
               "coverage.py was active)")
    open_gaps = [g for g in found if g.explained is None]
    if not open_gaps:
        yield "  every action, clause, end condition and variant was exercised" + (
            " or is explained by the spec" if found else "")
    for g in found:
        mark = f"  explained: {g.explained}" if g.explained else ""
        yield f"  never exercised: {g.what} {g.name}: {g.detail}{mark}"
