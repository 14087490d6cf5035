"""How the deep search does on the declared z3 failures, with no witness file to lean on.

For every spec of spec/ and player count whose `expect:` declares z3_supply,
z3_game_cycle or z3_round_bound to fail (default readings), runs the deep search on the
compiled model and prints whether it found a witness, how long it took, how many states
it explored and at what rate, and the witness's length. A found shortage is confirmed
with the z3 check of that step, as the query does. The search never reads the spec's
`witness:` files, so this is what a designer gets for a new rule change.

With `--z3-rounds`, a supply row the search does not find (or finds longer than the
supply query's READABLE) is asked of z3 choosing rounds one after another too
(`queries/rounds.py`, the supply query's next step), and a game-cycle row it does not
find is asked of z3 filling in the skeletons of the rounds the search played
(`queries/skeletons.py`, the game-cycle query's last step), each with its length and time.

    python benchmarks/deep_search.py [--budget STATES] [--z3-rounds] [GAME ...]
"""

from __future__ import annotations

import argparse
import importlib
import time

import model
from model.ir import expectation_for
from model.schema import SPEC_DIR
from properties.search import goals
from properties.symbolic.queries import cycles, deep, rounds, skeletons
from properties.symbolic.queries.common import RLIMIT, SEARCH_BUDGET, Clock
from properties.symbolic.queries.supply import shortages

supply = importlib.import_module("properties.symbolic.queries.supply")

SEARCHES = ("z3_supply", "z3_game_cycle", "z3_round_bound")
SKIP = frozenset({"round"})


#: The budget of states each search has in the z3 queries (`queries/deep.py`).
BUDGETS = {"z3_supply": deep.STATES, "z3_game_cycle": deep.GAME_CYCLE_STATES,
           "z3_round_bound": deep.ROUND_STATES}


def search(game: model.Game, prop: str, budget: int | None, log: goals.RoundLog
           ) -> tuple[goals.Found | None, goals.Explored]:
    budget = budget or BUDGETS[prop]
    if prop == "z3_supply":
        return goals.shortage(game, lambda s, a, n: shortages(game, s, a, n,
                                                              Clock(deep.STEP_UNITS)), budget)
    if prop == "z3_game_cycle":
        return goals.game_cycle(game, SKIP, budget, log)
    return goals.round_cycle(game, budget)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=sorted(p.stem for p in SPEC_DIR.glob("*.yaml")))
    ap.add_argument("--budget", type=int, default=None,
                    help="states per search (default: the z3 queries' own, deep.py)")
    ap.add_argument("--z3-rounds", action="store_true",
                    help="ask z3 for rounds one after another (a shortage) or to fill in "
                         "round skeletons (a game cycle) where the search falls short")
    args = ap.parse_args()
    found = total = 0
    print(f"{'game':<8} {'p':>2} {'property':<15} {'result':<8} {'seconds':>8} {'states':>8} "
          f"{'states/s':>9} {'actions':>7}")
    for gid in args.games:
        first = model.load(gid, players=2).ir
        for n in range(first.min_players, first.max_players + 1):
            game = model.load(gid, players=n)
            for prop in SEARCHES:
                e = expectation_for(game.ir, prop)
                if e is None or e.result != "fail":
                    continue
                total += 1
                t0 = time.perf_counter()
                log = goals.RoundLog(game)
                hit, explored = search(game, prop, args.budget, log)
                dt = time.perf_counter() - t0
                found += hit is not None
                length = hit.node.depth if hit is not None else "-"
                print(f"{gid:<8} {n:>2} {prop:<15} {'found' if hit else 'none':<8} {dt:8.1f} "
                      f"{explored.states:>8} {explored.states / dt:9.0f} {length:>7}")
                short = hit is None or hit.node.depth > supply.READABLE
                if args.z3_rounds and prop == "z3_supply" and short:
                    t0 = time.perf_counter()
                    res, tried = supply._chained_shortage(game, Clock(RLIMIT), None)
                    dt = time.perf_counter() - t0
                    found += hit is None and res is not None
                    print(f"{'':<8} {'':>2} {'  z3 rounds':<15} "
                          f"{'found' if res else 'none':<8} {dt:8.1f} {'':>8} {'':>9} "
                          f"{res.bound if res else '-':>7}  {rounds.tried_text(tried)}")
                if args.z3_rounds and prop == "z3_game_cycle" and hit is None:
                    t0 = time.perf_counter()
                    skel = skeletons.Tried()
                    cyc = cycles._rotated_cycle(game, Clock(RLIMIT), SKIP, 2 * n + 4, None,
                                                SEARCH_BUDGET // 2, log, skel)
                    dt = time.perf_counter() - t0
                    shown = cyc is not None and cyc.status == "witness"
                    found += shown
                    start = cyc.trace.start if shown and cyc.trace else "-"
                    print(f"{'':<8} {'':>2} {'  z3 skeletons':<15} "
                          f"{'found' if shown else 'none':<8} {dt:8.1f} {'':>8} {'':>9} "
                          f"{cyc.bound if shown else '-':>7}  from {start}; {skel.text()}")
    budgets = (f"a budget of {args.budget} states" if args.budget else "the queries' budgets ("
               + ", ".join(f"{p} {b}" for p, b in BUDGETS.items()) + " states)")
    print(f"found {found} of {total} declared failures with {budgets}")


if __name__ == "__main__":
    main()
