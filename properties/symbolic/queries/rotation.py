"""Seat rotation of symbolic states, model values and events (for cycles that return to a
round start with every seat moved on by one).
"""

from __future__ import annotations

from typing import Any

from ..state import SymState


# ---------------------------------------------------------------------- seat rotation
def rotate_state(enc: Any, st: SymState, by: int = 1,
                 held: frozenset[str] = frozenset()) -> SymState:
    """The state with every seat moved `by` places on: zone and variable families per
    player shift, player-valued variables advance (but those in `held`, which keep their
    seat)."""
    P = enc.P
    perm = seat_permutation(enc, by)
    Z = [None] * enc.n_inst
    T = [None] * enc.n_inst
    for i in range(enc.n_inst):
        Z[perm[i]] = st.Z[i]
        T[perm[i]] = st.T[i]
    V = {}
    for name, xs in st.V.items():
        t = enc.vtypes[name][0]
        if name in enc.per_vars and _per_player(enc, name):
            xs = tuple(xs[(j - by) % P] for j in range(P))
        if t.name == "player" and name not in held:
            xs = tuple(x if isinstance(x, bool) else (x + by) % P for x in xs)
        V[name] = xs
    return SymState(list(Z), list(T), [() for _ in range(enc.n_inst)], V, st.term)


def _per_player(enc: Any, name: str) -> bool:
    return any(v.name == name and v.per == "player" for v in enc.g.vars)


def seat_permutation(enc: Any, by: int = 1) -> list[int]:
    """Instance i of a per-player zone family moves to the seat `by` places on."""
    out = []
    for i, (fam, j) in enumerate(enc.inst):
        if j is not None and enc.zdecl[fam].per == "player":
            out.append(enc.base[fam] + (j + by) % enc.P)
        else:
            out.append(i)
    return out


def rotate_values(enc: Any, values: dict, by: int = 1,
                  held: frozenset[str] = frozenset()) -> dict:
    """`rotate_state` of plain values."""
    P = enc.P
    perm = seat_permutation(enc, by)
    zones = [None] * enc.n_inst
    for i, z in enumerate(values["zones"]):
        zones[perm[i]] = z
    V = {}
    for name, xs in values["vars"].items():
        t = enc.vtypes[name][0]
        if name in enc.per_vars and _per_player(enc, name):
            xs = [xs[(j - by) % P] for j in range(P)]
        if t.name == "player" and name not in held:
            xs = [(x + by) % P for x in xs]
        V[name] = list(xs)
    return {"zones": zones, "vars": V, "terminal": values["terminal"]}


def rotate_events(enc: Any, events: list, by: int = 1) -> list:
    perm = seat_permutation(enc, by)
    P = enc.P
    out: list[tuple[str, tuple[Any, ...]]] = []
    for op, args in events:
        match op:
            case "shuffle":
                out.append((op, (perm[args[0]],)))
            case "pop" | "take":
                out.append((op, (perm[args[0]], args[1])))
            case "push":
                out.append((op, (perm[args[0]], args[1], args[2])))
            case "drop_kinds":
                out.append((op, (args[0], perm[args[1]])))
            case "move_all":
                i, j, keep, kept, top = args
                out.append((op, (perm[i], perm[j], keep, kept, top)))
            case "deal" if len(args[1]) == 1:  # n items to one zone (Exec.take_many)
                i, targets, n, hands, top, dst_tops = args
                out.append((op, (perm[i], [perm[targets[0]]], n, hands, top, dst_tops)))
            case "deal":
                i, targets, n, hands, top, dst_tops = args
                hands = [hands[(p - by) % P] for p in range(P)]
                dst_tops = [dst_tops[(p - by) % P] for p in range(P)]
                ks = enc.inst_kinds[i]
                if n and not hands[0][ks.index(top)]:
                    top = next(k for k, c in zip(ks, hands[0], strict=True) if c)
                out.append((op, (perm[i], targets, n, hands, top, dst_tops)))
            case _:
                out.append((op, args))
    return out
