"""parting: where two versions of a game first behave differently, searched with z3 on the
product of their transition systems.

Both versions are translated from their own IR (`Machine`); a state of the first is read as
a state of the second by name (`Correspondence`: zones, kinds and variables matched by
name, after any renames the caller found). One step of the product (`ProductStep`), from a
common state, *differs* when

- the legal actions differ: an action instance (action, actor, parameter values) is legal in
  one version and not in the other, or exists in only one; or
- one action taken in both leads to different states: zones (counts, and the top of every
  non-empty pile), variables, whether the round or the game ended, each player's score, and
  the winners once the game is over.

Chance is shared (`Leader`/`Follower`): every chance choice (the card a draw reveals, a
shuffle's top, a deal's split) is named by what it is (`Ctx.fresh`'s key), and the second
version takes the first version's choice of the same name wherever that choice is possible
for it; where it is not, its choice is free. A difference found therefore holds with the same
chance on both sides, and "no difference" holds for every choice the second version may make
where the two cannot be matched.

- `deal_differs`: the deals (set-up and the first round's start) from one symbolic shuffle;
- `parting_search`: first a proof over every well-formed state within a round that no step
  differs (with equal deals this proves the versions play alike in every game), else bounded
  model checking from the deal (the first version's unrolling): the shortest k such that the
  product step differs after k actions. The witness is replayed on the first version's
  concrete model (the caller replays it on the second).

Nothing here knows any game.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import z3

import model
from model import ir

from .. import session
from ..execute import Exec
from ..expressions import Ctx
from ..machine import Machine, StepPart
from ..state import Enc, SymList, SymState, model_value
from ..terms import AND, EQ, ITE, LT, NOT, OR, OutOfTime, Unsupported, zterm
from ..witness import Disagreement, Trace, events_in_model, finish
from .common import (
    RLIMIT,
    Budget,
    Clock,
    add_all,
    check_sat,
    machine,
    new_solver,
    spent,
)
from .invariants import assume_invariants
from .unroll import Unroller, flatten, frame_constraints, rebuild, substitute_many

#: Renames found between the versions: category (zones, kinds, vars, actions) -> old -> new.
Renames = Mapping[str, Mapping[str, str]]

#: z3 resource units (`rlimit`: its deterministic count of work) for the first, short
#: search from the deal (depths 0-3), and for each try of the one-step proof, over all its
#: goals, within the query's own budget. Measured on the 2-core
#: machine (5-10 million units a second): the largest proof in spec/ (two readings alike
#: only by an invariant, six players, 54 action instances) spends 13 million units, 3 s
#: with building its formulas; the search from the deal there spends 50 million on depths
#: 0-2 and more than 85 million on depth 3, so a search before the proof must stop short.
SHORT_SEARCH_UNITS = 20_000_000
PROOF_UNITS = 60_000_000

#: How a proof that needed the old version's invariants says so (callers look for it).
WITH_INVARIANTS = "satisfying the old version's invariants (proved inductive)"


# ------------------------------------------------------------------ the correspondence
class Correspondence:
    """How a state of the old version reads as a state of the new one: by name.

    `problems` lists what cannot be matched (a zone, kind or variable in one version only, or
    declared differently); the product needs none.
    """

    def __init__(self, eo: Enc, en: Enc, renames: Renames | None = None) -> None:
        self.eo, self.en = eo, en
        ren = renames or {}
        zren, kren, vren = (dict(ren.get(c, {})) for c in ("zones", "kinds", "vars"))
        self.problems: list[str] = []
        go, gn = eo.g, en.g
        # kinds: old index -> new index
        new_kind = {k.name: i for i, k in enumerate(gn.kinds)}
        self.kind: dict[int, int] = {}
        for i, k in enumerate(go.kinds):
            j = new_kind.get(kren.get(k.name, k.name))
            if j is None:
                self.problems.append(f"kind {k.name} is only in the old version")
                continue
            kn = gn.kinds[j]
            if (kn.item_class, kn.copies) != (k.item_class, k.copies):
                self.problems.append(f"kind {k.name}: {k.copies} {k.item_class} in the old "
                                     f"version, {kn.copies} {kn.item_class} in the new")
            self.kind[i] = j
        for name in sorted(set(new_kind) - {kren.get(k.name, k.name) for k in go.kinds}):
            self.problems.append(f"kind {name} is only in the new version")
        self.identity = all(i == j for i, j in self.kind.items()) and len(go.kinds) == len(gn.kinds)
        self.kind_names = {k.name: gn.kinds[self.kind[i]].name for i, k in enumerate(go.kinds)
                           if i in self.kind}
        # zone instances: new instance -> old instance
        old_inst = {(zren.get(f, f), j): i for i, (f, j) in enumerate(eo.inst)}
        zo = {zren.get(z.name, z.name): z for z in go.zones}
        for z in gn.zones:
            o = zo.get(z.name)
            if o is None:
                self.problems.append(f"zone {z.name} is only in the new version")
            elif (o.order, o.per, o.holds) != (z.order, z.per, z.holds):
                self.problems.append(f"zone {z.name} is declared differently")
        for name in sorted(set(zo) - {z.name for z in gn.zones}):
            self.problems.append(f"zone {name} is only in the old version")
        self.inst: dict[int, int] = {}
        for i, key in enumerate(en.inst):
            if key in old_inst:
                self.inst[i] = old_inst[key]
        self.inst_names = {eo.inst_name(o): en.inst_name(n) for n, o in self.inst.items()}
        # variables: new name -> old name
        vo = {vren.get(n, n): n for n in eo.vtypes}
        self.var: dict[str, str] = {}
        for name, (t, count) in en.vtypes.items():
            old = vo.get(name)
            if old is None:
                self.problems.append(f"variable {name} is only in the new version")
                continue
            to, co = eo.vtypes[old]
            if to.name != t.name or co != count:
                self.problems.append(f"variable {name} has another type")
                continue
            self.var[name] = old
        for name in sorted(set(vo) - set(en.vtypes)):
            self.problems.append(f"variable {vo[name]} is only in the old version")

    @property
    def compatible(self) -> bool:
        return not self.problems

    def kind_term(self, t: Any) -> Any:
        """An old kind index (a value or a term) as the new version's index."""
        if self.identity or t is None:
            return t
        if isinstance(t, int) and not isinstance(t, bool):
            return self.kind.get(t, t)
        out: Any = -1  # not a kind stays not a kind
        for o, n in self.kind.items():
            out = ITE(EQ(t, o), n, out)
        return out

    def state(self, st: SymState) -> SymState:
        """An old-layout state read in the new layout."""
        eo, en = self.eo, self.en
        Z, T, S = [], [], []
        for i in range(en.n_inst):
            o = self.inst[i]
            back = {self.kind[k]: k for k in eo.inst_kinds[o]}
            Z.append(tuple(st.Z[o][eo.kpos[o][back[k]]] for k in en.inst_kinds[i]))
            T.append(self.kind_term(st.T[o]) if en.inst_pile[i] else None)
            S.append(tuple(self.kind_term(x) for x in st.S[o]))
        V = {name: st.V[self.var[name]] for name in en.vtypes}
        return SymState(Z, T, S, V, st.term)

    def key(self, key: tuple[str, ...]) -> tuple[str, ...]:
        """A chance choice's key from the old version, in the new version's names."""
        return tuple(self.inst_names.get(x, self.kind_names.get(x, x)) for x in key)

    def same(self, so: SymState, sn: SymState) -> Any:
        """The two states are alike: counts, tops of non-empty piles, variables, terminal."""
        en = self.en
        tr = self.state(so)
        out: list[Any] = []
        for i in range(en.n_inst):
            out.extend(EQ(a, b) for a, b in zip(tr.Z[i], sn.Z[i], strict=True))
            if en.inst_pile[i]:
                nonempty = LT(0, en.total(sn, i))
                out.append(OR(NOT(nonempty), EQ(tr.T[i], sn.T[i])))
        for name, xs in sn.V.items():
            out.extend(EQ(a, b) for a, b in zip(tr.V[name], xs, strict=True))
        out.append(EQ(tr.term, sn.term))
        return AND(*out)


