"""FAQ statistics remember the policies that played them: statistics an earlier greedy
policy played (one that saw every hand) say so, and `rulespec faq` plays them again."""

from __future__ import annotations

from properties.compare import policies
from properties.faq.effects import Effect, effect_text


def test_statistics_stored_before_policies_had_a_version_are_the_earlier_policy_s() -> None:
    old = Effect.from_data({"players": 4, "games": 1000, "changes": []})
    assert old.policy_version == 1 and not old.current
    assert "a greedy player who saw every hand, an earlier policy" in effect_text(old)


def test_statistics_played_now_carry_today_s_version_and_read_back_so() -> None:
    now = Effect(4, 1000, ())
    assert now.current and now.to_data()["policies"] == policies.VERSION
    again = Effect.from_data(now.to_data())
    assert again == now
    assert "(uniform random and greedy)" in effect_text(again)
