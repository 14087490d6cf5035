"""A differential test: LAMA's legal moves and scores written by hand from the rulebook,
compared with the model compiled from spec/lama.yaml over many random states.

The hand-written version reads only the plain-data state (`State.to_dict()`), so the
two implementations share nothing but the state format.
"""

from __future__ import annotations

import random

import pytest

import model

RANK = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "llama": 7}
POINTS = {**{k: v for k, v in RANK.items() if k != "llama"}, "llama": 10}
ORDER = ["1", "2", "3", "4", "5", "6", "llama"]


def legal_by_hand(d: dict) -> list[str]:
    """lama.en#L13-L23 and lama.nl#L7-L19, read directly."""
    if d["terminal"]:
        return []
    me = d["active"]
    v = d["vars"]
    if v["phase"] == "return":  # lama.en#L25: return one chip, or keep them
        chips = d["zones"]["chips"][me]
        return [f"return {c}" for c in ("white", "black") if chips.get(c)] + ["keep chips"]
    top = RANK[d["zones"]["discard"][-1]]
    hand = d["zones"]["hand"][me]
    out = [f"play {k}" for k in ORDER
           if hand.get(k) and (RANK[k] in (top, top + 1) or (RANK[k] == 1 and top == 7))]
    in_round = sum(not q for q in v["quit"])
    if d["zones"]["stock"] and in_round > 1:
        out.append("draw")
    out.append("quit")
    return out


def penalty_by_hand(hand: dict, out: dict) -> int:
    """lama.en#L27-L28: each value once, a llama 10 once."""
    return sum({POINTS[k] for k, c in {**hand, **out}.items() if c})


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_legal_actions_agree_with_a_hand_written_reading(players: int) -> None:
    game = model.load("lama", players=players)
    rng = random.Random(players)
    checked = 0
    for seed in range(60):
        state = game.initial_state(seed)
        while not state.is_terminal:
            d = state.to_dict()
            legal = [str(a) for a in state.legal_actions()]
            assert legal == legal_by_hand(d), (seed, d)
            checked += 1
            nxt = state.apply(state.legal_actions()[rng.randrange(len(legal))])
            if nxt.round != state.round or nxt.is_terminal:
                _check_scoring(d, nxt.to_dict(), players)
            state = nxt
    assert checked > 300


def _check_scoring(before: dict, after: dict, players: int) -> None:
    """The chips a round adds are each player's penalty (nobody had a return pending)."""
    if before["vars"]["phase"] == "return":
        return  # the ender returned (or kept) a chip this step; covered by situations
    worth = {"white": 1, "black": 10}
    for p in range(players):
        gained = (sum(worth[c] * n for c, n in after["zones"]["chips"][p].items())
                  - sum(worth[c] * n for c, n in before["zones"]["chips"][p].items()))
        if after["vars"]["unpaid"][p] != before["vars"]["unpaid"][p]:
            continue  # the pool ran short: chip_shortage, covered elsewhere
        hand = before["zones"]["hand"][p]
        if p == before["active"]:
            continue  # the acting player's hand changed in this very step
        assert gained == penalty_by_hand(hand, before["zones"]["out"][p]), (p, before)