# ------------------------------------------------------------------ shared chance
class Leader(Ctx):
    """The old version's context: records each keyed chance choice in `table`."""

    def __init__(self, tag: str, table: dict, corr: Correspondence) -> None:
        super().__init__(tag)
        self.table = table
        self.corr = corr
        self._seen: Counter = Counter()

    def fresh(self, what: str, boolean: bool = False,
              key: tuple[str, ...] | None = None) -> Any:
        v = super().fresh(what, boolean, key)
        if key is not None:
            k = self.corr.key(key)
            self.table[(k, self._seen[k])] = (v, what == "top")
            self._seen[k] += 1
        return v


class Follower(Ctx):
    """The new version's context: each keyed chance choice is paired with the leader's."""

    def __init__(self, tag: str, table: dict, corr: Correspondence) -> None:
        super().__init__(tag)
        self.table = table
        self.corr = corr
        self._seen: Counter = Counter()
        self.pairs: list[tuple[Any, Any]] = []

    def fresh(self, what: str, boolean: bool = False,
              key: tuple[str, ...] | None = None) -> Any:
        v = super().fresh(what, boolean, key)
        if key is not None:
            lead = self.table.get((key, self._seen[key]))
            self._seen[key] += 1
            if lead is not None:
                shared, is_kind = lead
                self.pairs.append((v, zterm(self.corr.kind_term(shared) if is_kind else shared)))
        return v

    def coupling(self) -> Any:
        """Where the leader's choices are all possible here, take them."""
        if not self.pairs:
            return True
        allowed = zterm(AND(*self.assume))
        if self.assume:
            allowed = z3.substitute(allowed, [(v, s) for v, s in self.pairs])
        return z3.Implies(allowed, z3.And(*[v == s for v, s in self.pairs]))


