"""Symbolic execution of IR statements and effects: a `SymState` in, a `SymState` out,
with `if` run on both branches and merged, loops unrolled, and each chance choice logged
as an `Event`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from model import ir

from . import loop_bounds, retry
from .expressions import Expressions
from .state import SymList, SymState, ZoneRef
from .terms import (
    ADD,
    AND,
    B2I,
    DIV,
    EQ,
    IMPLIES,
    ITE,
    KNOWN_BELOW,
    LE,
    LOOP_BOUND,
    LT,
    MIN,
    NOT,
    OR,
    SUB,
    SUM,
    OutOfTime,
    Unsupported,
    as_int,
    past_deadline,
)


class Exec(Expressions):
    """Runs statements and effects on symbolic states (expressions: `Expressions`)."""

    # ---------------------------------------------------------- state updates
    def merge(self, c: Any, a: SymState, b: SymState) -> SymState:
        """If(c, a, b), slot by slot."""
        if c is True:
            return a
        if c is False:
            return b
        Z, T, S = [], [], []
        for i in range(self.enc.n_inst):
            za, zb = a.Z[i], b.Z[i]
            Z.append(za if za is zb else tuple(ITE(c, x, y) for x, y in zip(za, zb, strict=True)))
            T.append(None if a.T[i] is None else ITE(c, a.T[i], b.T[i]))
            sa, sb = a.S[i], b.S[i]
            n = min(len(sa), len(sb))
            S.append(sa if sa is sb else tuple(ITE(c, sa[j], sb[j]) for j in range(n)))
        V = {}
        for name, xs in a.V.items():
            ys = b.V[name]
            V[name] = xs if xs is ys else tuple(ITE(c, x, y) for x, y in zip(xs, ys, strict=True))
        out = SymState(Z, T, S, V, ITE(c, a.term, b.term))
        for i in range(self.enc.n_inst):
            if Z[i] is a.Z[i]:
                out.N[i] = a.N[i]
            elif a.N[i] is not None or b.N[i] is not None:
                out.set_total(i, ITE(c, self.enc.total(a, i), self.enc.total(b, i)))
        return out

    def forget(self, st: SymState) -> SymState:
        """The hidden slots (`Ctx.hidden`) with fresh values, where they changed since they
        were last forgotten."""
        ctx, enc = self.ctx, self.enc
        hidden, seen = ctx.hidden, ctx.pristine
        assert hidden is not None, "called only where slots are hidden"
        out = None
        for i in hidden.zones | hidden.coarse:
            if seen.get(("Z", i)) is st.Z[i] and seen.get(("T", i)) is st.T[i]:
                continue
            out = out or st.copy()
            counts = tuple(ctx.fresh("h") for _ in st.Z[i])
            if i in hidden.coarse:
                ctx.assume_(AND(EQ(SUM(counts), SUM(st.Z[i])), *[LE(0, c) for c in counts]))
            out.Z[i] = seen[("Z", i)] = counts
            if enc.inst_pile[i]:
                out.T[i] = seen[("T", i)] = ctx.fresh("h")
                if i in hidden.coarse:
                    ctx.assume_(enc.top_ok(out, i, out.T[i]))
            out.S[i] = ()
        for name in hidden.variables:
            if seen.get(("V", name)) is st.V[name]:
                continue
            out = out or st.copy()
            out.V[name] = seen[("V", name)] = tuple(
                ctx.fresh("h", enc.is_bool_var(name)) for _ in st.V[name])
        return out or st

    def add_kind(self, st: SymState, i: int, k: Any, n: Any) -> SymState:
        """n more items of kind k (a value) in instance i (a copy of the state)."""
        enc = self.enc
        st = st.copy()
        if isinstance(k, int):
            pos = enc.kpos[i].get(k)
            if pos is None:
                if not (isinstance(n, int) and n == 0):
                    self.ctx.fail_if(True, f"typing: a {enc.g.kinds[k].item_class[:-1]} put "
                                           f"into {enc.inst_name(i)}")
                return st
            total = enc.total(st, i)
            z = list(st.Z[i])
            z[pos] = ADD(z[pos], n)
            st.Z[i] = tuple(z)
            st.set_total(i, ADD(total, n))
            return st
        total, mine = enc.total(st, i), self.of_zone(i, k)
        # none put is no item of another class (as for a known kind, above)
        self.ctx.require(OR(mine, EQ(n, 0)),
                         f"typing: an item of another class put into {enc.inst_name(i)}")
        if isinstance(n, int) and n < 0:  # written as a subtraction, so a move's two
            # halves cancel when z3 simplifies a total
            st.Z[i] = tuple(SUB(c, ITE(EQ(k, kk), -n, 0))
                            for kk, c in zip(enc.inst_kinds[i], st.Z[i], strict=True))
            st.set_total(i, SUB(total, ITE(mine, -n, 0)))
            return st
        st.Z[i] = tuple(ADD(c, ITE(EQ(k, kk), n, 0)) for kk, c in zip(enc.inst_kinds[i], st.Z[i],
                                                                  strict=True))
        st.set_total(i, ADD(total, ITE(mine, n, 0)))
        return st

    def of_zone(self, i: int, k: Any) -> Any:
        """Whether kind k (a term) is one instance i holds."""
        return OR(*[EQ(k, kk) for kk in self.enc.inst_kinds[i]])

    def new_top(self, st: SymState, i: int, why: str = "reveal") -> Any:
        """A fresh top for pile i: a kind it holds, or the canonical kind if it is empty.
        `why` names the chance choice (reveal, shuffle, gather, deal) for `Ctx.fresh`."""
        t = self.ctx.fresh("top", key=(why, self.enc.inst_name(i)))
        self.ctx.assume_(self.enc.top_ok(st, i, t))
        return t

    def after_top_left(self, st: SymState, i: int) -> SymState:
        """The top item of pile i is gone (counts already updated): expose the next one.

        `S[i][0]` is the item below the top whenever the pile held two or more; if the
        pile is now empty the top is the canonical kind; if nothing is known, a fresh kind.
        """
        st = st.copy()
        sh = st.S[i]
        if sh:
            st.T[i] = ITE(LT(0, self.enc.total(st, i)), sh[0], self.enc.canon[self.enc.holds(i)])
            st.S[i] = sh[1:]
        else:
            st.T[i] = self.new_top(st, i)
        return st

    def pop(self, st: SymState, i: int, site: str) -> tuple[Any, SymState]:
        """Take the top item of pile i: its kind, and the state after."""
        enc = self.enc
        total = enc.total(st, i)
        self.ctx.require(LT(0, total), f"undefined: taking from the empty pile {enc.inst_name(i)}")
        if enc.shared(i):
            self.ctx.shortage(site, enc.inst_name(i), EQ(total, 0))
        k = st.T[i]
        st = st.copy()
        st.Z[i] = tuple(SUB(c, B2I(EQ(k, kk))) for kk, c in zip(enc.inst_kinds[i], st.Z[i],
                                                              strict=True))
        st.set_total(i, SUB(total, B2I(self.of_zone(i, k))))
        self.ctx.event("pop", i, k)
        return k, self.after_top_left(st, i)

    def put(self, st: SymState, j: int, k: Any) -> SymState:
        """One item of kind k onto instance j (a pile's new top, or a bag)."""
        return self.push(st, j, k, 1) if self.enc.inst_pile[j] else self.add_kind(st, j, k, 1)

    def push(self, st: SymState, i: int, k: Any, n: Any = 1) -> SymState:
        """n items of kind k on top of pile i (n <= 0 puts nothing, as list.extend)."""
        if isinstance(n, int):
            for _ in range(max(n, 0)):
                old_top = st.T[i]
                st = self.add_kind(st, i, k, 1)
                st.T[i] = k
                st.S[i] = (old_top, *st.S[i])[:KNOWN_BELOW]
                self.ctx.event("push", i, k, 1)
            return st
        pos = ITE(LT(0, n), n, 0)
        old_top = st.T[i]
        st = self.add_kind(st, i, k, pos)
        st.T[i] = ITE(LT(0, n), k, old_top)
        st.S[i] = ()
        self.ctx.event("push", i, k, pos)
        return st

    def take(self, st: SymState, i: int, k: Any, site: str) -> SymState:
        """Remove the topmost item of kind k from pile i (the runtime's _take_from_pile)."""
        enc = self.enc
        have = self.kcount(st, i, k)
        self.ctx.require(LE(1, have), f"undefined: no such item in {enc.inst_name(i)}")
        if enc.shared(i):
            self.ctx.shortage(site, enc.inst_name(i), LT(have, 1))
        was_top = EQ(k, st.T[i])
        total = enc.total(st, i)
        st = st.copy()
        st.Z[i] = tuple(SUB(c, B2I(EQ(k, kk))) for kk, c in zip(enc.inst_kinds[i], st.Z[i],
                                                              strict=True))
        st.set_total(i, SUB(total, B2I(self.of_zone(i, k))))
        self.ctx.event("take", i, k)
        if was_top is True:
            return self.after_top_left(st, i)
        with self.ctx.under(was_top):
            exposed = self.after_top_left(st, i)
        st = st.copy()
        st.T[i] = ITE(was_top, exposed.T[i], st.T[i])
        st.S[i] = ()
        return st

    # ---------------------------------------------------------- statements
    def run(self, body: Sequence[ir.Stmt], st: SymState, env: dict) -> SymState:
        for s in body:
            if self.ctx.path is False:
                return st
            st = self.stmt(s, st, env)
        return st

    def stmt(self, s: ir.Stmt, st: SymState, env: dict) -> SymState:
        if past_deadline():
            raise OutOfTime(f"spec line {s.where.line}")
        ctx = self.ctx
        if ctx.hidden is not None:
            st = self.forget(st)
        match s:
            case ir.Assign(target=t, op=op, value=v):
                return self.assign(st, t, op, self.ev(v, st, env), env)
            case ir.Do():
                return self.effect(s, st, env)
            case ir.If(test=t, then=a, orelse=b):
                c = self.truth(self.ev(t, st, env))
                if c is True:
                    return self.run(a, st, env)
                if c is False:
                    return self.run(b, st, env)
                with ctx.under(c):
                    sa = self.run(a, st, env)
                with ctx.under(NOT(c)):
                    sb = self.run(b, st, env)
                return self.merge(c, sa, sb)
            case ir.For(var=v, iter=it, body=b):
                lst = self.ev(it, st, env)
                if isinstance(lst, ZoneRef):
                    lst = self.zone_kinds(st, lst)
                for p, x in lst.items:
                    if p is False:
                        continue
                    with ctx.under(p):
                        s2 = self.run(b, st, {**env, v: x})
                    st = self.merge(p, s2, st)
                return st
            case ir.Repeat(count=n, body=b):
                cnt = as_int(self.ev(n, st, env))
                if isinstance(cnt, int):
                    for _ in range(max(cnt, 0)):
                        st = self.run(b, st, env)
                    return st
                ctx.fail_if(cnt > LOOP_BOUND, f"bound: repeat beyond {LOOP_BOUND} (z3 encoding)")
                for j in range(LOOP_BOUND):
                    c = cnt > j
                    with ctx.under(c):
                        s2 = self.run(b, st, env)
                    st = self.merge(c, s2, st)
                return st
            case ir.While(test=t, limit=limit, body=b):
                depths = tuple(len(x) for x in st.S)
                if retry.forgets(self.enc, lambda c: type(self)(self.enc, c), s, depths, env):
                    return retry.one_try(self, s, st, env)
                bound = min(limit, LOOP_BOUND)
                live: Any = True
                most: int | None = None  # tries it can make, asked once the test is symbolic
                for j in range(bound):
                    with ctx.under(live):
                        c = self.truth(self.ev(t, st, env))
                    live = AND(live, c)
                    if live is False:
                        return st
                    if most is None and live is not True:
                        most = loop_bounds.runs_at_most(
                            self.enc, lambda c: type(self)(self.enc, c), s, depths, env, bound)
                    if most is not None and j >= most:
                        return st  # proved: try j + 1 never runs from a sound state
                    with ctx.under(live):
                        s2 = self.run(b, st, env)
                    st = self.merge(live, s2, st)
                with ctx.under(live):
                    c = self.truth(self.ev(t, st, env))
                what = (f"undefined: the loop at spec line {s.where.line} ran past its max"
                        if bound == limit else f"bound: while beyond {bound} (z3 encoding)")
                ctx.fail_if(c, what)
                return st
        raise Unsupported(f"statement {type(s).__name__}")

    def assign(self, st: SymState, t: ir.Var, op: str, val: Any, env: dict) -> SymState:
        xs = st.V[t.name]
        boolean = self.enc.is_bool_var(t.name)

        def combine(old: Any) -> Any:
            if op == "=":
                return self.truth(val) if boolean else as_int(val)
            delta = as_int(val)
            return old + delta if op == "+=" else old - delta

        st = st.copy()
        if t.index is None:
            st.V[t.name] = (combine(xs[0]),)
            return st
        idx = as_int(self.ev(t.index, st, env))
        if isinstance(idx, int):
            if not 0 <= idx < len(xs):
                self.ctx.fail_if(True, f"undefined: {t.name}[{idx}] does not exist")
                return st
            st.V[t.name] = tuple(combine(x) if i == idx else x for i, x in enumerate(xs))
            return st
        self.ctx.require(AND(idx >= 0, idx < len(xs)), f"undefined: {t.name}[...] out of range")
        st.V[t.name] = tuple(ITE(idx == i, combine(x), x) for i, x in enumerate(xs))
        return st

    # ---------------------------------------------------------- effects
    def effect(self, s: ir.Do, st: SymState, env: dict, args: list | None = None) -> SymState:
        """Run effect `s` (with `args`, if given, in place of its arguments' values)."""
        if self.ctx.path is not False:
            self.ctx.sites.append((s, tuple(len(x) for x in st.S), env))
        fn = s.fn
        site = f"{fn}@{s.where.line}"
        if args is None:
            args = [self.ev(a, st, env) for a in s.args]
        at = ir.COUNT_ARG.get(fn)  # checked of given arguments too (an effect lemma's)
        if at is not None and at < len(args):  # as the concrete model checks (r.count)
            self.ctx.fail_if(LT(as_int(args[at]), 0), f"undefined: a negative count ({site})")
        kw = {k: as_int(self.ev(v, st, env)) for k, v in s.kwargs}
        if fn == "move":
            k, src, dst = as_int(args[0]), args[1], args[2]
            n = as_int(args[3]) if len(args) > 3 else 1
            return self.on_zone(st, src, lambda s1, i: self.on_zone(
                s1, dst, lambda s2, j: self.move_kind(s2, i, j, k, n, site)))
        if fn == "move_top":
            src, dst = args[0], args[1]
            n = as_int(args[2]) if len(args) > 2 else 1
            return self.on_zone(st, src, lambda s1, i: self.move_top(s1, i, dst, n, site))
        if fn == "move_all":
            keep = kw.get("keep", 0)
            if not isinstance(keep, int):
                raise Unsupported("move_all with a keep= that is not constant")
            return self.on_zone(st, args[0], lambda s1, i: self.on_zone(
                s1, args[1], lambda s2, j: self.move_all(s2, i, j, max(keep, 0))))
        if fn == "gather":
            wanted = args[0] if isinstance(args[0], SymList) else SymList(((True, args[0]),))
            return self.on_zone(st, args[1], lambda s1, j: self.gather(s1, wanted, j))
        if fn == "shuffle":
            def shuffle(s1: SymState, i: int) -> SymState:
                s1 = s1.copy()
                self.ctx.event("shuffle", i)
                s1.T[i] = self.new_top(s1, i, "shuffle")
                s1.S[i] = ()
                return s1
            return self.on_zone(st, args[0], shuffle)
        if fn == "deal":
            n = as_int(args[2])
            if not isinstance(n, int):
                raise Unsupported("deal with a number of items that is not constant")
            return self.on_zone(st, args[0], lambda s1, i: self.deal(s1, i, args[1], max(n, 0),
                                                                     site))
        if fn == "pay":
            amount = as_int(args[0])
            result: list[Any] = []
            st = self.on_zone(st, args[1], lambda s1, i: self.on_zone(
                s1, args[2], lambda s2, j: self.pay(s2, i, j, amount, result, site)))
            if len(result) != 1:
                raise Unsupported("pay between zones chosen at run time")
            if s.result is not None:
                st = self.assign(st, s.result, s.result_op, result[0], env)
            return st
        if fn == "exchange":
            return self.on_zone(st, args[0], lambda s1, i: self.on_zone(
                s1, args[1], lambda s2, j: self.exchange(s2, i, j, site)))
        raise Unsupported(f"effect {fn}")

    def move_kind(self, st: SymState, i: int, j: int, k: Any, n: Any, site: str) -> SymState:
        """move(kind, from, to, n): the runtime's move_bb / move_bp / move_pb / move_pp."""
        enc, ctx = self.enc, self.ctx
        if enc.inst_pile[i]:
            if not isinstance(n, int):
                raise Unsupported("moving a number of items from a pile that is not constant")
            for _ in range(max(n, 0)):
                st = self.take(st, i, k, site)
            if enc.inst_pile[j]:
                return self.push(st, j, k, max(n, 0))
            return self.add_kind(st, j, k, n)
        have = self.kcount(st, i, k)
        ctx.require(LE(n, have), f"undefined: not enough items in {enc.inst_name(i)}")
        if enc.shared(i):
            ctx.shortage(site, enc.inst_name(i), LT(have, n))
        st = self.add_kind(st, i, k, -n)
        if enc.inst_pile[j]:
            return self.push(st, j, k, n)
        return self.add_kind(st, j, k, n)

    def move_top(self, st: SymState, i: int, dst: ZoneRef, n: Any, site: str) -> SymState:
        """Each item is taken once and put where `dst` points (not taken once per place
        `dst` may denote: that would give each place its own chance draw)."""
        enc = self.enc
        if not enc.inst_pile[i]:
            raise Unsupported("move_top from a bag")
        total = enc.total(st, i)
        if isinstance(n, int) and n > 1 and not st.S[i]:
            alts = self.zone_alts(dst)
            if len(alts) == 1 and alts[0][0] is True and not enc.inst_pile[alts[0][1]]:
                return self.take_many(st, i, alts[0][1], n, site)
        if isinstance(n, int):
            if n > 1:
                self.ctx.require(LE(n, total), f"undefined: taking {n} from the pile "
                                               f"{enc.inst_name(i)}")
            for _ in range(max(n, 0)):
                k, st = self.pop(st, i, site)
                st = self.on_zone(st, dst, lambda s1, j: self.put(s1, j, k))  # noqa: B023
            return st
        self.ctx.require(LE(n, total), f"undefined: taking from the pile {enc.inst_name(i)}")
        for c in range(sum(enc.copies[k] for k in enc.inst_kinds[i])):
            live = LT(c, n)
            with self.ctx.under(live):
                k, s2 = self.pop(st, i, site)
                s2 = self.on_zone(s2, dst, lambda s1, j: self.put(s1, j, k))  # noqa: B023
            st = self.merge(live, s2, st)
        return st

    def take_many(self, st: SymState, i: int, j: int, n: int, site: str) -> SymState:
        """move_top(pile i, bag j, n) when nothing is known below the pile's top, as
        counts: how many of each kind the n items are (the top among them). Exactly the
        outcomes of n draws one by one, each exposing a fresh top, in one step instead of n
        (a deal of n to one zone, and logged as one for the witness replay)."""
        enc, ctx = self.enc, self.ctx
        total = enc.total(st, i)
        ctx.require(LE(n, total), f"undefined: taking {n} from the pile {enc.inst_name(i)}")
        if enc.shared(i):
            ctx.shortage(site, enc.inst_name(i), LT(total, n))
        with ctx.under(LE(n, total)):
            return self._deal(st, i, [j], n)

    def move_all(self, st: SymState, i: int, j: int, keep: int) -> SymState:
        enc, ctx = self.enc, self.ctx
        if not enc.inst_pile[i]:
            # all_bb / all_bp: kind by kind, add then clear (so moving a bag into itself
            # behaves as the runtime does)
            for pos, k in enumerate(enc.inst_kinds[i]):
                c = st.Z[i][pos]
                st = self.push(st, j, k, c) if enc.inst_pile[j] else self.add_kind(st, j, k, c)
                z = list(st.Z[i])
                z[pos] = 0
                st.Z[i] = tuple(z)
            return st
        total = enc.total(st, i)
        old = st.Z[i]
        ks = enc.inst_kinds[i]
        top = st.T[i]
        if keep == 0:
            kept: tuple = tuple(0 for _ in ks)
        elif keep == 1:
            nonempty = LE(1, total)
            kept = tuple(B2I(AND(nonempty, EQ(top, k))) for k in ks)
        else:
            kept = tuple(ctx.fresh("kept", key=("kept", enc.inst_name(i), enc.g.kinds[k].name))
                         for k in ks)
            for kk, c, x in zip(ks, old, kept, strict=True):
                ctx.assume_(AND(x >= 0, x <= c))
                ctx.assume_(IMPLIES(AND(LE(1, total), EQ(top, kk)), x >= 1))
            ctx.assume_(SUM(list(kept)) == MIN(total, keep))
        moved = tuple(SUB(c, x) for c, x in zip(old, kept, strict=True))
        kept_total = (0 if keep == 0 else
                      B2I(AND(LE(1, total), self.of_zone(i, top))) if keep == 1 else
                      SUM(list(kept)))
        src_shadow = st.S[i]
        st = st.copy()
        st.Z[i] = kept
        st.set_total(i, kept_total)
        dst_total = enc.total(st, j)  # after the source is emptied: `j` may be `i`
        if keep == 0:
            st.T[i] = enc.canon[enc.holds(i)]
            st.S[i] = ()
        else:
            st.S[i] = st.S[i][: keep - 1]
        if enc.inst_pile[j]:
            old_top = st.T[j]
            for k, c in zip(ks, moved, strict=True):
                st = self.add_kind(st, j, k, c)
            if keep == 0:
                st.T[j] = ITE(LT(0, total), top, old_top)
                # what was remembered below the source's top now lies below the moved top,
                # but only as deep as the source reached (then comes `j`'s old top)
                st.S[j] = (src_shadow if isinstance(total, int) and total > len(src_shadow)
                           else ())
            else:
                any_moved = LT(0, SUM(list(moved)))
                t = ctx.fresh("top", key=("move_all", enc.inst_name(j)))
                with ctx.under(any_moved):
                    ctx.assume_(OR(*[AND(EQ(t, k), LE(1, c)) for k, c in zip(ks, moved,
                                                                          strict=True)]))
                st.T[j] = ITE(any_moved, t, old_top)
                st.S[j] = ()
        else:
            for k, c in zip(ks, moved, strict=True):
                st = self.add_kind(st, j, k, c)
        if enc.holds(i) == enc.holds(j):
            st.set_total(j, ADD(dst_total, SUB(total, kept_total)))
        ctx.event("move_all", i, j, keep, kept, top)
        return st

    def gather(self, st: SymState, wanted: SymList, j: int) -> SymState:
        """gather(kinds, into): every item of the wanted kinds, from every other zone of
        into's class, into `into` (in the order the kinds are listed)."""
        enc, ctx = self.enc, self.ctx
        ks = enc.classes[enc.holds(j)]
        w = {k: OR(*[AND(p, EQ(v, k)) for p, v in wanted.items]) for k in ks}
        found: dict[int, list] = {k: [] for k in ks}
        for i in range(enc.n_inst):
            if i == j or enc.holds(i) != enc.holds(j):
                continue
            new = []
            for k, c in zip(enc.inst_kinds[i], st.Z[i], strict=True):
                found[k].append(ITE(w[k], c, 0))
                new.append(ITE(w[k], 0, c))
            st = st.copy()
            st.Z[i] = tuple(new)
            if enc.inst_pile[i]:
                top_gone = OR(*[AND(w[k], EQ(st.T[i], k)) for k in ks])
                if top_gone is not False:
                    with ctx.under(top_gone):
                        t = self.new_top(st, i, "gather")
                    st.T[i] = ITE(top_gone, t, st.T[i])
                st.S[i] = ()
        ctx.event("drop_kinds", tuple(w[k] for k in ks), j)
        if all(isinstance(v, int) for _, v in wanted.items):
            order = [k for k in dict.fromkeys(v for _, v in wanted.items) if k in found]
        else:
            raise Unsupported("gather with kinds chosen at run time")
        for k in order:
            n = SUM(found[k])
            st = self.push(st, j, k, n) if enc.inst_pile[j] else self.add_kind(st, j, k, n)
        return st

    def deal(self, st: SymState, i: int, family: str, n: int, site: str) -> SymState:
        """deal(from_pile, family, n): n items each, one at a time, seat 0 first."""
        enc, ctx = self.enc, self.ctx
        if not enc.inst_pile[i]:
            raise Unsupported("deal from a bag")
        base = enc.base[family]
        targets = [base + p for p in range(enc.P)]
        total = enc.total(st, i)
        ctx.require(LE(n * enc.P, total), f"undefined: dealing {n} each from {enc.inst_name(i)}")
        if enc.shared(i):
            ctx.shortage(site, enc.inst_name(i), LT(total, n * enc.P))
        if n == 0:
            return st
        if st.S[i] or n * enc.P <= 2:
            # something is known below the top: deal card by card, exactly
            for _ in range(n):
                for j in targets:
                    k, st = self.pop(st, i, site)
                    st = self.put(st, j, k)
            return st
        with ctx.under(LE(n * enc.P, total)):
            return self._deal(st, i, targets, n)

    def _deal(self, st: SymState, i: int, targets: list[int], n: int) -> SymState:
        """A deal as counts: how many of each kind each player gets (an exact abstraction:
        any split of the counts is some order of the shuffled pile)."""
        enc, ctx = self.enc, self.ctx
        ks = enc.inst_kinds[i]
        top = st.T[i]
        hands = []
        for p in range(len(targets)):
            h = tuple(ctx.fresh(f"deal{p}_", key=("deal", enc.inst_name(i),
                                                  enc.inst_name(targets[p]), enc.g.kinds[k].name))
                      for k in ks)
            for x in h:
                ctx.assume_(x >= 0)
            ctx.assume_(SUM(list(h)) == n)
            if p == 0:  # the first item dealt is the pile's top
                ctx.assume_(OR(*[AND(EQ(top, k), x >= 1) for k, x in zip(ks, h, strict=True)]))
            hands.append(h)
        new_counts = tuple(SUB(c, SUM([h[pos] for h in hands])) for pos, c in enumerate(st.Z[i]))
        for c in new_counts:
            ctx.assume_(c >= 0)
        st = st.copy()
        st.Z[i] = new_counts
        st.S[i] = ()
        st.T[i] = self.new_top(st, i, "deal")
        dst_tops = []
        for h, j in zip(hands, targets, strict=True):
            for k, x in zip(ks, h, strict=True):
                st = self.add_kind(st, j, k, x)
            if enc.inst_pile[j]:
                t = ctx.fresh("top", key=("dealt_top", enc.inst_name(j)))
                ctx.assume_(OR(*[AND(EQ(t, k), x >= 1) for k, x in zip(ks, h, strict=True)]))
                st.T[j] = t
                st.S[j] = ()
                dst_tops.append(t)
            else:
                dst_tops.append(None)
        ctx.event("deal", i, tuple(targets), n, tuple(hands), top, tuple(dst_tops))
        return st

    def pay(self, st: SymState, i: int, j: int, amount: Any, result: list, site: str
            ) -> SymState:
        """Tokens worth `amount`, largest value first (the runtime's pay); keeps the shortfall."""
        enc = self.enc
        if enc.inst_pile[i] or enc.inst_pile[j]:
            raise Unsupported("pay with piles")
        left = amount
        for k in enc.denoms:
            v = enc.ka["value"][k]
            if v <= 0:
                continue
            have = self.kcount(st, i, k)
            m = ITE(LE(v, left), MIN(DIV(left, v), have), 0)
            st = self.add_kind(st, i, k, -m)
            st = self.add_kind(st, j, k, m)
            left = left - m * v
        if enc.shared(i):
            self.ctx.shortage(site, enc.inst_name(i), LT(0, left))
        result.append(left)
        return st

    def exchange(self, st: SymState, i: int, j: int, site: str) -> SymState:
        """Swap small tokens in zone i for larger ones from bank j (the runtime's exchange)."""
        enc = self.enc
        value = enc.ka["value"]
        for big in enc.denoms:
            bv = value[big]
            if bv <= 0:
                continue
            for small in reversed(enc.denoms):
                sv = value[small]
                if sv <= 0 or sv >= bv or bv % sv:
                    continue
                need = bv // sv
                m = MIN(DIV(self.kcount(st, i, small), need), self.kcount(st, j, big))
                m = ITE(LT(0, m), m, 0)
                st = self.add_kind(st, i, small, -m * need)
                st = self.add_kind(st, j, small, m * need)
                st = self.add_kind(st, j, big, -m)
                st = self.add_kind(st, i, big, m)
                if enc.shared(j):
                    self.ctx.shortage(site, enc.inst_name(j), AND(LE(need, self.kcount(st, i, small)),
                                                EQ(self.kcount(st, j, big), 0)))
        return st
