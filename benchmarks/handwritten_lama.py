"""A plain hand-written LAMA random playout: the yardstick for `rulespec bench lama`.

Not part of rulespec (which has no game-specific Python): a baseline to compare the
generated model against, on the same machine and the same workload (uniform random
choice among the legal actions, drawn as `int(rng.random() * n)`, games to 40 points).
`rulespec bench lama -p 4 --yardstick benchmarks/handwritten_lama.py` runs its `game`
in turns with the generated model and prints the ratio; alone, run:

    python benchmarks/handwritten_lama.py [players] [seconds]
"""

import random
import sys
import time


def game(rng, P=4):
    rnd = rng.random
    chips = [0] * P
    starter = 0
    n = 0
    while True:
        deck = [r for r in range(1, 8) for _ in range(8)]
        rng.shuffle(deck)
        hands = [[0] * 8 for _ in range(P)]
        for _ in range(6):
            for p in range(P):
                hands[p][deck.pop()] += 1
        top = deck.pop()
        quit = [False] * P
        active = starter
        inr = P
        while True:
            h = hands[active]
            acts = [c for c in range(1, 8) if h[c] and (c == top or c == top % 7 + 1)]
            if deck and inr > 1:
                acts.append(-1)
            acts.append(0)
            a = acts[int(rnd() * len(acts))]
            n += 1
            if a > 0:
                h[a] -= 1
                top = a
                if not any(h):
                    ender = active
                    break
            elif a == -1:
                h[deck.pop()] += 1
            else:
                quit[active] = True
                inr -= 1
                if inr == 0:
                    ender = active
                    break
            for q in range(1, P + 1):
                nxt = (active + q) % P
                if not quit[nxt]:
                    active = nxt
                    break
        for p in range(P):
            pts = sum((10 if c == 7 else c) for c in range(1, 8) if hands[p][c])
            chips[p] += pts
        if any(hands[ender]) is False and chips[ender] > 0:
            chips[ender] -= 10 if chips[ender] >= 10 else 1
        starter = ender
        if max(chips) >= 40:
            return n


def main() -> None:
    players = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    rng = random.Random(1)
    t = time.process_time()
    actions = games = 0
    while time.process_time() - t < seconds:
        actions += game(rng, players)
        games += 1
    dt = time.process_time() - t
    print(
        f"hand-written LAMA, {players} players: {actions / dt:,.0f} actions/s, "
        f"{games / dt:,.1f} games/s, {actions / games:.1f} actions per game (CPU time)"
    )


if __name__ == "__main__":
    main()