# ------------------------------------------------------------------ observations
def scores_and_winners(M: Machine, st: SymState, ctx: Ctx) -> tuple[list, list]:
    """Each player's score, and whether each player is among the winners (when terminal)."""
    g, enc = M.g, M.enc
    ex = Exec(enc, ctx)
    scores = [M.value(g.score, st, ctx, {"p": p}) for p in range(enc.P)]
    with ctx.under(st.term):
        won = ex.ev(g.winners, st, {})
    assert isinstance(won, SymList)
    member = [AND(st.term, OR(*[AND(q, EQ(v, p)) for q, v in won.items])) for p in range(enc.P)]
    return scores, member


def observed_differ(Mo: Machine, Mn: Machine, corr: Correspondence, so: SymState,
                    sn: SymState, ctx_o: Ctx, ctx_n: Ctx) -> Any:
    """The states, the scores or the winners differ."""
    so_scores, so_won = scores_and_winners(Mo, so, ctx_o)
    sn_scores, sn_won = scores_and_winners(Mn, sn, ctx_n)
    same = [corr.same(so, sn)]
    same += [EQ(a, b) for a, b in zip(so_scores, sn_scores, strict=True)]
    same += [EQ(a, b) for a, b in zip(so_won, sn_won, strict=True)]
    return NOT(AND(*same))


# ------------------------------------------------------------------ one product step
def match_alts(Mo: Machine, Mn: Machine, renames: Renames | None) -> dict[int, int]:
    """Old action instance -> new one: the same action (by name, after renames), the same
    actor, the same number of parameters of the same types."""
    aren = dict((renames or {}).get("actions", {}))
    new_at = {(Mn.g.actions[a.action].name, a.actor): m for m, a in enumerate(Mn.alts())}
    out = {}
    for n, alt in enumerate(Mo.alts()):
        ao = Mo.g.actions[alt.action]
        m = new_at.get((aren.get(ao.name, ao.name), alt.actor))
        if m is None:
            continue
        an = Mn.g.actions[Mn.alts()[m].action]
        if [d.type.of for _, d in ao.params] == [d.type.of for _, d in an.params]:
            out[n] = m
    return out


