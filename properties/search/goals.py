"""What the deep search looks for, and how it is directed there.

Two searches, both within a budget of states (every state a step produces counts):

- **Over rounds** (`over_rounds`): a node is a round start; its successors are the
  round starts that the round's short schedules reach (every player keeps taking one
  kind of action while it is legal: everyone quits at once, one player goes out), a few
  seeded random playouts of the round, a depth-first walk (the ends only a long round
  reaches) and a breadth-first one (its first actions);
  the deal after the round is a choice among `ROUND_DEALS`. The next round start to
  expand is the one the goal's distance puts nearest; a game-cycle search lets its
  rounds take more states after a quarter of its budget (`WIDENING`). A game cycle is a round start the
  path has been at (`game_cycle`); a supply running short is a step the query's own
  check confirms (`shortage`), directed toward the scarcest shared supply.
- **Within a round** (`round_cycle`): best-first over the states of one round, toward
  emptier piles that no player holds (a cycle cannot draw from a pile that nothing
  refills) and then toward the state nearest one of its recent ancestors; a round cycle
  is a state the path has been at.

The distances come from the state's layout (zones as counts, piles by length, variables
by value), never from a game's names.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import attrs

import model
from model.codegen import BUILTIN_VAR_SLOTS, Layout

from .space import DEALS, Explored, Node, starts, successors

#: The default budget of a search, in states; and how many of them one round may take.
STATES = 60_000
ROUND_STATES = 120
#: Seeded random playouts of each round, and the longest round a schedule or playout
#: plays before it is given up.
ROUND_PLAYOUTS = 6
ROUND_ACTIONS = 400
#: The deals a round's end may take in a search over rounds: the next round's hands are
#: what a cycle or a shortage most depends on, so a search over rounds chooses among more.
ROUND_DEALS = 12
#: How many recent ancestors a state of a round is compared with.
RECENT = 16
#: A game-cycle search widens the states one round may take: first ROUND_STATES each, for
#: a quarter of its budget, then five times as many for the rest. A cycle of rounds that
#: are played out to their last card (every hand emptied) needs the wider rounds; one of
#: short rounds is found sooner with more of them.
WIDENING = ((1, 0.25), (5, 0.75))


@attrs.frozen
class Found:
    """A witness: the node it ends at and the depths of the two equal states of a cycle
    (None for a shortage), with what the search explored."""

    node: Node
    again: tuple[int, int] | None
    explored: Explored
    sites: tuple[str, ...] = ()


class Shape:
    """What a state is, as the distances read it: which zone instances are bags, which
    are shared (held by no player and no index) and which are held by no player (shared,
    or one per index: a board's positions), and the variable slots that count."""

    def __init__(self, game: model.Game, skip: frozenset[str] = frozenset()) -> None:
        g = game.ir
        layout = Layout.of(g)
        self.bag = [z.order == "bag" for z in g.zones for _ in range(layout.zone_count[z.name])]
        self.shared = [z.per is None for z in g.zones
                       for _ in range(layout.zone_count[z.name])]
        self.unowned = [z.per != "player" for z in g.zones
                        for _ in range(layout.zone_count[z.name])]
        skipped = {layout.var_base[n] + i for n in skip if n in layout.var_base
                   for i in range(layout.var_count[n])}
        self.slots = [i for i in range(layout.n_vars) if i not in skipped]

    def key(self, state: model.State) -> tuple:
        v = state.v
        return (tuple(map(tuple, state.z)), tuple(v[i] for i in self.slots), state.is_terminal)

    def distance(self, a: model.State, b: model.State) -> int:
        d = 0
        for bag, za, zb in zip(self.bag, a.z, b.z, strict=True):
            if za == zb:
                continue
            if bag:
                d += sum(abs(x - y) for x, y in zip(za, zb, strict=True))
            else:
                d += abs(len(za) - len(zb)) + 1
        return d + self._var_distance(a, b)

    def size_distance(self, a: model.State, b: model.State) -> int:
        """`distance` with each zone read by its size alone (a bag's count, a pile's
        length): how far apart the states are in how much each zone holds."""
        d = 0
        for bag, za, zb in zip(self.bag, a.z, b.z, strict=True):
            d += abs((sum(za) if bag else len(za)) - (sum(zb) if bag else len(zb)))
        return d + self._var_distance(a, b)

    def _var_distance(self, a: model.State, b: model.State) -> int:
        """The variables' part of both distances: numbers by how far apart, others by 1."""
        d = 0
        va, vb = a.v, b.v
        for i in self.slots:
            x, y = va[i], vb[i]
            if x != y:
                d += abs(x - y) if type(x) is int and type(y) is int else 1
        return d

    def unowned_items(self, state: model.State) -> int:
        """The items in piles no player holds (a draw pile, a discard pile, a board's
        positions): what a round can still take from without anyone giving it back."""
        return sum(len(z) for z, bag, un in zip(state.z, self.bag, self.unowned, strict=True)
                   if un and not bag)

    def scarcity(self, state: model.State, full: list[list[int]]) -> tuple[float, float]:
        """How near the shared bags are to running out, against `full` (their contents at
        the start): the smallest share left of any kind they started with, then the whole
        share left."""
        least, total, n = 1.0, 0.0, 0
        for i, (bag, sh) in enumerate(zip(self.bag, self.shared, strict=True)):
            if not (bag and sh):
                continue
            for have, had in zip(state.z[i], full[i], strict=True):
                if had:
                    share = have / had
                    least, total, n = min(least, share), total + share, n + 1
        return least, total / max(n, 1)


# ------------------------------------------------------------------ over rounds
def _ends_round(state: model.State, nxt: model.State) -> bool:
    return nxt.round != state.round or nxt.is_terminal


def _round_ends(start: Node, budget: int, explored: Explored, seed: int,
                step: Callable[[Node, model.Action, model.State], bool], deals: int
                ) -> Iterator[Node]:
    """The nodes at which the round begun at `start` has ended (the next round's start,
    or the game's end), by the round's schedules, random playouts and a breadth-first
    walk, within `budget` states; `step(node, action, next)` sees every step taken and
    may stop the search (returns True: the node after it is yielded at once)."""
    spent = [0]

    def take(node: Node, action: model.Action, deal: int | None, nxt: model.State) -> Node:
        spent[0] += 1
        explored.states += 1
        child = Node(nxt, node, action, deal, node.depth + 1)
        explored.deepest = max(explored.deepest, child.depth)
        return child

    def followed(node: Node, choose: Callable[[list[model.Action]], model.Action]
                 ) -> Iterator[Node]:
        for _ in range(ROUND_ACTIONS):
            if spent[0] >= budget:
                return
            options = node.state.legal_actions()
            if not options:
                return
            action = choose(options)

            def only(_s: Any, a: model.Action = action) -> list[model.Action]:
                return [a]

            outs = list(successors(node, deals, legal=only))
            if not outs:
                return
            for a, d, nxt in outs:
                child = take(node, a, d, nxt)
                if step(node, a, nxt) or _ends_round(node.state, nxt):
                    yield child
            if any(_ends_round(node.state, n) for _, _, n in outs):
                return
            node = child

    for name in [a.name for a in start.state.game.ir.actions]:
        # a schedule: every player takes an action called `name` while one is legal
        def called(opts: list[model.Action], name: str = name) -> model.Action:
            return next((a for a in opts if a.name == name), opts[0])

        yield from followed(start, called)
    rng = random.Random(seed)
    for _ in range(ROUND_PLAYOUTS):
        yield from followed(start, rng.choice)
    def walk(depth_first: bool, until: int) -> Iterator[Node]:
        todo, seen = deque([start]), {start.state}
        while todo and spent[0] < until:
            node = todo.pop() if depth_first else todo.popleft()
            for a, d, nxt in successors(node, deals):
                if spent[0] >= until:
                    return
                if nxt in seen:
                    continue
                seen.add(nxt)
                child = take(node, a, d, nxt)
                if step(node, a, nxt) or _ends_round(node.state, nxt):
                    yield child
                else:
                    todo.append(child)

    # depth first for the round ends only a long round reaches (every card played), then
    # breadth first for the short ones
    yield from walk(True, spent[0] + (budget - spent[0]) // 2)
    yield from walk(False, budget)


def over_rounds(game: model.Game, shape: Shape, budget: int,
                priority: Callable[[Node, list[Node]], Any],
                found: Callable[[Node, list[Node], model.Action | None], Found | None],
                step: Callable[[Node, model.Action, model.State], bool] = lambda *_: False,
                deals: int = ROUND_DEALS, round_states: int = ROUND_STATES,
                explored: Explored | None = None) -> tuple[Found | None, Explored]:
    """Best-first over round starts: expand the one `priority` puts first (its node and
    the round starts before it on its path), until `found` names a witness at a round's
    end or `budget` states more than `explored` counts are spent, each round taking at
    most `round_states`."""
    explored = explored if explored is not None else Explored()
    budget += explored.states
    order = itertools.count()
    heap: list[tuple[Any, int, Node, list[Node]]] = []
    seen: set[tuple] = set()
    first = list(starts(game, deals))
    explored.deals = max(explored.deals, len(first))
    for node in first:
        seen.add(shape.key(node.state))
        heapq.heappush(heap, (priority(node, []), next(order), node, []))
    while heap and explored.states < budget:
        _, n, start, before = heapq.heappop(heap)
        chain = [*before, start]
        explored.rounds += 1
        left = min(round_states, budget - explored.states)
        for end in _round_ends(start, left, explored, n, step, deals):
            hit = found(end, chain, end.action)
            if hit is not None:
                return hit, explored
            assert end.parent is not None, "a round's end follows its start"
            if end.state.is_terminal or end.state.round == end.parent.state.round:
                continue
            k = shape.key(end.state)
            if k in seen:
                continue
            seen.add(k)
            heapq.heappush(heap, (priority(end, chain), next(order), end, chain))
    return None, explored


class RoundLog:
    """The rounds a search over rounds played, by their *skeleton* (the names of their
    actions, in order): whether a round of it left one seat with less and another with
    more than it began with (each seat's *worth*: its tokens by their `value`, as `pay`
    reads them, and its numbers), and its least *imbalance* (how far the round left what
    a seat rotation keeps: the shared zones, by count or length, and each per-player
    number summed over the seats). A round that ends in the seat-rotated image of its
    start moves worth from seat to seat, so unless nothing changed one seat loses and
    another gains: a round in which everyone only took (all quit) cannot be filled in to
    one, whatever the hands. The skeletons that passed are the candidates for z3 to fill
    in with other hands (`queries/skeletons.py`), each for the seat rotation its rounds
    made (`rotations`). Rounds the game ends in are not kept.
    It also keeps the range of each variable over the round starts seen (`ranges`), so
    that z3's round start can be held to what play reaches."""

    def __init__(self, game: model.Game) -> None:
        g = game.ir
        layout = Layout.of(g)
        shape = Shape(game)
        P = self.P = game.players
        self.shared = [i for i, s in enumerate(shape.shared) if s]
        self.bag = shape.bag
        self.per_seat = [[layout.var_base[v.name] + p for p in range(P)]
                         for v in g.vars if v.per == "player" and v.type.name == "int"]
        worth = [int(k.attrs.get("value", 1)) for k in g.kinds]
        #: per seat: (zone instance, each kind's worth) of its token zones
        self.tokens = [[(layout.zone_base[z.name] + p, worth) for z in g.zones
                        if z.per == "player" and z.holds == "tokens"] for p in range(P)]
        #: skeleton -> (whether a round of it moved worth between seats, least imbalance)
        self.rounds: dict[tuple[str, ...], tuple[bool, int]] = {}
        #: the slots of the player-valued variables, which a seat rotation moves on
        self.seat_slots = [BUILTIN_VAR_SLOTS["active"], BUILTIN_VAR_SLOTS["last_actor"]] + [
            layout.var_base[v.name] + i for v in g.vars if v.type.name == "player"
            for i in range(layout.var_count[v.name])]
        #: skeleton -> by how many seats its rounds moved the player-valued variables on
        self.shifts: dict[tuple[str, ...], set[int]] = {}
        #: skeleton -> the player-valued variables its rounds all left where they were (a
        #: seat no rule read that round: who must draw, in a round where nobody must)
        self.stayed: dict[tuple[str, ...], frozenset[str]] = {}
        self.slot_names = {i: self._var_of(layout, i) for i in self.seat_slots}
        #: those a rotation may hold (one per player is moved to the next seat instead)
        self.holdable = frozenset(v.name for v in g.vars
                                  if v.type.name == "player" and v.per != "player")
        self.names: list[tuple[str, int]] = [("", 0)] * layout.n_vars
        for name, base in layout.var_base.items():
            for i in range(layout.var_count[name]):
                self.names[base + i] = (name, i)
        self._low: list[Any] = []
        self._high: list[Any] = []

    def ranges(self) -> dict[tuple[str, int], tuple[Any, Any]]:
        """(variable, index) -> the least and the greatest value at a round start seen."""
        return {n: (lo, hi) for n, lo, hi in zip(self.names, self._low, self._high, strict=True)}

    def add(self, start: Node, end: Node) -> None:
        for state in (start.state, end.state):
            v = state.v
            if not self._low:
                self._low, self._high = list(v), list(v)
            self._low = [min(a, b) for a, b in zip(self._low, v, strict=True)]
            self._high = [max(a, b) for a, b in zip(self._high, v, strict=True)]
        if end.state.is_terminal:
            return
        names = tuple(n.action.name for n in end.path()[start.depth + 1:] if n.action)
        changes = [b - a for a, b in zip(self.worth(start.state), self.worth(end.state),
                                         strict=True)]
        moved = min(changes) < 0 < max(changes)
        d = self.distance(start.state, end.state)
        was, least = self.rounds.get(names, (False, d))
        self.rounds[names] = (moved or was, min(d, least))
        shift = {i: (end.state.v[i] - start.state.v[i]) % self.P for i in self.seat_slots
                 if type(start.state.v[i]) is int and type(end.state.v[i]) is int}
        moves = set(shift.values()) - {0}
        put: frozenset[str] = frozenset()  # nothing is held where seats did not move alike
        if len(moves) == 1:
            self.shifts.setdefault(names, set()).update(moves)
            turned = {self.slot_names[i] for i in self.seat_slots if shift.get(i, 1)}
            put = frozenset(self.slot_names.values()) - turned
        self.stayed[names] = self.stayed.get(names, put) & put

    def rotations(self, skeleton: tuple[str, ...]) -> list[int]:
        """The seat rotations a round of `skeleton` may end in: by as many seats as its
        rounds moved the player-valued variables that moved on, or if they did not move
        alike, any."""
        return sorted(self.shifts.get(skeleton) or range(1, self.P))

    def held(self, skeleton: tuple[str, ...]) -> frozenset[str]:
        """The player-valued variables every round of `skeleton` left as they were, which
        its rotated image holds rather than moves on (the built-in `active` and
        `last_actor` always move, as do variables kept one per player)."""
        return self.stayed.get(skeleton, frozenset()) & self.holdable

    @staticmethod
    def _var_of(layout: Layout, slot: int) -> str:
        return next(n for n, b in layout.var_base.items()
                    if b <= slot < b + layout.var_count[n])

    def worth(self, state: model.State) -> list[int]:
        """Each seat's tokens by their worth, and its numbers."""
        return [sum(w * c for i, ws in zones for w, c in zip(ws, state.z[i], strict=True))
                + sum(state.v[slots[p]] for slots in self.per_seat)
                for p, zones in enumerate(self.tokens)]

    def distance(self, a: model.State, b: model.State) -> int:
        d = 0
        for i in self.shared:
            za, zb = a.z[i], b.z[i]
            d += (sum(abs(x - y) for x, y in zip(za, zb, strict=True)) if self.bag[i]
                  else abs(len(za) - len(zb)))
        for slots in self.per_seat:
            d += abs(sum(b.v[i] for i in slots) - sum(a.v[i] for i in slots))
        return d

    def candidates(self, most: int) -> list[tuple[str, ...]]:
        """At most `most` skeletons that moved worth between seats (or left the shared
        zones as they were), the shortest first (the cheapest for z3), then the least
        imbalanced."""
        kept = [s for s, (moved, d) in self.rounds.items() if moved or d == 0]
        return sorted(kept, key=lambda s: (len(s), self.rounds[s][1], s))[:most]


def game_cycle(game: model.Game, skip: frozenset[str], budget: int = STATES,
               log: RoundLog | None = None) -> tuple[Found | None, Explored]:
    """A game that comes back to a round start it has been at (the variables in `skip`
    aside): directed toward the round start nearest one before it on its path. `log`
    records the rounds played."""
    shape = Shape(game, skip)

    def priority(node: Node, chain: list[Node]) -> tuple[int, int]:
        near = min((shape.distance(node.state, c.state) for c in chain), default=0)
        return near, -len(chain)

    def found(end: Node, chain: list[Node], _a: model.Action | None) -> Found | None:
        assert end.parent is not None, "a round's end follows its start"
        if end.state.is_terminal or end.state.round == end.parent.state.round:
            return None
        if log is not None:
            log.add(chain[-1], end)
        k = shape.key(end.state)
        for c in chain:
            if shape.key(c.state) == k:
                return Found(end, (c.depth, end.depth), Explored())
        return None

    explored = Explored()
    for wider, share in WIDENING:
        hit, explored = over_rounds(game, shape, int(budget * share), priority, found,
                                    round_states=wider * ROUND_STATES, explored=explored)
        if hit is not None:
            return attrs.evolve(hit, explored=explored), explored
    return None, explored


def shortage(game: model.Game, confirm: Callable[[model.State, model.Action, model.State],
                                                 list[str]],
             budget: int = STATES, confirmations: int = 40) -> tuple[Found | None, Explored]:
    """A step at which a shared supply is asked for more than it holds, as `confirm` (the
    query's own check of one concrete step) says: tried on the steps after which a shared
    bag holds none of a kind it began with; directed toward the scarcest shared bags."""
    shape = Shape(game)
    full = [list(z) for z in next(starts(game, 1)).state.z]
    tries = [0]
    hits: list[tuple[model.State, model.Action, list[str]]] = []

    def suspicious(state: model.State, nxt: model.State) -> bool:
        for i, (bag, sh) in enumerate(zip(shape.bag, shape.shared, strict=True)):
            if bag and sh and any(had and not have
                                  for have, had in zip(nxt.z[i], full[i], strict=True)):
                return state.z[i] != nxt.z[i] or _ends_round(state, nxt)
        return False

    def step(node: Node, action: model.Action, nxt: model.State) -> bool:
        if tries[0] >= confirmations or not suspicious(node.state, nxt):
            return False
        tries[0] += 1
        sites = confirm(node.state, action, nxt)
        if sites:
            hits.append((nxt, action, sites))
            return True
        return False

    def priority(node: Node, chain: list[Node]) -> tuple[float, float, int]:
        least, total = shape.scarcity(node.state, full)
        return least, total, len(chain)

    def found(end: Node, _chain: list[Node], action: model.Action | None) -> Found | None:
        for nxt, act, sites in hits:
            if nxt is end.state and act is action:
                return Found(end, None, Explored(), tuple(sites))
        return None

    hit, explored = over_rounds(game, shape, budget, priority, found, step)
    if hit is not None:
        hit = attrs.evolve(hit, explored=explored)
    return hit, explored


# ------------------------------------------------------------------ within a round
def round_cycle(game: model.Game, budget: int = STATES, deals: int = DEALS,
                start: model.State | None = None) -> tuple[Found | None, Explored]:
    """A round that comes back to a state it has been at, from a deal (or from `start`):
    best-first toward emptier shared piles, then toward the state nearest one of its
    recent ancestors."""
    shape = Shape(game)
    explored = Explored()
    order = itertools.count()
    heap: list[tuple[Any, int, Node]] = []
    seen: dict[model.State, Node] = {}

    def push(node: Node) -> None:
        recent, near, up = 0, None, node.parent
        while up is not None and recent < RECENT and up.state.round == node.state.round:
            d = shape.distance(node.state, up.state)
            near = d if near is None else min(near, d)
            up, recent = up.parent, recent + 1
        heapq.heappush(heap, ((shape.unowned_items(node.state), near or 0, -node.depth),
                              next(order), node))

    for node in [Node(start, None, None, None, 0)] if start is not None else starts(game, deals):
        explored.deals += start is None
        seen[node.state] = node
        push(node)
    while heap and explored.states < budget:
        *_, node = heapq.heappop(heap)
        for a, d, nxt in successors(node):
            explored.states += 1
            if _ends_round(node.state, nxt):
                continue
            child = Node(nxt, node, a, d, node.depth + 1)
            explored.deepest = max(explored.deepest, child.depth)
            before = seen.get(nxt)
            if before is not None:
                if _is_ancestor(before, node):
                    return Found(child, (before.depth, child.depth), explored), explored
                continue
            seen[nxt] = child
            push(child)
    return None, explored


def _is_ancestor(a: Node, node: Node) -> bool:
    up: Node | None = node
    while up is not None and up.depth >= a.depth:
        if up is a:
            return True
        up = up.parent
    return False
