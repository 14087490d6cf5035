"""The z3 back end: agreement with the concrete model, proofs, witnesses that replay.

Everything here is generic: it runs for every spec in spec/ (and the LAMA mutant in
tests/mutants_z3/), reading only what the IR declares.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml
import z3

import model
from model.schema import SPEC_DIR
from properties.concrete import trace as tr
from properties.symbolic import queries as Q
from properties.symbolic.execute import Exec
from properties.symbolic.expressions import Ctx
from properties.symbolic.machine import Machine
from properties.symbolic.witness import Disagreement, differences

SPECS = sorted(SPEC_DIR.glob("*.yaml"))
MUTANTS = Path(__file__).parent / "mutants_z3"
REPO = Path(__file__).resolve().parent.parent


def _counts(spec: Path) -> list[int]:
    g = model.load_ir(spec, players=_min(spec))
    return list(range(g.min_players, g.max_players + 1))


def _min(spec: Path) -> int:
    return int(yaml.safe_load(spec.read_text(encoding="utf-8"))["players"]["min"])


# Every query at every count runs as the property suite's z3 items (`pytest spec/`), as
# `rulespec check` runs them; here, what the queries do.
SMALLEST = [(spec, _counts(spec)[0]) for spec in SPECS]
SMALLEST_IDS = [f"{spec.stem}-{n}p" for spec, n in SMALLEST]
# ---------------------------------------------------------------------- agreement
@pytest.mark.parametrize(("spec", "players"), SMALLEST, ids=SMALLEST_IDS)
def test_expressions_agree_on_concrete_states(spec: Path, players: int) -> None:
    """Round-end conditions, invariants, the measure and scores, translated to z3 and
    evaluated on concrete states, equal the concrete model's values."""
    game = model.load(spec, players=players)
    M = Machine(game.ir)
    rng = random.Random(3)
    state = game.initial_state(3)
    seen = 0
    while not state.is_terminal and seen < 120:
        st = M.enc.from_concrete(state)
        ctx = Ctx("e")
        ex = Exec(M.enc, ctx)
        for (name, f), c in zip(game.invariants, game.ir.invariants, strict=True):
            assert M.condition(c.expr, st, ctx) == bool(f(state.z, state.v)), name
        assert M.round_end(st, ex) == bool(game.ns["round_end"](state.z, state.v))
        if game.ir.measure is not None:
            assert M.measure(st, ctx) == game.ns["measure"](state.z, state.v)
        for p in range(players):
            assert M.value(game.ir.score, st, ctx, {"p": p}) == state.scores[p]
        state = state.apply(rng.choice(state.legal_actions()))
        seen += 1


def test_a_wrong_successor_is_a_disagreement() -> None:
    """The agreement check is not vacuous: a successor that is not the concrete one fails."""
    game = model.load(SPECS[0], players=3)
    M = Q.machine(game, split_params=True)
    state = game.initial_state(1)
    action = state.legal_actions()[0]
    other = state.apply(state.legal_actions()[-1])
    if other == state.apply(action):
        pytest.skip("the first and last legal actions lead to the same state")
    with pytest.raises(Disagreement):
        Q.check_transition(game, M, state, action, other)


# ---------------------------------------------------------------------- conservation
def misplaced(game: model.Game, state: model.State) -> list[str]:
    """The zones of `state` holding an item of the other class (a card among tokens)."""
    L, out = game.layout, []
    for z in game.ir.zones:
        for j in range(L.zone_count[z.name]):
            content = state.z[L.zone_base[z.name] + j]
            kinds = content if z.order == "pile" else [k for k, c in enumerate(content) if c]
            out += [f"{z.name}[{j}]" for k in kinds if game.ir.kinds[k].item_class != z.holds]
    return out