class ProductStep:
    """One step of both versions from a common state `S` (fresh variables of the old layout).

    Three ways for the step to part them, each a formula with its side constraints, cheapest
    first: `legal` (the legal actions differ), `action` (an action that ends no round leads to
    different states, scores or winners), `round` (an action that ends a round in either
    version leads to different states after scoring, the game-end test and the next round's
    start). `action_states` is the proof obligation of the action part alone: an action
    leads to different states (before any round transition).
    """

    def __init__(self, Mo: Machine, Mn: Machine, corr: Correspondence,
                 renames: Renames | None = None, tag: str = "P") -> None:
        eo = Mo.enc
        self.Mo, self.Mn, self.corr, self.tag = Mo, Mn, corr, tag
        self.S = eo.fresh_state(f"{tag}.in")
        Sn = self.Sn = corr.state(self.S)
        self.match = match_alts(Mo, Mn, renames)
        tables: dict[int, dict] = {n: {} for n in range(len(Mo.alts()))}
        self.old_parts: list[StepPart] = [
            Mo.action_part(self.S, alt, f"{tag}.o{n}", ctx=Leader(f"{tag}.o{n}", tables[n], corr))
            for n, alt in enumerate(Mo.alts())]
        back = {m: n for n, m in self.match.items()}
        self.new_parts: list[StepPart] = [
            Mn.action_part(Sn, alt, f"{tag}.n{m}",
                           ctx=Follower(f"{tag}.n{m}", tables.get(back.get(m, -1), {}), corr))
            for m, alt in enumerate(Mn.alts())]
        # the legal actions differ
        legal: list[Any] = []
        for n, po in enumerate(self.old_parts):
            m = self.match.get(n)
            if m is None:
                legal.append(AND(po.guard_ok, po.enabled))
                continue
            pn = self.new_parts[m]
            legal.append(AND(self.tie(n, m), po.guard_ok, pn.guard_ok,
                             NOT(EQ(po.enabled, pn.enabled))))
        legal += [AND(pn.guard_ok, pn.enabled) for m, pn in enumerate(self.new_parts)
                  if m not in back]
        self.legal_terms = legal
        self.legal = zterm(OR(*legal))
        # both take the same action (coupled chance)
        self.taken: dict[int, Any] = {}
        for n, m in self.match.items():
            po, pn = self.old_parts[n], self.new_parts[m]
            ok = AND(po.enabled, pn.enabled, self.tie(n, m), po.ctx.defined("undefined"),
                     pn.ctx.defined("undefined"), *po.ctx.assume, *pn.ctx.assume)
            if ok is not False:
                assert isinstance(pn.ctx, Follower)
                self.taken[n] = z3.And(zterm(ok), pn.ctx.coupling())
        self.alike = False  # the round rules are the same (set by the caller)
        self._action: list[Any] | None = None
        self._states: list[Any] | None = None
        self._round: Any = None

    def tie(self, n: int, m: int) -> Any:
        """The two action instances have the same parameter values."""
        po, pn = self.old_parts[n], self.new_parts[m]
        decl = self.Mo.g.actions[self.Mo.alts()[n].action]
        out = []
        for (_, dom), a, b in zip(decl.params, po.args, pn.args, strict=True):
            t = dom.type.of
            out.append(EQ(self.corr.kind_term(a) if t is not None and t.name == "kind" else a, b))
        return AND(*out)

    def action_states(self) -> list[tuple[int, Any]]:
        """Per action taken in both: its states after the action part differ."""
        if self._states is None:
            self._states = [
                (n, z3.And(ok, zterm(NOT(self.corr.same(self.old_parts[n].post,
                                                        self.new_parts[self.match[n]].post)))))
                for n, ok in self.taken.items()]
        return self._states

    def action(self) -> list[tuple[int, Any]]:
        """Per action taken in both that ends no round: the states, scores or winners after
        it differ."""
        if self._action is None:
            out = []
            Mo, Mn = self.Mo, self.Mn
            for n, ok in self.taken.items():
                po, pn = self.old_parts[n], self.new_parts[self.match[n]]
                co, cn = Ctx(f"{self.tag}.ao{n}"), Ctx(f"{self.tag}.an{n}")
                go_on = AND(NOT(Mo.round_end(po.post, Exec(Mo.enc, co))),
                            NOT(Mn.round_end(pn.post, Exec(Mn.enc, cn))))
                differ = observed_differ(Mo, Mn, self.corr, po.post, pn.post, co, cn)
                out.append((n, z3.And(ok, zterm(AND(go_on, differ, co.defined("undefined"),
                                                    cn.defined("undefined"), *co.assume,
                                                    *cn.assume)))))
            self._action = out
        return self._action

    def round(self) -> tuple[list[Any], dict[int, Any], SymState, Leader]:
        """An action taken in both ends a round in either version and the states, scores or
        winners after the round transition differ: (formula and side constraints, the
        selector of each action, the old version's state after, its round context)."""
        if self._round is None:
            Mo, Mn, eo, en, tag = self.Mo, self.Mn, self.Mo.enc, self.Mn.enc, self.tag
            sels: dict[int, Any] = {}
            side: list[Any] = []
            live_o, live_n = [], []
            for n, ok in self.taken.items():
                sel = sels[n] = z3.Bool(f"{tag}.sel{n}")
                side.append(z3.Implies(sel, ok))
                live_o.append((sel, self.old_parts[n].post))
                live_n.append((sel, self.new_parts[self.match[n]].post))
            if sels:
                side.append(z3.AtMost(*sels.values(), 1))
            mid_o, mid_n = eo.fresh_state(f"{tag}.mo"), en.fresh_state(f"{tag}.mn")
            side += frame_constraints(eo, self.S, mid_o, live_o)
            side += frame_constraints(en, self.Sn, mid_n, live_n)
            rtable: dict = {}
            rctx_o = Leader(f"{tag}.ro", rtable, self.corr)
            rctx_n = Follower(f"{tag}.rn", rtable, self.corr)
            post_o, ends_o, _ = Mo.round_part(mid_o, rctx_o)
            post_n, ends_n, _ = Mn.round_part(mid_n, rctx_n)
            wo, wn = Ctx(f"{tag}.wo"), Ctx(f"{tag}.wn")
            differ = observed_differ(Mo, Mn, self.corr, post_o, post_n, wo, wn)
            side.append(zterm(OR(*sels.values())))
            side.append(zterm(AND(OR(ends_o, ends_n), differ,
                                  *rctx_o.assume, *rctx_n.assume, rctx_o.defined("undefined"),
                                  rctx_n.defined("undefined"), *wo.assume, *wn.assume,
                                  wo.defined("undefined"), wn.defined("undefined"))))
            side.append(rctx_n.coupling())
            self._round = (side, sels, post_o, rctx_o)
        return self._round

    def pairs(self, st: SymState) -> list:
        """Substitution of the step's input state by `st` (an unrolled state)."""
        return list(zip(self.Mo.enc.variables(self.S), self.Mo.enc.variables(st), strict=True))


