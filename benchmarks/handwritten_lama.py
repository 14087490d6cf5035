"""A plain hand-written LAMA random playout: the yardstick for `rulespec bench`.

Not part of rulespec (which has no game-specific Python): a baseline to compare the
generated model against, on the same machine and the same workload. It plays the game
`spec/lama.yaml` describes with its default readings, in the same way:

- the same rules: a round ends when a hand is emptied, when everyone has quit, or when
  the one player left in cannot play; a player who empties their hand may return one
  chip or keep them all (a choice, as in the spec); penalties are paid from a pool of 50
  white and 20 black chips, black first, what the pool cannot pay is owed, and ten white
  chips are exchanged for a black one; the player who acted last starts the next round;
  the game ends when someone has 40 points;
- the same choices: the legal actions in the model's order (cards by rank, then draw,
  then quit; white chip, black chip, then keep), one drawn uniformly as
  `int(rng.random() * n)`, the deck shuffled once a round with `rng.shuffle`.

`tests/test_bench.py` drives it with the model's own shuffles and choices and checks
that every game takes as many actions as the model's. `rulespec bench lama -p 4
--yardstick benchmarks/handwritten_lama.py` runs its `game` in turns with the generated
model and prints the ratio; alone, run:

    python benchmarks/handwritten_lama.py [players] [seconds]
"""

import random
import sys
import time

POINTS = (0, 1, 2, 3, 4, 5, 6, 10)  # by rank; the llama is rank 7
PLAY, DRAW, QUIT, WHITE, BLACK, KEEP = -1, -2, -3, -4, -5, -6  # actions other than a card


def game(rng, P=4):
    rnd = rng.random
    white, black = [0] * P, [0] * P  # each player's chips
    pool_white, pool_black = 50, 20
    owed = [0] * P
    starter = 0
    n = 0
    while True:
        deck = [r for r in range(1, 8) for _ in range(8)]
        rng.shuffle(deck)
        hands = [[0] * 8 for _ in range(P)]
        for _ in range(6):
            for p in range(P):
                hands[p][deck.pop()] += 1
        out = [[0] * 8 for _ in range(P)]  # cards laid down on quitting
        top = deck.pop()
        quit = [False] * P
        in_round = P
        active = starter
        returning = False
        while True:
            h = hands[active]
            if returning:
                acts = []
                if white[active]:
                    acts.append(WHITE)
                if black[active]:
                    acts.append(BLACK)
                acts.append(KEEP)
            else:
                acts = [c for c in range(1, 8)
                        if h[c] and (c == top or c == top + 1 or (c == 1 and top == 7))]
                if deck and in_round > 1:
                    acts.append(DRAW)
                acts.append(QUIT)
            a = acts[int(rnd() * len(acts))]
            n += 1
            ender = active
            if a > 0:
                h[a] -= 1
                top = a
                if not any(h):
                    if white[active] or black[active]:
                        returning = True
                        continue
                    break
            elif a == DRAW:
                h[deck.pop()] += 1
            elif a == QUIT:
                out[active] = h
                hands[active] = [0] * 8
                quit[active] = True
                in_round -= 1
                if in_round == 0:
                    break
            else:
                if a == WHITE:
                    white[active] -= 1
                    pool_white += 1
                elif a == BLACK:
                    black[active] -= 1
                    pool_black += 1
                break
            for q in range(1, P + 1):
                nxt = (active + q) % P
                if not quit[nxt]:
                    active = nxt
                    break
            if in_round == 1:
                h = hands[active]
                if not any(h[c] for c in range(1, 8)
                           if c == top or c == top + 1 or (c == 1 and top == 7)):
                    break
        for p in range(P):
            left = sum(POINTS[c] for c in range(1, 8) if hands[p][c] or out[p][c])
            pay = min(left // 10, pool_black)
            pool_black -= pay
            black[p] += pay
            left -= 10 * pay
            pay = min(left, pool_white)
            pool_white -= pay
            white[p] += pay
            owed[p] += left - pay
            swap = min(white[p] // 10, pool_black)
            white[p] -= 10 * swap
            pool_white += 10 * swap
            pool_black -= swap
            black[p] += swap
        starter = ender
        if max(white[p] + 10 * black[p] + owed[p] for p in range(P)) >= 40:
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