def test_a_spec_that_misplaces_a_card_fails_conservation_with_a_counterexample() -> None:
    game = model.load(MUTANTS / "lama_card_among_chips.yaml", players=3)
    res = Q.conservation(game)
    assert res.status == "witness", res.detail
    assert res.trace is not None and res.trace.actions
    assert "an item is put into a zone of another class: card " in res.detail
    assert " in chips[" in res.detail
    # the counterexample is a concrete situation where the concrete model puts a card among
    # the chips too
    enc = Q.machine(game).enc
    states = Q.replay(enc, res.trace)
    assert misplaced(game, states[0]) == []
    assert misplaced(game, states[-1]) != []
    # z3's state after the action cannot hold the card, so replay compares the situation
    # only: a wrong state after it passes, a wrong situation does not
    assert res.trace.compared == 1
    wrong_after = attrs.evolve(res.trace, values=[res.trace.values[0], res.trace.values[0]])
    Q.replay(enc, wrong_after)
    with pytest.raises(Disagreement, match="after 1 action"):
        Q.replay(enc, attrs.evolve(wrong_after, compared=None))
    before = copy.deepcopy(res.trace.values[0])
    before["vars"]["round"] = [before["vars"]["round"][0] + 1]
    with pytest.raises(Disagreement, match="after 0 action"):
        Q.replay(enc, attrs.evolve(res.trace, values=[before, res.trace.values[1]]))


# ---------------------------------------------------------------------- other proofs
def _tracked_totals(enc: Any, st: Any) -> list[tuple[int, Any]]:
    """(instance, total) for each zone instance whose total the execution tracked."""
    return [(i, enc.total(st, i)) for i in range(enc.n_inst)
            if st.N[i] is not None and st.N[i][0] is st.Z[i]]


@pytest.mark.parametrize(("spec", "players"), SMALLEST, ids=SMALLEST_IDS)
def test_tracked_totals_are_the_sums_of_the_counts(spec: Path, players: int) -> None:
    """Along a random game, after each action taken (and its round transition) every total
    the execution tracked along the effects equals the sum of the zone's counts, whatever
    the chance choices: z3 finds no way for them to differ. (From a symbolic state z3
    cannot always decide this: that equality is the very reasoning tracking spares it.)"""
    import z3

    from properties.symbolic.terms import SUM, zterm

    game = model.load(spec, players=players)
    M = Q.machine(game, split_params=True)
    enc = M.enc
    rng = random.Random(3)
    state = game.initial_state(3)
    checked = 0
    for _ in range(25):
        if state.is_terminal:
            break
        action = rng.choice(state.legal_actions())
        pre = enc.from_concrete(state)
        alts = [one for alt in M.alts()  # a joint action: one instance per choice here
                for one in (M.concrete_alts(pre, alt) if alt.slots is None
                            and game.ir.actions[alt.action].joint else [alt])]
        for n, alt in enumerate(alts):
            if alt.actor is not None and alt.actor != pre.V["active"][0]:
                continue
            part = M.action_part(pre, alt, f"t{n}")
            if part.enabled is not True or game.action(alt.action, tuple(part.args)) != action:
                continue
            post, _, _ = M.round_part(part.post, part.ctx)
            for st in (part.post, post):
                for i, total in _tracked_totals(enc, st):
                    s = z3.Solver()
                    s.set("rlimit", 200_000_000)  # z3's count of work: not the machine's load
                    for a in part.ctx.assume:
                        s.add(zterm(a))
                    assert s.check(zterm(total != SUM(st.Z[i]))) == z3.unsat, enc.inst_name(i)
                    checked += 1
        state = state.apply(action)
    assert checked > 0


def test_a_pile_moved_onto_itself_keeps_its_total() -> None:
    """move_all from a pile into the same pile (keeping its top, or not) leaves its total
    as it was, tracked or summed."""
    import z3

    from properties.symbolic.terms import SUM, zterm

    game = model.load(SPECS[0], players=_counts(SPECS[0])[0])
    enc = Q.machine(game).enc
    i = next(i for i in range(enc.n_inst) if enc.inst_pile[i])
    st = enc.fresh_state("x")
    for keep in (0, 1, 2):
        ctx = Ctx(f"self{keep}")
        after = Exec(enc, ctx).move_all(st, i, i, keep)
        s = z3.Solver()
        for a in ctx.assume:
            s.add(zterm(a))
        assert s.check(zterm(enc.total(after, i) != SUM(st.Z[i]))) == z3.unsat, keep
        assert s.check(zterm(SUM(after.Z[i]) != SUM(st.Z[i]))) == z3.unsat, keep