def _sub_state(pairs: list, st: SymState) -> SymState:
    """A symbolic state with the substitution applied to every term."""
    flat: list = []
    for zs in st.Z:
        flat.extend(zs)
    flat.extend(t for t in st.T if t is not None)
    for xs in st.V.values():
        flat.extend(xs)
    flat.append(st.term)
    zs_ = [x for x in flat if isinstance(x, z3.ExprRef)]
    done = iter(substitute_many(pairs, zs_))
    it = iter([next(done) if isinstance(x, z3.ExprRef) else x for x in flat])
    Z = [tuple(next(it) for _ in zs) for zs in st.Z]
    T = [None if t is None else next(it) for t in st.T]
    V = {name: tuple(next(it) for _ in xs) for name, xs in st.V.items()}
    return SymState(Z, T, [() for _ in Z], V, next(it))


# ------------------------------------------------------------------ the result
@attrs.define
class Product:
    """What the z3 search over both versions found."""

    status: str  # parted / proved_same / bounded / unknown / not_applicable
    detail: str
    seconds: float = 0.0
    depth: int | None = None  # actions before the state where they part
    mode: str | None = None  # deal / legal / state
    trace: Trace | None = None  # the old version's game (the differing action last, for state)
    bound: int | None = None  # bounded: the first `bound` actions of every game behave alike
    spent: int = 0  # the z3 resource units the search used


def versions_machines(old: model.Game, new: model.Game, renames: Renames | None = None
                      ) -> tuple[Machine, Machine, Correspondence]:
    """Both versions' machines, the new one coding names as the old one does."""
    Mo = machine(old)
    Mn = Machine(new.ir, split_actor=True, split_params=False)
    en = Enc(new.ir, codes=Mo.enc.codes)
    for name, code in en.codes.items():  # one table for both, so no code means two names
        Mo.enc.codes.setdefault(name, code)
    en.codes = Mo.enc.codes
    Mn.enc = en
    corr = Correspondence(Mo.enc, en, renames)
    for cls, k in Mo.enc.canon.items():  # an empty pile's top: the same kind in both
        if k in corr.kind and corr.kind[k] in en.classes[cls]:
            en.canon[cls] = corr.kind[k]
    return Mo, Mn, corr


def parting_search(old: model.Game, new: model.Game, limit: int = RLIMIT,
                   max_depth: int = 40, renames: Renames | None = None,
                   round_rules_alike: bool | None = None,
                   progress: Callable[[str], None] | None = None) -> Product:
    """The shortest game from a deal after which the two versions behave differently, or a
    proof that none exists, or the depth up to which none does, within `limit` z3 resource
    units. `round_rules_alike`: the caller knows whether the round transition,
    scores and winners are the same rules up to `renames` (by default: the same IR).
    `progress` hears of each depth searched."""
    t0 = time.perf_counter()
    try:
        with session.fresh():  # the answer does not depend on what ran before in process
            start = spent()
            found = _parting(old, new, limit, max_depth, renames, round_rules_alike, progress)
            return attrs.evolve(found, spent=spent() - start)
    except OutOfTime as exc:
        return Product("unknown", f"ran out of time: stopped by the wall-clock safety net "
                       f"(at {exc}) before the budget was used up", time.perf_counter() - t0)


def _parting(old: model.Game, new: model.Game, limit: float, max_depth: int,
             renames: Renames | None, alike: bool | None,
             progress: Callable[[str], None] | None) -> Product:
    clock = Clock(limit)
    if old.players != new.players:
        return Product("not_applicable", "the versions are for different player counts")
    try:
        Mo, Mn, corr = versions_machines(old, new, renames)
        if not corr.compatible:
            return Product("not_applicable", "the states of the two versions do not match by "
                           "name: " + "; ".join(corr.problems[:4]), clock.elapsed())
        deal = deal_differs(old, Mo, Mn, corr, clock)
        if deal is not None:
            return deal
        step = ProductStep(Mo, Mn, corr, renames)
        step.alike = _round_rules_alike(step) if alike is None else alike
        found = _prove(old, step, clock, full=False)
        if found is not None:
            return found
        search = _Search(old, step, clock, progress)
        found = search.run(min(max_depth, 3), int(clock.left() * 0.4), SHORT_SEARCH_UNITS)
        if found is None:
            found = _prove(old, step, clock, full=True)
        if found is None:
            found = search.run(max_depth, clock.left())
        return found or _bounded(search.k, clock)
    except Unsupported as exc:
        return Product("unknown", f"not encoded: {exc}", clock.elapsed())


