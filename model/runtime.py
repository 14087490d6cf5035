"""Helpers the generated code calls: moving items between zones, dealing, paying.

Bags are lists of counts indexed by kind; piles are lists of kinds, bottom first.
These functions mutate the lists they are given (the caller has already copied them)
and raise `ModelError` when the rules ask for something impossible, such as taking a
card from an empty pile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import mul
from typing import Any

from .errors import ModelError

_MISSING: Any = object()
#: What a kept part of an expression holds before its first use (`keep`).
NO: Any = object()


def keep(memo: list[Any], slot: int, value: Any) -> Any:
    """`value`, kept in `memo[slot]`: an expression used more than once in one state is
    computed at its first use (the work bound counts it once; `work.Bounds.plan`)."""
    memo[slot] = value
    return value


def kinds(bag: list[int]) -> list[int]:
    return [k for k, c in enumerate(bag) if c]


def pile_kinds(pile: list[int]) -> list[int]:
    return sorted(set(pile))


def top(pile: list[int]) -> int:
    if not pile:
        raise ModelError("top() of an empty pile")
    return pile[-1]


def after(p: int, n: int, direction: int = 1) -> list[int]:
    step = 1 if direction >= 0 else -1
    return [(p + step * i) % n for i in range(1, n + 1)]


def first(items: Iterable[Any], default: Any = _MISSING) -> Any:
    for x in items:
        return x
    if default is _MISSING:
        raise ModelError("first() of nothing, and no default given")
    return default


def min_of(items: Iterable[Any], default: Any = _MISSING) -> Any:
    items = list(items)
    if not items:
        if default is _MISSING:
            raise ModelError("min() of nothing, and no default given")
        return default
    return min(items)


def max_of(items: Iterable[Any], default: Any = _MISSING) -> Any:
    items = list(items)
    if not items:
        if default is _MISSING:
            raise ModelError("max() of nothing, and no default given")
        return default
    return max(items)


def lowest(present: list[int], table: Sequence[int]) -> int:
    if not present:
        raise ModelError("lowest() of an empty zone")
    return min(present, key=lambda k: (table[k], k))


def highest(present: list[int], table: Sequence[int]) -> int:
    if not present:
        raise ModelError("highest() of an empty zone")
    return max(present, key=lambda k: (table[k], -k))


def worth(bag: list[int], table: Sequence[int]) -> int:
    return sum(map(mul, bag, table))


def overrun(line: int, limit: int) -> None:
    raise ModelError(f"the loop at spec line {line} ran more than its max of {limit} times")


# ------------------------------------------------- values checked as the game runs
# The generated code calls these only where the loader could not decide (an index
# computed in play, say); each raises ModelError, which the property suite reports as
# rules_defined, instead of letting a bad value read a neighbour or crash.

#: The largest magnitude a product stored in a variable may reach (a repeated product
#: would otherwise grow without end).
MAX_VALUE = 10**18


def at(i: int, size: int, family: str) -> int:
    """`i` as an index of a family of `size` (one per player or per member)."""
    if 0 <= i < size:
        return i
    raise ModelError(f"{family}[{i}] does not exist: the index must be 0 to {size - 1}")


def seat(p: int, players: int, var: str) -> int:
    """`p` as a seat, to be stored in the seat variable `var`."""
    if 0 <= p < players:
        return p
    raise ModelError(f"{var} = {p}: not a seat (the seats are 0 to {players - 1})")


def count(n: int) -> int:
    """`n` as a number of items to move (or an amount to pay)."""
    if n >= 0:
        return n
    raise ModelError(f"a count of {n} items: a count cannot be negative")


def times(n: int, limit: int) -> int:
    """`n` as a repeat count."""
    if 0 <= n <= limit:
        return n
    raise ModelError(f"repeat {n} times: the count must be 0 to {limit} (max_repeat)")


def span(a: int, b: int, limit: int) -> tuple[int, ...]:
    """`range(a, b)`, at most `limit` long."""
    if b - a > limit:
        raise ModelError(f"range({a}, {b}) has {b - a} numbers, more than {limit} (max_range)")
    return tuple(range(a, b))


def div(a: int, b: int) -> int:
    if not b:
        raise ModelError(f"{a} // 0: division by zero")
    return a // b


def mod(a: int, b: int) -> int:
    if not b:
        raise ModelError(f"{a} % 0: division by zero")
    return a % b


def num(v: int) -> int:
    """A product to store in a variable, within +-MAX_VALUE."""
    if -MAX_VALUE <= v <= MAX_VALUE:
        return v
    raise ModelError(f"a variable would hold a number of {len(str(abs(v)))} digits, beyond "
                     f"+-{MAX_VALUE:.0e}")


# ---------------------------------------------------------------- moving items
def _short(what: str) -> ModelError:
    return ModelError(f"cannot move {what}: it is not there")


def missing(k: int) -> None:
    raise _short(f"kind #{k} from a bag without it")


def missing_top() -> None:
    raise _short("the top of an empty pile")


def move_bb(src: list[int], dst: list[int], k: int, n: int) -> None:
    if src[k] < n:
        raise _short(f"{n} of kind #{k} from a bag holding {src[k]}")
    src[k] -= n
    dst[k] += n


def move_bp(src: list[int], dst: list[int], k: int, n: int) -> None:
    if src[k] < n:
        raise _short(f"{n} of kind #{k} from a bag holding {src[k]}")
    src[k] -= n
    dst.extend([k] * n)


def _take_from_pile(src: list[int], k: int, n: int) -> None:
    for _ in range(n):
        for i in range(len(src) - 1, -1, -1):
            if src[i] == k:
                del src[i]
                break
        else:
            raise _short(f"kind #{k} from a pile without it")


def move_pb(src: list[int], dst: list[int], k: int, n: int) -> None:
    _take_from_pile(src, k, n)
    dst[k] += n


def move_pp(src: list[int], dst: list[int], k: int, n: int) -> None:
    _take_from_pile(src, k, n)
    dst.extend([k] * n)


def top_pb(src: list[int], dst: list[int], n: int) -> None:
    if len(src) < n:
        raise _short(f"the top {n} of a pile of {len(src)}")
    for _ in range(n):
        dst[src.pop()] += 1


def top_pp(src: list[int], dst: list[int], n: int) -> None:
    if len(src) < n:
        raise _short(f"the top {n} of a pile of {len(src)}")
    for _ in range(n):
        dst.append(src.pop())


def top_bb(src: list[int], dst: list[int], n: int) -> None:  # pragma: no cover - loader forbids
    raise ModelError("move_top needs a pile")


top_bp = top_bb


def all_bb(src: list[int], dst: list[int], keep: int) -> None:
    for k, c in enumerate(src):
        if c:
            dst[k] += c
            src[k] = 0


def all_bp(src: list[int], dst: list[int], keep: int) -> None:
    for k, c in enumerate(src):
        if c:
            dst.extend([k] * c)
            src[k] = 0


def all_pb(src: list[int], dst: list[int], keep: int) -> None:
    cut = max(len(src) - keep, 0)
    for k in src[:cut]:
        dst[k] += 1
    del src[:cut]


def all_pp(src: list[int], dst: list[int], keep: int) -> None:
    cut = max(len(src) - keep, 0)
    dst.extend(src[:cut])
    del src[:cut]


def gather(Z: list[list[int]], wanted: Sequence[int], into: int, bags: Sequence[int],
           piles: Sequence[int]) -> None:
    """Move every item of the wanted kinds, from every zone of their class, into zone `into`.

    A pile `into` gets them after what it holds, kind by kind in the order of `wanted`.
    """
    counts = dict.fromkeys(wanted, 0)
    for b in bags:
        if b != into:
            zone = Z[b]
            if any(zone):
                for k in counts:
                    c = zone[k]
                    if c:
                        counts[k] += c
                        zone[k] = 0
    for p in piles:
        zone = Z[p]
        if p == into or not zone:
            continue
        keep = []
        for k in zone:
            if k in counts:
                counts[k] += 1
            else:
                keep.append(k)
        zone[:] = keep
    target = Z[into]
    if into in piles:
        for k, c in counts.items():
            if c:
                target += [k] * c
    else:
        for k, c in counts.items():
            target[k] += c


def gather_all(Z: list[list[int]], into: int, bags: Sequence[int], piles: Sequence[int],
               lo: int, hi: int) -> None:
    """`gather` of every kind of a class, the kinds lo to hi - 1.

    Plain loops: for lists of a few dozen items they beat map/compress pipelines, whose
    iterator objects cost more to make than the loop they replace.
    """
    counts = [0] * hi
    for b in bags:
        if b != into:
            zone = Z[b]
            if any(zone):
                for k in range(lo, hi):
                    c = zone[k]
                    if c:
                        counts[k] += c
                        zone[k] = 0
    for p in piles:
        if p != into:
            zone = Z[p]
            if zone:
                if lo <= min(zone) and max(zone) < hi:  # the usual case: nothing else in it
                    for k in zone:
                        counts[k] += 1
                    zone.clear()
                else:
                    keep = []
                    for k in zone:
                        if lo <= k < hi:
                            counts[k] += 1
                        else:
                            keep.append(k)
                    zone[:] = keep
    target = Z[into]
    if into in piles:
        for k in range(lo, hi):
            c = counts[k]
            if c:
                target += [k] * c
    else:
        for k in range(lo, hi):
            target[k] += counts[k]


def deal(src: list[int], Z: list[list[int]], base: int, players: int, n: int, to_pile: bool
         ) -> None:
    """n items to each player, one at a time, seat 0 first, from the top of `src`."""
    total = n * players
    if len(src) < total:
        raise _short(f"{n} each to {players} players from a pile of {len(src)}")
    if not total:
        return
    dealt = src[: -total - 1: -1]  # the top `total` items, top first
    del src[-total:]
    for p in range(players):
        zone = Z[base + p]
        if to_pile:
            zone.extend(dealt[p::players])
        else:
            for k in dealt[p::players]:
                zone[k] += 1


def pay(src: list[int], dst: list[int], amount: int, value: Sequence[int],
        denoms: Sequence[int]) -> int:
    """Move tokens worth `amount` from bag `src` to bag `dst`, largest value first.

    Returns the shortfall: what could not be paid because `src` ran out.
    """
    left = amount
    for k in denoms:
        v = value[k]
        if v <= 0 or left < v:
            continue
        n = min(left // v, src[k])
        if n:
            src[k] -= n
            dst[k] += n
            left -= n * v
    return left


def exchange(zone: list[int], bank: list[int], value: Sequence[int], denoms: Sequence[int]
             ) -> None:
    """Swap small tokens in `zone` for larger ones of the same total from `bank`."""
    for big in denoms:
        bv = value[big]
        if bv <= 0:
            continue
        for small in reversed(denoms):
            sv = value[small]
            if sv <= 0 or sv >= bv or bv % sv:
                continue
            need = bv // sv
            while zone[small] >= need and bank[big] > 0:
                zone[small] -= need
                bank[small] += need
                bank[big] -= 1
                zone[big] += 1