def _expected(game: model.Game, prop: str) -> str | None:
    from properties.checks.rows import expectation_for

    e = expectation_for(game.ir, prop)
    return e.result if e is not None else None


# ---------------------------------------------------------------------- witnesses
@pytest.mark.parametrize("condition", ["quit[1] and count(hand[0]) == 7",
                                       "count(discard) == 3"])
def test_reach_witness_replays_on_the_concrete_model(condition: str) -> None:
    game = model.load(SPEC_DIR / "lama.yaml", players=3)
    res = Q.reach(game, condition)
    assert res.status == "witness", res.detail
    t = res.trace
    assert t is not None
    states = Q.replay(Q.machine(game).enc, t)  # raises Disagreement on any difference
    expr = Q.parse_condition(game, condition)
    st = Q.machine(game).enc.from_concrete(states[-1])
    assert Q.machine(game).condition(expr, st, Ctx("c")) is True
    # and the replay file plays back with `rulespec replay`'s code
    data = yaml.safe_load(yaml.safe_dump(t.to_replay()))
    _, states2 = tr.replay(data)
    assert states2[-1].to_dict() == states[-1].to_dict()


def test_reach_is_shortest() -> None:
    game = model.load(SPEC_DIR / "lama.yaml", players=3)
    res = Q.reach(game, "quit[0] and quit[1]")
    assert res.status == "witness" and res.bound == 2


def test_a_bad_condition_is_a_spec_error() -> None:
    game = model.load(SPEC_DIR / "lama.yaml", players=3)
    with pytest.raises(model.SpecError):
        Q.reach(game, "hand[0] + 1")


def test_witness_differences_are_reported() -> None:
    game = model.load(SPEC_DIR / "lama.yaml", players=2)
    enc = Q.machine(game).enc
    a, b = game.initial_state(1), game.initial_state(2)
    sb = enc.from_concrete(b)
    values = {"zones": [(dict(zip(enc.inst_kinds[i], sb.Z[i], strict=True)), sb.T[i])
                        for i in range(enc.n_inst)],
              "vars": {n: list(xs) for n, xs in sb.V.items()}, "terminal": sb.term}
    assert differences(enc, b, values) == []
    assert differences(enc, a, values) != []


# ---------------------------------------------------------------------- expectations
def _witness_expectations() -> list[tuple[Path, dict]]:
    out = []
    for spec in SPECS:
        doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
        for e in doc.get("expect", []) or []:
            if e.get("witness"):
                out.append((spec, e))
    return out


@pytest.mark.parametrize(("spec", "expectation"), _witness_expectations(),
                         ids=[f"{s.stem}-{e['property']}" for s, e in _witness_expectations()])
def test_recorded_witnesses_replay(spec: Path, expectation: dict) -> None:
    """Every witness a spec records for an expected z3 failure replays concretely."""
    data = tr.read_replay(spec.parent / expectation["witness"])
    game, states = tr.replay(data)
    assert game.id == spec.stem
    assert len(states) == len(data["actions"]) + 1
    if expectation["property"] == "z3_game_cycle":
        # two round starts with equal states (the round counter aside): an endless game
        starts = [states[0]] + [s for prev, s in itertools.pairwise(states)
                                if s.round != prev.round]

        def key(state: model.State) -> str:
            d = state.to_dict()
            d.pop("round")
            d.pop("step")  # the chance state, not the game's
            return yaml.safe_dump(d, sort_keys=True)

        keys = [key(s) for s in starts]
        assert len(set(keys)) < len(keys), "no round start repeats"
    if expectation["property"] == "z3_round_bound":
        # two equal states within one round: a round that need not end
        assert all(s.round == states[0].round for s in states)
        assert states[-1] in states[:-1], "no state repeats"
    if expectation["property"] == "z3_supply":
        # the row replays the file and finds a supply asked for more than it holds
        res = Q.supply(model.load(spec, players=data["players"], variants=data["variants"]))
        assert res.status == "witness", res.detail
        assert f"the recorded witness {expectation['witness']} replays" in res.detail
        assert res.bound == len(data["actions"])
        # and on its own: a step asks a shared supply for more than it holds (the
        # encoding's own flags)
        from properties.symbolic.queries.common import Clock
        from properties.symbolic.queries.supply import shortages

        short = [shortages(game, a, action, b, Clock(Q.RLIMIT))
                 for a, action, b in zip(states[:-1], map(game.parse_action, data["actions"]),
                                         states[1:], strict=True)]
        assert any(short), "no supply runs short"