def deal_differs(old: model.Game, Mo: Machine, Mn: Machine, corr: Correspondence,
                 clock: Clock) -> Product | None:
    """A deal (one symbolic shuffle, shared) after which the versions' states differ."""
    table: dict = {}
    lead, fol = Leader("D.o", table, corr), Follower("D.n", table, corr)
    so, sn = Mo.initial(lead), Mn.initial(fol)
    wo, wn = Ctx("D.wo"), Ctx("D.wn")
    differ = observed_differ(Mo, Mn, corr, so, sn, wo, wn)
    s = new_solver(clock)
    add_all(s, *lead.assume, lead.defined("undefined"), *fol.assume, fol.defined("undefined"),
            fol.coupling(), *wo.assume, *wn.assume, wo.defined("undefined"),
            wn.defined("undefined"))
    r = check_sat(s, clock, differ)
    if r == z3.unsat:
        return None
    if r == z3.unknown:
        return Product("unknown", f"z3 could not compare the deals ({s.reason_unknown()})",
                       clock.elapsed())
    m = s.model()
    enc = Mo.enc
    trace = Trace(old, "deal", [], [enc.evaluate(m, so)], [events_in_model(m, lead.events)])
    try:
        finish(enc, trace)
    except Disagreement as exc:
        return Product("unknown", f"the z3 deal did not replay: {exc}", clock.elapsed())
    return Product("parted", "the deals differ", clock.elapsed(), 0, "deal", trace)


def same_rules(a: Any, b: Any) -> bool:
    """IR objects alike, citations aside."""
    if attrs.has(type(a)):
        return type(a) is type(b) and all(
            same_rules(getattr(a, f.name), getattr(b, f.name))
            for f in attrs.fields(type(a)) if f.eq and f.name != "cite")
    if isinstance(a, tuple | list):
        return (isinstance(b, tuple | list) and len(a) == len(b)
                and all(same_rules(x, y) for x, y in zip(a, b, strict=True)))
    return bool(a == b)


def _round_rules_alike(step: ProductStep) -> bool:
    """The round transition, scores and winners are the same rules over the same names, so
    alike states give alike results."""
    go, gn = step.Mo.g, step.Mn.g
    names_alike = (step.corr.identity and [z.name for z in go.zones] == [z.name for z in gn.zones]
                   and [v.name for v in go.vars] == [v.name for v in gn.vars])
    return names_alike and all(same_rules(getattr(go, f), getattr(gn, f)) for f in (
        "kinds", "indices", "round_end", "scoring", "game_end", "round_start", "score",
        "winners"))


def _prove(old: model.Game, step: ProductStep, clock: Clock, full: bool) -> Product | None:
    """No step differs from any well-formed state within a round (first without, then with
    the old version's invariants, where z3 proves them inductive). Without `full`, only the
    cheap obligations are tried (the legal actions, and the action part where the round rules
    are alike). Each try asks its goals one at a time (`_goals`) within `PROOF_UNITS` of z3's
    work, and at most half the time left."""
    Mo, Mn = step.Mo, step.Mn
    alike = step.alike
    if not full and not alike:
        return None
    for with_invariants in (False, True) if full else (False,):
        if with_invariants and not assume_invariants(old, clock):
            return None
        ctx = Ctx("pre")
        pre = [Mo.enc.wf(step.S), NOT(step.S.term),
               NOT(Mo.round_end(step.S, Exec(Mo.enc, ctx))),
               NOT(Mn.round_end(step.Sn, Exec(Mn.enc, ctx))), ctx.defined()]
        if with_invariants:
            pre.append(Mo.invariants(step.S, ctx))
            pre.append(ctx.defined())
        s = new_solver(clock)
        add_all(s, *pre, *ctx.assume)
        units, half = Budget(PROOF_UNITS), Clock(clock.left() / 2)
        if all(units.check(s, half, goal) == z3.unsat for goal in _goals(step)):
            using = f" {WITH_INVARIANTS}" if with_invariants else ""
            how = ("" if not alike else "; the round transition, scores and winners are the "
                   "same rules in both")
            return Product("proved_same", "the deals are alike, and from every well-formed "
                           f"state{using} within a round both versions allow the same actions, "
                           f"and each action leads to the same state, scores and winners{how}",
                           clock.elapsed())
        if clock.left() <= 0:
            return None
    return None


