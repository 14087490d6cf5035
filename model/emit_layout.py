"""Where a game's state lives in the generated code: each zone instance and variable is
a slot of the flat tuples `Z` and `V` (`Layout`), and the Python names given to spec names
(`global_name`, `local`), checked so that nothing from the spec becomes code unchecked.

Part of the code generator; `model/codegen.py` re-exports these names.
"""

from __future__ import annotations

import attrs

from . import ir
from .errors import InternalError
from .limits import IDENTIFIER, RENAMED_LOCAL, SEAT_LOCAL

BUILTIN_VAR_SLOTS = {"active": 0, "round": 1, "last_actor": 2}


def global_name(prefix: str, *names: str) -> str:
    """A module-level name for spec names: `KA_rank`, `IA_position__letter`.

    Spec names never hold `__`, so joining them with it keeps distinct names distinct.
    """
    for n in names:
        if not IDENTIFIER.fullmatch(n):  # the loader refuses such names; never reached
            raise InternalError(f"the name {n!r} reached the code generator")
    return prefix + "__".join(names)


def local(name: str) -> str:
    """The Python name of a spec's local name (an action parameter, a loop variable), or of
    a loop variable the loader renamed so that it captures nothing (`q__1`), or of one
    seat's parameter of a joint action (`card__seat2`)."""
    if RENAMED_LOCAL.fullmatch(name) or SEAT_LOCAL.fullmatch(name):
        return "l_" + name
    return global_name("l_", name)


@attrs.frozen
class Layout:
    """Where each zone instance and variable lives in the flat `Z` and `V` tuples."""

    zone_base: dict[str, int]
    zone_count: dict[str, int]
    var_base: dict[str, int]
    var_count: dict[str, int]
    n_zones: int
    n_vars: int

    @classmethod
    def of(cls, g: ir.GameIR) -> Layout:
        sizes = {ix.name: ix.size for ix in g.indices}
        sizes["player"] = g.players
        zb, zc = {}, {}
        n = 0
        for z in g.zones:
            zb[z.name] = n
            zc[z.name] = 1 if z.per is None else sizes[z.per]
            n += zc[z.name]
        vb, vc = dict(BUILTIN_VAR_SLOTS), dict.fromkeys(BUILTIN_VAR_SLOTS, 1)
        m = len(BUILTIN_VAR_SLOTS)
        for v in g.vars:
            vb[v.name] = m
            vc[v.name] = 1 if v.per is None else sizes[v.per]
            m += vc[v.name]
        return cls(zb, zc, vb, vc, n, m)