def test_game_cycle_replays_the_witness_the_spec_records() -> None:
    """LAMA's recorded two-player cycle is replayed, not searched for again."""
    game = model.load(SPEC_DIR / "lama.yaml", players=2)
    res = Q.game_cycle(game)
    assert res.status == "witness", res.detail
    assert "witnesses/lama-2p-z3_game_cycle.yaml replays" in res.detail
    assert res.seconds < 5


def test_round_bound_replays_the_witness_the_spec_records_and_prefers_one_from_a_deal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lambada's recorded round cycle starts from a situation: it still replays, but the
    row reports the cycle the deep search finds from the first deal; with no search budget
    the recorded one stands."""
    from properties.symbolic.queries import deep

    game = model.load(SPEC_DIR / "lambada.yaml", players=2)
    res = Q.round_bound(game)
    assert (res.status, res.found_by, res.start) == ("witness", "search", "deal"), res.detail
    assert res.detail.startswith("from the first deal, the state after action ")
    monkeypatch.setattr(deep, "ROUND_STATES", 0)
    res = Q.round_bound(game)
    assert (res.status, res.found_by, res.start) == ("witness", "recorded", "situation")
    assert "after action 0 comes back after action 6 within one round" in res.detail


def _edited_witness(tmp_path: Path, witness: str, edit: Callable[[dict], None] | None,
                    instead: str = "w/edited.yaml") -> Path:
    """A copy of LAMA's spec in a folder of its own (`tmp_path/spec`) whose recorded
    `witness` is replaced by `instead` (a path from that folder): a copy of that file
    changed by `edit` (None: no file is written)."""
    (tmp_path / "spec").mkdir(exist_ok=True)
    if edit is not None:
        data = yaml.safe_load((SPEC_DIR / witness).read_text())
        edit(data)
        (tmp_path / "spec" / instead).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "spec" / instead).write_text(yaml.safe_dump(data))
    text = (SPEC_DIR / "lama.yaml").read_text(encoding="utf-8")
    assert f"witness: {witness}" in text
    spec = tmp_path / "spec" / "lama.yaml"
    spec.write_text(text.replace(f"witness: {witness}", f"witness: {instead}"),
                    encoding="utf-8")
    return spec


def test_a_recorded_witness_that_shows_no_cycle_is_not_taken(tmp_path: Path) -> None:
    """A witness file that does not come back to a round start (here: cut short), or one
    that leads out of the spec's folder (a link; a path that does so is an error when the
    spec loads), is ignored, and the query searches as usual."""
    from properties.symbolic.queries.recorded import recorded_witness, repeated_start

    witness = "witnesses/lama-2p-z3_game_cycle.yaml"
    spec = _edited_witness(tmp_path, witness, lambda d: d.update(actions=d["actions"][:10]))
    game = model.load(spec, players=2)
    found = recorded_witness(game, "z3_game_cycle")
    assert found is not None and found[0] == "w/edited.yaml"
    assert repeated_start(game, found[1], frozenset({"round"})) is None
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text((SPEC_DIR / witness).read_text())
    (tmp_path / "spec" / "w" / "link.yaml").symlink_to(outside)
    spec = _edited_witness(tmp_path, witness, None, instead="w/link.yaml")
    assert recorded_witness(model.load(spec, players=2), "z3_game_cycle") is None
    spec = _edited_witness(tmp_path, witness, None, instead="../../etc/passwd.yaml")
    with pytest.raises(model.SpecError, match=r"expect/\d+/witness: .* expected form"):
        model.load(spec, players=2)


def test_supply_replays_the_witness_the_spec_records() -> None:
    """LAMA's six-player pool runs short in the recorded witness: the row is the spec's
    expected failure, shown by the replay (the search within the budget stops at 4
    actions, one short of it). The concrete model agrees: the penalty the pool could not
    pay is owed after the last step, and not before."""
    from properties.checks.z3rows import row_of

    game = model.load(SPEC_DIR / "lama.yaml", players=6)
    res = Q.supply(game)
    assert res.status == "witness", res.detail
    assert res.detail.startswith("the recorded witness witnesses/lama-6p-z3_supply.yaml "
                                 "replays on the concrete model: pay from pool (spec line ")
    assert res.detail.endswith("runs short at 'quit' after 5 action(s)")
    assert res.bound == 5 and res.seconds < 5
    assert row_of(game, res).status == "expected failure"
    _, states = tr.replay(tr.read_replay(SPEC_DIR / "witnesses/lama-6p-z3_supply.yaml"))
    assert [sum(s.to_dict()["vars"]["unpaid"]) > 0 for s in states] == [False] * 5 + [True]


def test_a_recorded_witness_without_a_shortage_is_not_taken(tmp_path: Path) -> None:
    """The six-player witness with one quit fewer: no supply runs short, so the replay is
    ignored and the query searches (within a small budget here) as it would without it."""
    witness = "witnesses/lama-6p-z3_supply.yaml"
    spec = _edited_witness(tmp_path, witness, lambda d: d.update(actions=d["actions"][:4]))
    res = Q.supply(model.load(spec, players=6), units=2_000_000)
    assert "recorded witness" not in res.detail
    assert res.status in ("bounded", "witness"), res.detail
    assert res.found_by in (None, "z3", "search")
    # z3 finds the five quits step by step, or, choosing whole rounds, the round of six
    assert res.found_by != "z3" or res.bound in (5, 6)


def test_a_declared_failure_that_is_not_shown_says_so_in_the_summary() -> None:
    """A row the spec declares to fail that z3 neither proves nor shows (bounded here: the
    recorded witness no longer showed it) is not 'proved up to a bound' in the summary,
    and it is undecided, not a pass; an undeclared bounded row stays bounded."""
    from properties.checks.z3rows import row_of
    from properties.cli.report import summary_lines

    res = Q.Result("supply", "bounded", "no shared supply runs short up to 4 action(s)", 1.0,
                   bound=4)
    six = row_of(model.load(SPEC_DIR / "lama.yaml", players=6), res)
    two = row_of(model.load(SPEC_DIR / "lama.yaml", players=2), res)  # no failure declared
    assert (six.status, six.ok, six.bound) == ("failure not shown", False, 4)  # undecided
    assert "the recorded witness witnesses/lama-6p-z3_supply.yaml does not show it" \
        in six.detail and six.detail.endswith(f"z3: {res.detail}")
    assert (two.status, two.detail) == ("bounded", res.detail)
    (line,) = summary_lines([two, six])
    assert line.split(None, 2)[2] == "failure not shown 6p, proved up to a bound 2p"


def test_a_recorded_witness_that_cannot_be_read_is_named_with_its_error(tmp_path: Path
                                                                         ) -> None:
    """A declared failure whose replay file is not valid (here a YAML tag, which is never
    run) says why, with the file and line, instead of "does not show it"."""
    from properties.checks.z3rows import row_of

    spec = _edited_witness(tmp_path, "witnesses/lama-6p-z3_supply.yaml", None)
    (tmp_path / "spec" / "w").mkdir()
    (tmp_path / "spec" / "w/edited.yaml").write_text(
        'spec: lama\nplayers: 6\nseed: !!python/object/apply:os.system ["true"]\n'
        "actions: [quit]\n")
    res = Q.Result("supply", "bounded", "no shared supply runs short up to 4 action(s)", 1.0,
                   bound=4)
    row = row_of(model.load(spec, players=6), res)
    assert row.status == "failure not shown"
    assert "the recorded witness cannot be replayed: " in row.detail
    assert "edited.yaml:3:" in row.detail and "does not show it" not in row.detail


def test_a_recorded_witness_that_cannot_be_played_is_named_with_the_step(tmp_path: Path
                                                                         ) -> None:
    """A replay file that reads well but cannot be played to its end (here its last
    recorded shuffle is cut off, so the scoring of the last round has no deal to make) is
    not taken, and the row says at which action it stops and why, instead of an error."""
    from properties.checks.z3rows import row_of

    witness = "witnesses/lama-6p-z3_supply.yaml"
    spec = _edited_witness(tmp_path, witness, lambda d: d.update(shuffles=d["shuffles"][:1]))
    game = model.load(spec, players=6)
    res = Q.supply(game, units=1)
    assert "recorded witness" not in res.detail
    row = row_of(game, Q.Result("supply", "bounded", "no shared supply runs short up to 4 "
                                "action(s)", 1.0, bound=4))
    assert row.status == "failure not shown"
    assert ("the recorded witness cannot be replayed: w/edited.yaml, action 5: the replay has "
            "no recorded shuffle left") in row.detail


def test_a_search_within_a_budget_is_bounded_below_the_shortest_witness(tmp_path: Path
                                                                       ) -> None:
    """LAMA's six-player pool runs short after five quits (the recorded witness, left out
    here so that z3 searches). Whatever the search answers within its budget, a bound is
    below that depth, a witness at it."""
    spec = _edited_witness(tmp_path, "witnesses/lama-6p-z3_supply.yaml", None,
                           instead="w/missing.yaml")
    game = model.load(spec, players=6)
    res = Q.supply(game, units=2_000_000)
    assert "recorded witness" not in res.detail
    assert res.status in ("bounded", "witness"), res.detail
    assert res.bound is not None
    if res.status == "bounded":
        assert 1 <= res.bound < 5 and f"up to {res.bound} action(s)" in res.detail
    elif res.found_by == "z3":  # z3's search is shortest first; the deep search's is not
        assert res.bound == 5
    else:
        assert res.found_by == "search" and res.bound >= 5


def test_a_budget_stops_a_check_by_z3_resources() -> None:
    import z3

    from properties.symbolic.queries.common import Budget, Clock

    xs = [z3.Int(f"x{i}") for i in range(12)]
    s = z3.Solver()
    s.add(z3.Sum(xs) == 1000, *[x >= 0 for x in xs],
          *[x * x % 7 == 3 - (i % 3) for i, x in enumerate(xs)])
    b = Budget(50_000)
    assert b.check(s, Clock(10**9)) == z3.unknown
    assert b.left <= 0
    assert b.check(s, Clock(10**9)) == z3.unknown  # nothing left: not even tried


def test_a_player_left_without_a_move_is_found() -> None:
    game = model.load(MUTANTS / "lama_stuck.yaml", players=3)
    res = Q.legal_move(game)
    # found reachable (witness), or only well-formed: then the search from a deal is shown
    assert res.status in ("witness", "unknown", "bounded"), res.detail
    assert "no legal action" in res.detail


# ---------------------------------------------------------------------- techniques
SPECS_DIR = Path(__file__).parent / "specs"


def _retry_cache(game: model.Game) -> list[bool]:
    from properties.symbolic.expressions import Ctx as C

    M = Machine(game.ir)
    M.initial(C("init"))
    return list(M.enc.retry_cache.values())


def test_a_redraw_loop_is_summarised_by_one_try() -> None:
    """The set-up loop that puts the card back, reshuffles and draws again forgets the
    last try (z3 proves it), so it is one try, not sixty."""
    assert _retry_cache(model.load(SPEC_DIR / "lambada.yaml", players=3)) == [True]
    assert _retry_cache(model.load(SPECS_DIR / "row104.yaml", players=2)) == [True]


def test_a_loop_that_keeps_what_it_drew_is_not_summarised(tmp_path: Path) -> None:
    """The same loop without putting the card back draws a new card each try: it does
    not forget, and must be unrolled."""
    text = (SPECS_DIR / "row104.yaml").read_text(encoding="utf-8")
    mutant = text.replace('do: ["move_all(row, deck)", "shuffle(deck)", "move_top(deck, row)"]',
                          'do: ["shuffle(deck)", "move_top(deck, row)"]')
    assert mutant != text
    path = tmp_path / "row104.yaml"
    path.write_text(mutant, encoding="utf-8")
    assert _retry_cache(model.load(path, players=2)) == [False]


def test_a_game_measure_proves_that_every_game_ends() -> None:
    game = model.load(SPECS_DIR / "row104.yaml", players=2)
    # a roomy limit: CI machines are shared (about 10 s of CPU on an idle machine)
    res = Q.game_cycle(game)
    assert res.status == "proved", res.detail
    assert res.bound == 2


def test_a_game_measure_that_does_not_fall_proves_nothing(tmp_path: Path) -> None:
    text = (SPECS_DIR / "row104.yaml").read_text(encoding="utf-8")
    mutant = text.replace('measure: {expr: "rounds - round"', 'measure: {expr: "rounds"')
    assert mutant != text
    path = tmp_path / "row104.yaml"
    path.write_text(mutant, encoding="utf-8")
    res = Q.game_cycle(model.load(path, players=2))
    assert res.status != "proved", res.detail


def test_a_104_card_game_gets_its_one_step_proofs() -> None:
    """104 distinct cards dealt with move_top from a shuffled pile: conservation and the
    supply are proved (both were beyond the limit before)."""
    game = model.load(SPECS_DIR / "row104.yaml", players=2)
    for name in ("conservation", "supply"):
        res = Q.QUERIES[name](game)
        assert res.status == "proved", f"{name}: {res.detail}"


def test_an_invariant_that_fails_is_named(tmp_path: Path) -> None:
    text = (SPECS_DIR / "row104.yaml").read_text(encoding="utf-8")
    mutant = text.replace('when: "not empty(row)"', 'when: "count(row) == 1"')
    assert mutant != text
    path = tmp_path / "row104.yaml"
    path.write_text(mutant, encoding="utf-8")
    res = Q.invariants(model.load(path, players=2))
    assert res.status == "witness", res.detail
    assert "row_never_empty fails" in res.detail


def _row104_goals(tmp_path: Path, invariant: str) -> tuple[model.Game, Any, Any]:
    """The 104-card game with one more invariant (a YAML flow mapping): the game, its
    invariant goals and one step from any state satisfying its invariants."""
    import importlib

    from properties.symbolic.queries.common import Clock, OneStep

    inv = importlib.import_module("properties.symbolic.queries.invariants")
    text = (SPECS_DIR / "row104.yaml").read_text(encoding="utf-8")
    anchor = '- {name: within_rounds, when: "round <= rounds"}'
    mutant = text.replace(anchor, f"{anchor}\n  - {invariant}")
    assert mutant != text
    path = tmp_path / "row104.yaml"
    path.write_text(mutant, encoding="utf-8")
    game = model.load(path, players=2)
    M = Q.machine(game)
    return game, inv._Goals(game, M, Clock(Q.RLIMIT)), OneStep.build(M, in_round=True,
                                                                invariants=True)


def test_a_localized_check_proves_what_holds_and_not_what_fails(tmp_path: Path) -> None:
    """The localized transition (zones and variables an invariant does not read forgotten
    before each statement) proves an invariant that holds, and never one that fails."""
    game, G, one = _row104_goals(tmp_path, '{name: one_in_row, when: "count(row) <= 1"}')
    play = next(n for n, p in enumerate(one.parts) if game.ir.actions[p.alt.action].name == "play")
    assert G.localized(one, play, "row_never_empty")
    assert not G.localized(one, play, "one_in_row")


def test_a_count_over_zones_that_every_effect_keeps_is_proved_effect_by_effect(
        tmp_path: Path) -> None:
    """An invariant on zones alone is kept by a transition when each of its effects keeps
    it (`Lemmas.keeps`): the cards in the deck, the row, the hands and the taken piles
    always number 104. "The row is never empty" holds too, but taking the row empties it
    for a moment (the lemmas prove only what each effect keeps)."""
    game, G, one = _row104_goals(
        tmp_path, '{name: all_cards, when: "count(deck) + count(row) + sum(count(hand[p]) '
        '+ count(taken[p]) for p in players) == 104"}')
    name = {n: game.ir.actions[p.alt.action].name for n, p in enumerate(one.parts)}
    for n, part in enumerate(one.parts):
        assert G.by_effects(part, "all_cards"), name[n]
    take = next(n for n in name if name[n] == "take")
    play = next(n for n in name if name[n] == "play")
    assert G.by_effects(one.parts[play], "row_never_empty")
    assert not G.by_effects(one.parts[take], "row_never_empty")
    # an invariant that reads a variable is never proved this way
    assert not G.by_effects(one.parts[play], "within_rounds")
    res = Q.invariants(game)
    assert res.status == "proved", res.detail


def test_what_a_guard_says_of_the_parameters_alone_is_assumed_effect_by_effect() -> None:
    """A card played on a position of its own letter keeps "each position holds cards of
    its letter" only because the guard says `card.letter == pos.letter`: with that fact
    the effect lemmas prove it, without it they cannot. A name a loop binds anew does not
    get the parameter's facts."""
    import importlib

    from properties.symbolic.lemmas import _facts_at, parameter_facts
    from properties.symbolic.queries.common import Clock, OneStep

    inv = importlib.import_module("properties.symbolic.queries.invariants")
    game = model.load(SPEC_DIR / "lambada.yaml", players=2)
    M = Q.machine(game)
    one = OneStep.build(M, in_round=True, invariants=True)
    G = inv._Goals(game, M, Clock(Q.RLIMIT))
    part = next(p for p in one.parts if game.ir.actions[p.alt.action].name == "play")
    action = game.ir.actions[part.alt.action]
    facts = parameter_facts(action)
    sides = [(x.obj.name, x.attr) for x in (facts[0].left, facts[0].right)]
    assert sides == [("card", "letter"), ("pos", "letter")]
    assert G.by_effects(part, "letters_match_positions")
    cond = G._cond("letters_match_positions")
    kept = (cond.name, lambda st, ctx: M.condition(cond.expr, st, ctx))
    assert not G.lemmas.keeps(kept, part.ctx.sites, lambda: 60_000_000)
    values = dict(zip([p for p, _ in action.params], part.args, strict=True))
    assert _facts_at((facts, values), dict(values)) == facts
    assert _facts_at((facts, values), {**values, "card": z3.Int("another")}) == ()