def _goals(step: ProductStep) -> Iterator[Any]:
    """What the one-step proof asks, one goal at a time, cheapest first: the legal actions
    differ; then, per action taken in both, its states differ (where the round rules are
    alike: after the action part alone); then the round transition. One action at a time is
    easier for z3 than all at once (with six players, 11 million units of work against 28),
    and the first goal that can be met ends the try."""
    yield step.legal
    if step.alike:
        yield from (f for _, f in step.action_states())
        return
    yield from (f for _, f in step.action())
    yield z3.And(*step.round()[0])


class _Search:
    """Bounded model checking from the deal, resumable: at each depth the legal actions, then
    an action within a round, then an action ending one."""

    def __init__(self, old: model.Game, step: ProductStep, clock: Clock,
                 progress: Callable[[str], None] | None = None) -> None:
        self.old, self.step, self.clock = old, step, clock
        self.progress = progress
        self.u = Unroller(old, clock)  # its `budget`: the units of the current run, if any
        self.k = 0

    def run(self, max_depth: int, share: int, units: int | None = None) -> Product | None:
        """Search depths up to max_depth within `share` of the clock's units (and `units`
        of z3's work for its checks, if given): a parting game, or `bounded` when z3 or the
        clock gave out; None when the depths asked were all searched or the share or units
        ran out first (searched up to `self.k - 1`), so that the caller may go on: a short
        first search that reached its depth has not ended the search."""
        u, step, clock = self.u, self.step, self.clock
        u.budget = None if units is None else Budget(units)
        stop = Clock(share)
        while self.k <= max_depth:
            k = self.k
            while u.depth < k:
                if clock.left() <= 0:
                    return _bounded(k, clock)
                if stop.left() <= 0:
                    return None
                u.extend()
            pairs = step.pairs(u.states[k])
            checks = [("legal", lambda: step.legal),
                      ("action", lambda: z3.Or(*[f for _, f in step.action()])),
                      ("round", lambda: z3.And(*step.round()[0]))]
            for mode, goal in checks:
                target = z3.substitute(goal(), pairs)
                u.s.push()
                r = u.check(target)
                if r == z3.sat:
                    m = u.s.model()
                    u.s.pop()
                    return _witness(self.old, u, step, m, k, pairs, mode, clock)
                u.s.pop()
                if r == z3.unknown:
                    spent = u.budget is not None and u.budget.left <= 0
                    return None if spent else _bounded(k, clock)
            self.k += 1
            if self.progress:
                self.progress(f"z3: the first {self.k} action(s) of every game behave alike "
                              f"({clock.elapsed():.0f} s)")
            if stop.left() <= 0:
                break
        return None


def _bounded(k: int, clock: Clock) -> Product:
    """Depths 0 .. k-1 searched: from every deal, the first k actions behave alike."""
    if k == 0:
        return Product("unknown", "z3 could not search from the deal within the budget",
                       clock.elapsed())
    return Product("bounded", f"from every deal the first {k} action(s) behave alike (z3; "
                   "unknown beyond)", clock.elapsed(), bound=k)


def _witness(old: model.Game, u: Unroller, step: ProductStep, m: z3.ModelRef, k: int,
             pairs: list, mode: str, clock: Clock) -> Product:
    ev = model_value(m)
    enc = step.Mo.enc
    try:
        prefix = u.trace(m, k)
    except Disagreement as exc:
        return Product("unknown", f"the z3 witness did not replay: {exc}", clock.elapsed())
    if mode == "legal":
        return Product("parted", f"the legal actions differ after {k} action(s)",
                       clock.elapsed(), k, "legal", prefix)
    if mode == "action":
        found = [n for (n, f) in step.action()]
        flags = substitute_many(pairs, [f for _, f in step.action()])
        n = next(n for n, v in zip(found, flags, strict=True) if ev(v))
        post, extra = step.old_parts[n].post, []
    else:
        _, sels, post, rctx = step.round()
        items = list(sels.items())
        flags = substitute_many(pairs, [x for _, x in items])
        n = next(n for (n, _), v in zip(items, flags, strict=True) if ev(v))
        extra = list(rctx.events)
    part = step.old_parts[n]
    args = tuple(ev(x) for x in substitute_many(pairs, [zterm(a) for a in part.args]))
    action = old.action(part.alt.action, args)
    events = []
    for e in [*part.ctx.events, *extra]:
        flat: list = [e.guard]
        flatten(e.args, flat)
        zs = iter(substitute_many(pairs, [x for x in flat if isinstance(x, z3.ExprRef)]))
        done = iter([next(zs) if isinstance(x, z3.ExprRef) else x for x in flat])
        guard = next(done)
        events.append(type(e)(guard, e.op, rebuild(e.args, done)))
    trace = Trace(old, "deal", [*prefix.actions, action],
                  [*prefix.values, enc.evaluate(m, _sub_state(pairs, post))],
                  [*prefix.events, events_in_model(m, events)])
    try:
        finish(enc, trace)
    except Disagreement as exc:
        return Product("unknown", f"the z3 witness did not replay: {exc}", clock.elapsed())
    return Product("parted", f"{action} leads to different states after {k} action(s)",
                   clock.elapsed(), k, "state", trace)


