"""z3 witnesses as concrete, replayable traces, and the check that both back ends agree.

The symbolic back end leaves the order of a shuffled pile open and decides a drawn card
only when it is drawn. To replay a witness on the concrete model, the shuffle outcomes
must be fixed in advance: `PileOrders` re-runs the witness's logged pile operations on
"lazy piles" (known items on top of unordered regions, one region per shuffle), fixing
the order of a region item by item as the witness draws from it. The result is a list of
shuffle outcomes for `model.chance.ScriptedChance` (and, for a witness that starts in an
arbitrary state, the order of every pile of that state).

`replay` then plays the witness on the concrete model and compares every state with
the z3 model's; any difference is a `Disagreement`, a bug in one of the two back ends.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs
import z3

import model
from model.chance import ScriptedChance

from .state import Enc, Event, model_value


class Disagreement(AssertionError):
    """The concrete model and the z3 encoding disagree: a bug in one of them."""


class _Region:
    """Items of one shuffle (or of a situation's pile) whose order is not fixed yet."""

    def __init__(self, items: Counter, plan: list[int]) -> None:
        self.remaining = Counter(items)
        self.plan = plan  # kinds fixed so far, topmost first

    def take(self, k: int, where: str) -> None:
        if self.remaining[k] <= 0:
            raise Disagreement(f"{where}: the witness draws a kind #{k} the pile no longer has")
        self.remaining[k] -= 1
        self.plan.append(k)

    def size(self) -> int:
        return sum(self.remaining.values())


@attrs.define
class _Birth:
    items: Counter
    plan: list[int]

    def order(self) -> list[int]:
        """Bottom to top: whatever was never drawn, then the drawn ones, first drawn on top."""
        rest = Counter(self.items)
        rest.subtract(Counter(self.plan))
        if any(c < 0 for c in rest.values()):
            raise Disagreement("a shuffle outcome needs more items than the pile held")
        bottom = [k for k in sorted(rest) for _ in range(rest[k])]
        return bottom + list(reversed(self.plan))


class PileOrders:
    """Lazy piles: replays logged pile operations to fix shuffle outcomes."""

    def __init__(self, enc: Enc) -> None:
        self.enc = enc
        self.piles: dict[int, list[Any]] = {i: [] for i in range(enc.n_inst) if enc.inst_pile[i]}
        self.shuffles: list[_Birth] = []
        self.constructed: dict[int, _Birth] = {}

    # -------------------------------------------------------------- starting points
    @classmethod
    def from_setup(cls, enc: Enc) -> PileOrders:
        """Piles as Game.initial_state lays them out before set-up: kinds in order."""
        self = cls(enc)
        for k, kd in enumerate(enc.g.kinds):
            i = enc.base[kd.start]
            if i in self.piles:
                self.piles[i].extend([k] * kd.copies)
        return self

    @classmethod
    def from_values(cls, enc: Enc, values: dict) -> PileOrders:
        """Piles of an arbitrary state: each is one region whose order is ours to choose."""
        self = cls(enc)
        for i in self.piles:
            counts, _ = values["zones"][i]
            birth = _Birth(Counter({k: c for k, c in counts.items() if c}), [])
            self.constructed[i] = birth
            if birth.items:
                self.piles[i] = [_Region(birth.items, birth.plan)]
        self.fix_tops(values)
        return self

    # -------------------------------------------------------------- operations
    def _where(self, i: int) -> str:
        return self.enc.inst_name(i)

    def pop(self, i: int, k: int) -> None:
        segs = self.piles[i]
        if not segs:
            raise Disagreement(f"{self._where(i)}: the witness draws from an empty pile")
        top = segs[-1]
        if isinstance(top, int):
            if top != k:
                raise Disagreement(f"{self._where(i)}: the witness draws kind #{k} but the "
                                   f"concrete pile has #{top} on top")
            segs.pop()
            return
        top.take(k, self._where(i))
        if top.size() == 0:
            segs.pop()

    def fix_top(self, i: int, k: int) -> None:
        segs = self.piles[i]
        if not segs:
            return
        top = segs[-1]
        if isinstance(top, int):
            if top != k:
                raise Disagreement(f"{self._where(i)}: z3 has kind #{k} on top, the concrete "
                                   f"pile #{top}")
            return
        top.take(k, self._where(i))
        if top.size() == 0:
            segs.pop()
        segs.append(k)

    def push(self, i: int, k: int, n: int) -> None:
        self.piles[i].extend([k] * max(n, 0))

    def take(self, i: int, k: int) -> None:
        segs = self.piles[i]
        for pos in range(len(segs) - 1, -1, -1):
            seg = segs[pos]
            if isinstance(seg, int):
                if seg == k:
                    del segs[pos]
                    return
            elif seg.remaining[k] > 0:
                seg.take(k, self._where(i))
                if seg.size() == 0:
                    del segs[pos]
                return
        raise Disagreement(f"{self._where(i)}: the witness takes a kind #{k} the pile lacks")

    def shuffle(self, i: int) -> None:
        items: Counter = Counter()
        for seg in self.piles[i]:
            if isinstance(seg, int):
                items[seg] += 1
            else:
                items.update(+seg.remaining)
        birth = _Birth(items, [])
        self.shuffles.append(birth)
        self.piles[i] = [_Region(items, birth.plan)] if sum(items.values()) else []

    def drop_kinds(self, wanted: set[int], into: int) -> None:
        holds = self.enc.holds(into)
        for i, segs in self.piles.items():
            if i == into or self.enc.holds(i) != holds:
                continue
            out = []
            for seg in segs:
                if isinstance(seg, int):
                    if seg not in wanted:
                        out.append(seg)
                    continue
                for k in wanted:
                    seg.remaining[k] = 0
                if seg.size():
                    out.append(seg)
            self.piles[i] = out

    def move_all(self, i: int, j: int, keep: int, kept: list[int], top: int) -> None:
        segs = self.piles[i]
        held: list[int] = []
        if keep:
            want = Counter({k: c for k, c in zip(self.enc.inst_kinds[i], kept, strict=True) if c})
            first = True
            while sum(want.values()):
                k = top if first else next(k for k in sorted(want) if want[k] and self._has(
                    segs[-1], k))
                first = False
                self.pop(i, k)
                want[k] -= 1
                held.append(k)
        moved = self.piles[i]
        self.piles[i] = list(reversed(held))
        if j in self.piles:
            self.piles[j].extend(moved)

    @staticmethod
    def _has(seg: Any, k: int) -> bool:
        return seg == k if isinstance(seg, int) else seg.remaining[k] > 0

    def deal(self, i: int, targets: list[int], n: int, hands: list[list[int]], top: int,
             dst_tops: list[int | None]) -> None:
        ks = self.enc.inst_kinds[i]
        seqs = []
        for p, counts in enumerate(hands):
            seq = [k for k, c in zip(ks, counts, strict=True) for _ in range(c)]
            last = dst_tops[p]
            if last is not None:
                seq.remove(last)
                seq.append(last)
            if p == 0:
                seq.remove(top)
                seq.insert(0, top)
            seqs.append(seq)
        for c in range(n):
            for p, j in enumerate(targets):
                k = seqs[p][c]
                self.pop(i, k)
                if j in self.piles:
                    self.push(j, k, 1)

    def fix_tops(self, values: dict) -> None:
        for i in self.piles:
            counts, top = values["zones"][i]
            if sum(counts.values()):
                self.fix_top(i, top)

    def apply(self, op: str, args: tuple) -> None:
        match op:
            case "shuffle":
                self.shuffle(args[0])
            case "pop":
                self.pop(args[0], args[1])
            case "push":
                self.push(args[0], args[1], args[2])
            case "take":
                self.take(args[0], args[1])
            case "drop_kinds":
                flags, into = args
                ks = self.enc.classes[self.enc.holds(into)]
                self.drop_kinds({k for k, f in zip(ks, flags, strict=True) if f}, into)
            case "move_all":
                self.move_all(*args)
            case "deal":
                self.deal(*args)
            case _:
                raise AssertionError(op)

    def outcomes(self) -> list[list[int]]:
        return [b.order() for b in self.shuffles]

    def orders(self) -> dict[int, list[int]]:
        return {i: b.order() for i, b in self.constructed.items()}


def events_in_model(m: z3.ModelRef, events: list[Event]) -> list[tuple[str, tuple]]:
    """The events that happened in a model, with their arguments evaluated."""
    ev = model_value(m)
    out = []
    for e in events:
        if not ev(e.guard):
            continue
        out.append((e.op, _evaluate(ev, e.op, e.args)))
    return out


def _evaluate(ev: Any, op: str, args: tuple) -> tuple:
    match op:
        case "shuffle":
            return args
        case "pop" | "take":
            return (args[0], ev(args[1]))
        case "push":
            return (args[0], ev(args[1]), ev(args[2]))
        case "drop_kinds":
            return (tuple(bool(ev(f)) for f in args[0]), args[1])
        case "move_all":
            i, j, keep, kept, top = args
            return (i, j, keep, [ev(x) for x in kept], ev(top))
        case "deal":
            i, targets, n, hands, top, dst_tops = args
            return (i, list(targets), n, [[ev(x) for x in h] for h in hands], ev(top),
                    [None if t is None else ev(t) for t in dst_tops])
    raise AssertionError(op)


# ---------------------------------------------------------------------- traces
@attrs.define
class Trace:
    """A witness: where it starts, the actions, and the z3 model's state after each."""

    game: model.Game
    start: str  # "deal" (Game.initial_state) or "situation" (an arbitrary state)
    actions: list[model.Action]
    values: list[dict]  # evaluated symbolic states, one more than actions
    events: list[list[tuple[str, tuple]]]  # per segment: set-up, then each step
    shuffles: list[list[int]] = attrs.Factory(list)
    situation: dict | None = None
    # how many of `values` the encoding can represent (None: all); once an item lies in a
    # zone of the other class z3's state means nothing, and replay compares no further
    compared: int | None = None

    def text(self, enc: Enc, limit: int = 0) -> str:
        lines = []
        if self.start == "deal":
            lines.append("from the deal: " + enc.describe(self.values[0]))
        else:
            lines.append("from the situation: " + enc.describe(self.values[0]))
        for n, (a, v) in enumerate(zip(self.actions, self.values[1:], strict=True), 1):
            lines.append(f"{n:3d}. player {self.values[n - 1]['vars']['active'][0]}: {a}")
            if limit and n >= limit:
                break
            del v
        return "\n".join(lines)

    def to_replay(self, note: str = "") -> dict:
        """A replay file's data (properties.trace format, with the shuffle outcomes)."""
        from pathlib import Path

        from model.schema import SPEC_DIR

        g = self.game
        spec = g.ir.file
        if Path(spec).resolve() == (SPEC_DIR / f"{g.id}.yaml").resolve():
            spec = g.id
        data: dict[str, Any] = {"spec": spec, "players": g.players, "seed": 0,
                                "variants": dict(g.ir.chosen),
                                "actions": [str(a) for a in self.actions]}
        names = g.kind_names
        data["shuffles"] = [[names[k] for k in order] for order in self.shuffles]
        if self.situation is not None:
            data["situation"] = self.situation
        if note:
            data["note"] = note
        return data


def build_orders(enc: Enc, trace: Trace) -> PileOrders:
    if trace.start == "deal":
        orders = PileOrders.from_setup(enc)
    else:
        orders = PileOrders.from_values(enc, trace.values[0])
    shift = 0 if trace.start == "deal" else 1
    for n, events in enumerate(trace.events):
        for op, args in events:
            orders.apply(op, args)
        orders.fix_tops(trace.values[n + shift])
    return orders


def finish(enc: Enc, trace: Trace) -> Trace:
    """Fix the trace's shuffle outcomes (and starting situation), then replay it."""
    orders = build_orders(enc, trace)
    trace.shuffles = orders.outcomes()
    if trace.start == "situation":
        trace.situation = enc.situation(trace.values[0], orders.orders())
    replay(enc, trace)
    return trace


def concrete_states(enc: Enc, trace: Trace) -> list[model.State]:
    """Play the trace on the concrete model (raises on an illegal step)."""
    g = trace.game
    chance = ScriptedChance(trace.shuffles)
    if trace.start == "deal":
        state = g.initial_state(0, chance)
    else:
        # z3 may start from any well-formed state, reachable or not
        assert trace.situation is not None, "a trace from a situation has one"
        state = g.state_from_dict(trace.situation, "<z3 witness>", checked=False)
    states = [state]
    for a in trace.actions:
        state = state.apply(a, chance)
        states.append(state)
    return states


def replay(enc: Enc, trace: Trace) -> list[model.State]:
    """Replay on the concrete model; every state z3's encoding can represent (`compared`)
    must equal the z3 model's."""
    try:
        states = concrete_states(enc, trace)
    except (model.IllegalAction, model.ModelError) as exc:
        raise Disagreement(f"a z3 witness does not replay on the concrete model: {exc}\n"
                           + trace.text(enc)) from None
    if len(states) != len(trace.values):
        raise ValueError(f"a trace of {len(trace.actions)} action(s) has {len(trace.values)} "
                         "z3 state(s), not one more")
    upto = trace.compared
    for n, (state, values) in enumerate(zip(states[:upto], trace.values[:upto], strict=True)):
        diff = differences(enc, state, values)
        if diff:
            raise Disagreement(f"after {n} action(s) of a z3 witness the concrete state differs: "
                               + "; ".join(diff) + "\n" + trace.text(enc))
    return states


def differences(enc: Enc, state: model.State, values: dict) -> list[str]:
    """How a concrete state differs from evaluated symbolic values (empty if equal)."""
    conc = enc.from_concrete(state)
    out = []
    names = enc.g.kinds
    for i, (counts, top) in enumerate(values["zones"]):
        for k, c in zip(enc.inst_kinds[i], conc.Z[i], strict=True):
            if counts[k] != c:
                out.append(f"{enc.inst_name(i)} holds {c} of {names[k].name}, z3 says {counts[k]}")
        if enc.inst_pile[i] and sum(counts.values()) and conc.T[i] != top:
            out.append(f"{enc.inst_name(i)} has {names[conc.T[i]].name} on top, z3 says "
                       f"{names[top].name}")
    for name, xs in values["vars"].items():
        if list(conc.V[name]) != list(xs):
            out.append(f"{name} is {list(conc.V[name])}, z3 says {xs}")
    if bool(conc.term) != bool(values["terminal"]):
        out.append(f"terminal is {conc.term}, z3 says {values['terminal']}")
    return out
