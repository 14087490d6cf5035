"""What one player sees of a state, and states that look the same to them.

A zone's `sees:` says who sees its items (everyone, its owner, nobody) and a pile's
`top:` who sees its top item when the rest is hidden (docs/spec-language.md#visibility).
`Observer` is one seat's view of one game: `observe` turns a state's zones and variables
into an `Observation` (each zone the seat sees as it is, each other zone as the number of
items in it and, where the seat sees it, the top item; every variable, since variables
are public), and `redeal` makes another state with the same observation, the items the
seat cannot see dealt anew at random among the places it cannot see. Both read only the
spec's declarations: nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import attrs

from . import ir
from .codegen import Layout
from .situation import by_declaration, plain_zone


class Shuffler(Protocol):
    """Anything with `shuffle(list)`, such as `random.Random`."""

    def shuffle(self, x: list[Any]) -> None: ...


@attrs.frozen
class Hidden:
    """A zone (or one member of a family) the observer cannot see: how many items it
    holds and, for a pile whose top the observer sees, the kind on top (else None)."""

    count: int
    top: int | None = None


@attrs.frozen
class Observation:
    """What seat `player` sees: per zone slot (`codegen.Layout` order) its contents as a
    tuple (a pile's kinds bottom first, a bag's counts per kind) or a `Hidden`; every
    variable; whether the game is over. Two observations are `==` (and hash alike) when
    the seat sees the same; `to_dict` gives it in the situation format's shape."""

    player: int
    zones: tuple[tuple[int, ...] | Hidden, ...]
    vars: tuple[Any, ...]
    terminal: bool
    observer: Observer = attrs.field(eq=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The situation format's `round`, `active`, `last_actor`, `terminal`, `zones` and
        `vars` (no chance state: a seat cannot see the next shuffle), with a hidden zone
        as `{"hidden": n}`, or `{"hidden": n, "top": kind}` where the top is seen."""
        return self.observer.to_plain(self)


class Observer:
    """Seat `player`'s view of the game compiled from `g`."""

    def __init__(self, g: ir.GameIR, layout: Layout, player: int) -> None:
        self.g, self.layout, self.player = g, layout, player
        self.names = tuple(k.name for k in g.kinds)
        #: per zone slot: (the zone, whether the seat sees its items, whether it sees the top)
        self.slots: list[tuple[ir.ZoneDecl, bool, bool]] = []
        for z in g.zones:
            for j in range(layout.zone_count[z.name]):
                owner = j if z.per == "player" else None
                self.slots.append((z, *z.shows(player, owner)))
        #: some zone is hidden from the seat (else an observation is the state itself)
        self.blind = not all(whole for _, whole, _ in self.slots)

    def observe(self, z: Sequence[list[int]], v: Sequence[Any], terminal: bool) -> Observation:
        """The observation of the state with zones `z` and variables `v`."""
        if not self.blind:
            return Observation(self.player, tuple(map(tuple, z)), tuple(v), terminal, self)
        out: list[tuple[int, ...] | Hidden] = []
        for content, (decl, whole, top) in zip(z, self.slots, strict=True):
            if whole:
                out.append(tuple(content))
            elif decl.order == "pile":
                out.append(Hidden(len(content), content[-1] if top and content else None))
            else:
                out.append(Hidden(sum(content)))
        return Observation(self.player, tuple(out), tuple(v), terminal, self)

    def redeal(self, z: Sequence[list[int]], rng: Shuffler) -> list[list[int]]:
        """Zones with the same observation as `z`: the items of each class that lie where
        the seat cannot see them (a hidden pile's top, when seen, stays) shuffled with
        `rng` and dealt back, each hidden zone getting as many as it had. The hidden items
        are sorted before the shuffle, so two states with the same observation give the
        same zones for the same `rng`: what is drawn depends on what the seat sees alone."""
        new = [list(c) for c in z]
        hidden = [i for i, (_, whole, _) in enumerate(self.slots) if not whole]
        for holds in ("cards", "tokens"):
            mine = [i for i in hidden if self.slots[i][0].holds == holds]
            pool: list[int] = []
            sizes: list[int] = []
            for i in mine:
                decl, _, top = self.slots[i]
                if decl.order == "pile":
                    items = new[i][:-1] if top and new[i] else new[i]
                else:
                    items = [k for k, c in enumerate(new[i]) for _ in range(c)]
                pool += items
                sizes.append(len(items))
            pool.sort()  # so the result depends on what is hidden, not where it lay
            rng.shuffle(pool)
            at = 0
            for i, n in zip(mine, sizes, strict=True):
                decl, _, top = self.slots[i]
                items, at = pool[at:at + n], at + n
                if decl.order == "pile":
                    new[i] = items + new[i][-1:] if top and new[i] else items
                else:
                    counts = [0] * len(self.names)
                    for k in items:
                        counts[k] += 1
                    new[i] = counts
        return new

    def to_plain(self, obs: Observation) -> dict[str, Any]:
        """`Observation.to_dict`."""
        names, g, L = self.names, self.g, self.layout

        def plain(decl: ir.ZoneDecl, seen: Any) -> Any:
            if isinstance(seen, Hidden):
                return ({"hidden": seen.count} if seen.top is None else
                        {"hidden": seen.count, "top": names[seen.top]})
            return plain_zone(names, decl, seen)

        zones = by_declaration(g.zones, L.zone_base, L.zone_count, obs.zones, plain)
        vars_ = by_declaration(g.vars, L.var_base, L.var_count, obs.vars, lambda _d, x: x)
        v = obs.vars
        return {"game": g.id, "players": g.players, "as": obs.player, "round": v[1],
                "active": v[0], "last_actor": v[2], "terminal": obs.terminal,
                "zones": zones, "vars": vars_}
