"""A `while` loop (the automatic steps are one) is unrolled in z3 only as far as it can
run from any sound state (properties/symbolic/loop_bounds.py), not to its `max`: the
least bound z3 proves, exact, so a loop that can run to its max keeps it."""

from __future__ import annotations

from pathlib import Path

import model
from properties.symbolic.machine import Machine
from properties.symbolic.queries.common import action_parts
from properties.symbolic.queries.conservation import conservation
from properties.symbolic.queries.invariants import invariants

SPECS = Path(__file__).parent / "specs"

#: coin.yaml with an action that turns up the deck's cards one by one while any is left:
#: three cards, so at most three tries, whatever the loop's max
TURN_ALL = """
  turn_all:
    say: turn all
    when: not stopped and not flipped
    cite: coin.en#L1
    effects:
      - while: "{test}"
        max: {max}
        do: ["{body}"]
      - flipped = True
"""


def _coin(tmp_path: Path, test: str = "count(deck) > 0", body: str = "move_top(deck, up)",
          most: int = 10, invariant: str = "") -> Path:
    text = (SPECS / "coin.yaml").read_text(encoding="utf-8")
    text = text.replace("  stopped: {type: bool, init: false}\n",
                        "  stopped: {type: bool, init: false}\n"
                        "  flipped: {type: bool, init: false}\n"
                        "  left: {type: int, init: 0}\n")
    text = text.replace("    - stopped = False\n", "    - stopped = False\n    - flipped = False\n")
    text = text.replace("actions:\n", "actions:" + TURN_ALL.format(test=test, max=most, body=body))
    if invariant:
        text += f"\ninvariants:\n  - {{name: flipped_all, when: \"{invariant}\"}}\n"
    assert "turn_all" in text and "flipped = False" in text
    (tmp_path / "rulebooks").mkdir(exist_ok=True)
    (tmp_path / "rulebooks" / "coin.en.txt").write_text(
        (SPECS / "rulebooks" / "coin.en.txt").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "coin.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _bounds(game: model.Game) -> list[tuple[int, int]]:
    """(proved bound, the loop's max) of each loop the actions run, as z3 unrolls them."""
    M = Machine(game.ir, split_params=False)
    action_parts(M)
    return sorted({(k, key[2]) for key, k in M.enc.loop_cache.items()})


def test_a_loop_that_empties_a_pile_runs_at_most_as_often_as_the_pile_has_cards(
        tmp_path: Path) -> None:
    game = model.load(_coin(tmp_path), players=2)
    assert _bounds(game) == [(3, 10)]


def test_a_loop_that_can_run_to_its_max_keeps_it(tmp_path: Path) -> None:
    # a counter read from any state can be as large as it likes
    counting = _coin(tmp_path, test="left > 0", body="left -= 1", most=6)
    assert _bounds(model.load(counting, players=2)) == [(6, 6)]


def test_a_loop_of_a_few_tries_is_not_asked(tmp_path: Path) -> None:
    """At most loop_bounds.SMALL tries are unrolled as they are: the deck loop, proved to
    run 3 times with a max of 10, keeps a max of 4."""
    game = model.load(_coin(tmp_path, most=4), players=2)
    assert _bounds(game) == [(4, 4)]


def test_the_proof_after_a_loop_needs_every_try_it_can_make(tmp_path: Path) -> None:
    """After turn_all the deck is empty only if the unrolling keeps the third try: a bound
    of two would let z3 find a deck left with a card."""
    spec = _coin(tmp_path, invariant="not flipped or empty(deck)")
    assert invariants(model.load(spec, players=2)).status == "proved"
    spec = _coin(tmp_path, invariant="not flipped or count(up) <= 2")
    result = invariants(model.load(spec, players=2))
    assert result.status == "witness" and "flipped_all fails after turn_all" in result.detail


def test_go_fish_automatic_steps_make_at_most_four_tries_of_eight() -> None:
    """Lay the asker's books, refill empty hands, put out the empty-handed, skip an out
    player: no step enables itself or one before it, so four tries, not the maxes' sum."""
    game = model.load(SPECS / "gofish.yaml", players=4)
    assert _bounds(game) == [(4, 8)]


def test_go_fish_conservation_is_proved_effect_by_effect_at_five_players() -> None:
    """The ask moves `count(hand[target], wanted)` cards of a symbolic rank: its lemma holds
    because a negative count is undefined (as the concrete model checks) and moving none
    of a kind puts no item of another class anywhere."""
    result = conservation(model.load(SPECS / "gofish.yaml", players=5))
    assert result.status == "proved", result.detail
    assert "effects proved one by one" in result.detail
