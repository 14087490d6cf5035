"""A z3 search's answer, and the resource units it spends, do not depend on what ran before
in the process (`properties/symbolic/session.py`): a `diff` or `faq` search after other
readings, or in a test run after other tests, answers as the same command run alone."""

from __future__ import annotations

import z3

import model
from properties.symbolic import queries as Q
from properties.symbolic import session
from properties.symbolic.queries.parting import parting_search

SPEC = "spec/kadabra.yaml"
#: A reading z3 proves never parts from the ruling, given the invariants it proves first:
#: a search that found them proved by an earlier query would spend fewer units.
READING = {"show_llama_legality": "any_llama"}


def _search() -> tuple[str, int]:
    old = model.load(SPEC, players=2)
    new = model.load(SPEC, players=2, variants=READING)
    found = parting_search(old, new, limit=300_000_000)
    return found.status, found.spent


def test_a_parting_search_spends_the_same_units_after_other_z3_work() -> None:
    first = _search()
    assert first[0] == "proved_same"
    # other work on the same game in the same process: the invariants, proved and cached
    assert Q.invariants(model.load(SPEC, players=2), limit=100_000_000).status == "proved"
    assert _search() == first


def test_a_session_gives_a_new_context_and_empty_caches_and_restores_them() -> None:
    kept = session.cache()
    kept["x"] = 1
    outer = z3.main_ctx()
    with session.fresh():
        assert z3.main_ctx() is not outer and kept == {}
        kept["y"] = 2
        inner = z3.main_ctx()
        with session.fresh():  # nested: part of the outer session
            assert z3.main_ctx() is inner and kept == {"y": 2}
    assert z3.main_ctx() is outer and kept == {"x": 1}