# ------------------------------------------------------------------ conditions alike
def _verdict(r: z3.CheckSatResult) -> str:
    return "equivalent" if r == z3.unsat else "different" if r == z3.sat else "unknown"


def conditions_equivalent(old: model.Game, new: model.Game, old_expr: ir.Expr,
                          new_expr: ir.Expr, limit: int = RLIMIT,
                          renames: Renames | None = None, per_player: bool = False) -> str:
    """Whether two yes/no expressions (no free names; with `per_player`, numbers of the
    player `p`, as a score) agree in every well-formed state: 'equivalent', 'different', or
    'unknown' (or 'not_applicable' when the states do not match by name)."""
    clock = Clock(limit)
    try:
        return _conditions_equivalent(old, new, old_expr, new_expr, clock, renames, per_player)
    except OutOfTime:
        return "unknown"


def _conditions_equivalent(old: model.Game, new: model.Game, old_expr: ir.Expr,
                           new_expr: ir.Expr, clock: Clock, renames: Renames | None,
                           per_player: bool) -> str:
    try:
        Mo, Mn, corr = versions_machines(old, new, renames)
        if not corr.compatible:
            return "not_applicable"
        S = Mo.enc.fresh_state("E.in")
        ctx_o, ctx_n = Ctx("E.o"), Ctx("E.n")
        if per_player:
            pairs = [(Mo.value(old_expr, S, ctx_o, {"p": p}),
                      Mn.value(new_expr, corr.state(S), ctx_n, {"p": p}))
                     for p in range(Mo.enc.P)]
        else:
            pairs = [(Mo.condition(old_expr, S, ctx_o),
                      Mn.condition(new_expr, corr.state(S), ctx_n))]
    except Unsupported:
        return "unknown"
    s = new_solver(clock)
    add_all(s, Mo.enc.wf(S), ctx_o.defined(), ctx_n.defined(), *ctx_o.assume, *ctx_n.assume)
    r = check_sat(s, clock, OR(*[NOT(EQ(a, b)) for a, b in pairs]))
    return _verdict(r)


def guards_equivalent(old: model.Game, new: model.Game, old_action: str, new_action: str,
                      limit: int = RLIMIT, renames: Renames | None = None) -> str:
    """Whether an action is legal in exactly the same well-formed states, for the same actor
    and parameter values, in both versions (its guard and parameter domains)."""
    clock = Clock(limit)
    try:
        return _guards_equivalent(old, new, old_action, new_action, clock, renames)
    except OutOfTime:
        return "unknown"


def _guards_equivalent(old: model.Game, new: model.Game, old_action: str, new_action: str,
                       clock: Clock, renames: Renames | None) -> str:
    try:
        Mo, Mn, corr = versions_machines(old, new, renames)
        if not corr.compatible:
            return "not_applicable"
        S = Mo.enc.fresh_state("G.in")
        Sn = corr.state(S)
        ren = {**dict((renames or {}).get("actions", {})), old_action: new_action}
        match = match_alts(Mo, Mn, {"actions": ren})
        diffs = []
        for n, m in match.items():
            ao, an = Mo.alts()[n], Mn.alts()[m]
            if Mo.g.actions[ao.action].name != old_action:
                continue
            po = Mo.action_part(S, ao, f"G.o{n}")
            pn = Mn.action_part(Sn, an, f"G.n{m}")
            tie = []
            decl = Mo.g.actions[ao.action]
            for (_, dom), x, y in zip(decl.params, po.args, pn.args, strict=True):
                t = dom.type.of
                tie.append(EQ(corr.kind_term(x) if t is not None and t.name == "kind" else x, y))
            diffs.append(AND(*tie, po.guard_ok, pn.guard_ok, NOT(EQ(po.enabled, pn.enabled))))
        if not diffs:
            return "not_applicable"
    except Unsupported:
        return "unknown"
    s = new_solver(clock)
    add_all(s, Mo.enc.wf(S), NOT(S.term))
    r = check_sat(s, clock, OR(*diffs))
    return _verdict(r)