def test_invariants_the_actions_leave_alone_hold_when_a_round_ends() -> None:
    """The round transition is checked from round-end states where the invariants hold
    that every action keeps, a round ending or not (`_Goals.kept_always`); without that,
    z3 gave up on these two after 100 s (10 s of CPU with it, on an idle machine). They then
    prove the game measure: with two players at most 2 x 3 round wins to go, so at most 7
    rounds."""
    game = model.load(SPEC_DIR / "lambada.yaml", players=2)
    res = Q.invariants(game, names=["tokens_record_wins", "wins_within_the_match"])
    assert res.status == "proved", res.detail
    cycle = Q.game_cycle(game)
    assert cycle.status == "proved", cycle.detail
    assert cycle.bound == 2 * 3 + 1


def test_agreement_counts_what_it_checked_when_the_budget_runs_out() -> None:
    """A budget that runs out inside a transition's check: the transitions checked before
    still count (the row was *unknown* for Lambada at 4 and 6 players, with hundreds
    checked), and how many does not depend on the machine."""
    game = model.load(SPEC_DIR / "lambada.yaml", players=4)
    first = Q.agreement(game, limit=3_000_000)
    assert first.status == "proved", first.detail
    assert first.bound and first.bound > 0
    full = Q.agreement(game, games=1, max_steps=first.bound + 50)
    assert full.bound is not None and full.bound > first.bound
    assert Q.agreement(game, limit=3_000_000).bound == first.bound


def test_a_failed_invariants_row_is_not_asked_again_by_the_queries_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The queries of one player count run in one process: legal_move, supply and
    game_cycle take the invariants row's answer, failed or not, instead of asking z3 again
    with half their own time (12-13 s of each Lambada legal_move row went to that)."""
    import importlib

    inv = importlib.import_module("properties.symbolic.queries.invariants")
    text = (SPECS_DIR / "row104.yaml").read_text(encoding="utf-8")
    mutant = text.replace('when: "not empty(row)"', 'when: "count(row) == 1"')
    assert mutant != text
    path = tmp_path / "row104.yaml"
    path.write_text(mutant, encoding="utf-8")
    game = model.load(path, players=2)
    calls: list[object] = []
    real = inv._invariants
    monkeypatch.setattr(inv, "_invariants", lambda *a: calls.append(a) or real(*a))
    assert Q.invariants(game).status == "witness"
    Q.legal_move(game)
    assert len(calls) == 1
