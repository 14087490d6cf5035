"""Unit tests of the property-suite machinery: configurations, replays, coverage, the plugin.

The suite itself (pytest spec/) is the big test; these check the parts it is built
from on small budgets, with spec copies written into temporary directories.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_mutants import fault

import model
from properties.cli import main
from properties.concrete import trace as tr
from properties.concrete.coverage import Coverage, clauses, gaps, report_lines
from properties.concrete.stateful import (
    CHECKS,
    PROFILES,
    Config,
    build_machine,
    configurations,
    replay_name,
    run_config,
    run_game,
    zone_size,
    zone_slots,
)

ROOT = Path(__file__).parent.parent
LAMA = ROOT / "spec" / "lama.yaml"
MUTANTS = Path(__file__).parent / "mutants"
#: Inner pytest runs: no cache files, no benchmark plugin warnings (when it is installed).
QUIET = ("-p", "no:cacheprovider", "-p", "no:benchmark", "--rulespec-no-z3")


def _variant_pairs(g) -> set[tuple[str, str]]:
    return {(a.id, v.name) for a in g.ambiguities for v in a.variants}


# ----------------------------------------------------------------- configurations
def test_ci_profile_samples_every_variant_and_every_player_count():
    g = model.load_ir(LAMA, players=2)
    configs = configurations(g, PROFILES["ci"])
    assert {c.players for c in configs} == set(range(g.min_players, g.max_players + 1))
    defaults = {a.id: a.default for a in g.ambiguities}
    seen = {(a, v) for c in configs for a, v in {**defaults, **dict(c.variants)}.items()}
    assert seen == _variant_pairs(g)
    assert len(configs) == len(set(configs))


def test_config_labels_read_as_test_ids():
    assert Config(3).label == "players=3"
    assert Config(4, (("chip_exchange", "never"),)).label == "players=4,chip_exchange=never"
    assert replay_name("lama", Config(3), "conservation") == "lama-3p-conservation.yaml"


def test_a_replay_name_with_many_variants_stays_short_and_distinct():
    many = Config(3, tuple((f"ambiguity_number_{i}", f"a_rather_long_variant_{i}") for i in range(12)))
    other = Config(3, (*many.variants[:-1], ("ambiguity_number_11", "another_variant")))
    name = replay_name("lama", many, "conservation")
    assert len(name.encode()) <= 200 and name.startswith("lama-3p-12variants-")
    assert name.endswith("-conservation.yaml")
    assert name != replay_name("lama", other, "conservation")


# ----------------------------------------------------------------- runs
def test_ci_profile_is_deterministic():
    game = model.load(LAMA, players=3)
    first, second = Coverage(str(LAMA)), Coverage(str(LAMA))
    run_game(game, "ci", examples=4, steps=15, coverage=first)
    run_game(game, "ci", examples=4, steps=15, coverage=second)
    assert first.to_dict() == second.to_dict()
    assert first.steps > 0 and first.games >= 4


def test_a_run_reports_every_property_it_checks():
    game = model.load(LAMA, players=4)
    out = run_game(game, "ci", examples=3, steps=10)
    assert list(out) == list(CHECKS)
    assert all(o.status == "holds" for o in out.values())


# ----------------------------------------------------------------- swarm testing
SPECS = sorted((ROOT / "spec").glob("*.yaml"))


def _machine_with_choices(spec: Path, need: int = 2):
    """A dealt machine (nothing held back, no pressure yet) and a declaration that has at
    least `need` legal instances with a kind parameter, found by trying deals in turn."""
    game = model.load(spec, players=3)
    machine = build_machine(game)()
    machine.rare = [False] * len(game.ir.actions)
    machine.held = [False] * len(game.kind_names)
    for seed in range(50):
        machine._deal(random.Random(seed))
        for decl in sorted(machine.enabled):
            kinds = {a.args for a in machine.legal if a.index == decl}
            if len(kinds) >= need and game.ir.actions[decl].params:
                return game, machine, decl
    raise AssertionError(f"no deal of {spec.name} offers {need} instances of one action")


def test_zone_sizes_add_up_to_every_card_and_token():
    for spec in SPECS:
        game = model.load(spec, players=3)
        state = game.initial_state(1)
        total = sum(zone_size(state, z) for z in zone_slots(game))
        assert total == sum(k.copies for k in game.ir.kinds), spec.name


def test_held_back_kinds_are_taken_only_when_nothing_else_is_legal():
    game, machine, decl = _machine_with_choices(LAMA)
    every = [a for a in machine.legal if a.index == decl]
    assert machine._candidates(decl) == every
    first = every[0].args[0]
    machine.held[first] = True
    kept = machine._candidates(decl)
    assert kept and all(a.args[0] != first for a in kept)
    assert len(kept) == len([a for a in every if a.args[0] != first])
    machine.held = [True] * len(game.kind_names)
    assert machine._candidates(decl) == every  # nothing else is legal: all of them


def test_pressure_keeps_the_choices_that_drain_or_fill_the_zone():
    moved = 0
    for spec in SPECS:
        game, machine, decl = _machine_with_choices(spec)
        every = machine._candidates(decl)
        zones = zone_slots(game)
        for zone in range(len(zones)):
            after = {a: zone_size(machine.state.apply(a), zones[zone]) for a in every}
            for fill in (False, True):
                machine.pressure = (zone, fill)
                best = (max if fill else min)(after.values())
                assert machine._pressed(every) == [a for a in every if after[a] == best], \
                    (spec.name, zone, fill)
            moved += len(set(after.values())) > 1
    assert moved, "no zone told the choices apart in any spec: the test showed nothing"


# ----------------------------------------------------------------- replay files
def test_seed_only_replays_still_work(tmp_path):
    game = model.load(LAMA, players=2)
    state = game.initial_state(5)
    actions = []
    for _ in range(6):
        a = state.legal_actions()[0]
        actions.append(str(a))
        state = state.apply(a)
    path = tmp_path / "r.yaml"
    tr.write_replay(path, spec="lama", players=2, seed=5, variants={}, actions=actions)
    _, states = tr.replay(tr.read_replay(path))
    assert states[-1].to_dict() == state.to_dict()
    result = CliRunner().invoke(main, ["replay", str(path), "-q"])
    assert result.exit_code == 0, result.output
    assert len(re.findall(r"^\s+\d+\. p\d: ", result.output, re.M)) == len(actions)


def test_recorded_shuffles_replay_exactly(tmp_path):
    with fault("lama_draw_duplicates"):  # a broken back end (tests/test_mutants.py)
        outcome = run_config(MUTANTS / "lama_draw_duplicates.yaml", Config(2), "ci",
                             checks=["conservation"], examples=10)["conservation"]
        data = outcome.replay
        game, states = tr.replay(data)
    assert game.total_counts(states[-1]) != [k.copies for k in game.ir.kinds]
    assert data["shuffles"] and all(len(s) == len(data["shuffles"][0])
                                    for s in data["shuffles"][:1])


def test_a_replay_naming_an_unknown_kind_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.yaml"
    tr.write_replay(path, spec="lama", players=2, seed=0, variants={}, actions=[],
                    shuffles=[["joker"]])
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 2
    assert "joker" in result.output and "Traceback" not in result.output


# ----------------------------------------------------------------- coverage
def test_coverage_names_what_never_ran_and_accepts_the_specs_explanation(tmp_path):
    cov = Coverage(str(LAMA), players={2})
    cov.actions.update({"play": 3, "draw": 1, "quit": 1})
    found = {(g.what, g.name) for g in gaps(LAMA, cov)}
    assert ("action", "keep_chips") in found and ("round end", "hand_emptied") in found
    assert ("variant", "chip_exchange=never") in found
    # a clause inside a branch that never ran is not listed again
    table = clauses(model.load_ir(LAMA, players=2))
    listed = [g.name for g in gaps(LAMA, cov) if g.what == "clause"]
    assert len(listed) == len(set(listed))
    assert len(listed) < len(table)
    spec = tmp_path / "lama_explained.yaml"
    spec.write_text(_with_expect(LAMA.read_text(encoding="utf-8"), (
        "  - {property: coverage, result: fail, clause: keep_chips,\n"
        "     reason: only a player holding chips can empty the hand}\n")), encoding="utf-8")
    explained = {g.name: g.explained for g in gaps(spec, cov)}
    assert explained["keep_chips"] == "only a player holding chips can empty the hand"
    text = "\n".join(report_lines(spec, cov))
    assert "explained: only a player holding chips" in text


# ----------------------------------------------------------------- the plugin
def _with_expect(text: str, entries: str) -> str:
    """The spec text with more `expect` entries (a list at the end of the file, or new)."""
    if "\nexpect:\n" in text:
        return text.rstrip("\n") + "\n" + entries
    return text + "\nexpect:\n" + entries


def _spec_copy(dst: Path, source: Path, extra: str = "") -> Path:
    """A copy of a spec restricted to 2 players (fewer items), plus extra YAML."""
    text = source.read_text(encoding="utf-8")
    text = re.sub(r"players: \{min: 2, max: 6,", "players: {min: 2, max: 2,", text)
    dst.parent.mkdir(parents=True, exist_ok=True)
    if extra.startswith("\nexpect:\n"):
        text = _with_expect(text, extra[len("\nexpect:\n"):])
    else:
        text += extra
    dst.write_text(text, encoding="utf-8")
    return dst


def test_plugin_collects_named_items_and_reports_expected_failures(pytester):
    _spec_copy(pytester.path / "spec" / "broken.yaml", MUTANTS / "lama_round_never_ends.yaml",
               "\nexpect:\n  - {property: round_ends, result: fail,\n"
               "     reason: nobody ends the round once all have quit}\n")
    result = pytester.runpytest("-p", "properties.cli.pytest_plugin", *QUIET, "--rulespec-examples", "8",
                                "--rulespec-steps", "25", "-rxX", "spec",
                                "-k", "round_ends or conservation")
    out = result.stdout.str()
    assert "broken.yaml::round_ends[players=2] - expected by the spec: nobody ends" in out
    assert "broken.yaml::conservation[players=2,chip_exchange=never]" not in out  # passed
    result.assert_outcomes(passed=6, xfailed=6)  # one configuration per variant
    assert "rulespec coverage" in out


def test_an_expected_failure_that_holds_is_reported(pytester):
    _spec_copy(pytester.path / "spec" / "fine.yaml", LAMA,
               "\nexpect:\n  - {property: conservation, result: fail, reason: a made-up hole}\n")
    result = pytester.runpytest("-p", "properties.cli.pytest_plugin", *QUIET, "--rulespec-examples", "3",
                                "--rulespec-steps", "10", "spec", "-k", "conservation")
    configs = list(configurations(model.load_ir(pytester.path / "spec" / "fine.yaml", players=2),
                                  PROFILES["ci"]))
    result.assert_outcomes(failed=len(configs))
    assert "XPASS(strict)" in result.stdout.str()


def test_a_z3_item_left_undecided_fails_unless_the_spec_accepts_it(pytester):
    """A z3 item is decided as `rulespec check` decides its row: with one million units the
    two-player supply search stops at a bound, which fails the item as undecided (the
    conservation proof needs a tenth of that); a spec that accepts the row as undecided
    passes it."""
    z3_only = [a for a in QUIET if a != "--rulespec-no-z3"]
    args = ("-p", "properties.cli.pytest_plugin", *z3_only, "--rulespec-z3-budget", "1",
            "spec", "-k", "z3_supply or z3_conservation")
    _spec_copy(pytester.path / "spec" / "fine.yaml", LAMA)
    result = pytester.runpytest(*args)
    out = result.stdout.str()
    result.assert_outcomes(passed=1, failed=1)
    assert re.search(r"FAILED spec/fine\.yaml::z3_supply\[players=2\] - bounded \(undecided",
                     out), out
    _spec_copy(pytester.path / "spec" / "fine.yaml", LAMA,
               "\nexpect:\n  - {property: z3_supply, result: undecided, players: [2],\n"
               "     reason: the search is deeper than a million units}\n")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=2)


def test_plugin_variants_option_picks_the_combinations(pytester):
    spec = _spec_copy(pytester.path / "spec" / "fine.yaml", LAMA)
    g = model.load_ir(spec, players=2)
    for how in ("sample", "pairwise", "all"):
        result = pytester.runpytest("-p", "properties.cli.pytest_plugin", *QUIET, "--collect-only",
                                    "-q", "--rulespec-variants", how, "spec")
        configs = configurations(g, PROFILES["ci"], variants=how)
        assert f"{len(CHECKS) * len(configs)} tests collected" in result.stdout.str(), how
    chosen = {how: configurations(g, PROFILES["ci"], variants=how)
              for how in ("sample", "pairwise", "all")}
    # pairwise may need no more rows than sample (one per variant) when few ambiguities
    # have more than two readings, but it combines them: the configurations differ
    assert len(chosen["sample"]) <= len(chosen["pairwise"]) < len(chosen["all"])
    assert set(chosen["sample"]) != set(chosen["pairwise"])


def test_plugin_failure_shows_the_trace_and_writes_a_replay(pytester):
    _spec_copy(pytester.path / "spec" / "dup.yaml", MUTANTS / "lama_draw_duplicates.yaml")
    with fault("lama_draw_duplicates"):  # a broken back end (tests/test_mutants.py)
        result = pytester.runpytest("-p", "properties.cli.pytest_plugin", *QUIET,
                                    "--rulespec-examples", "10", "--rulespec-steps", "20",
                                    "spec/dup.yaml::conservation[players=2]")
        replays = list((pytester.path / "replays").glob("*.yaml"))
        cli = CliRunner().invoke(main, ["replay", str(replays[0]), "-q"]) if replays else None
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "conservation fails:" in out and "the deal:" in out and "1. p0:" in out
    assert [p.name for p in replays] == ["dup-2p-conservation.yaml"]
    assert cli is not None
    assert cli.exit_code == 1 and "reproduced: conservation" in cli.output


@pytest.mark.parametrize("bad", ["players: {min: 2, max: 2, cite: [lama.en#L2]}\nzzz: 1\n"])
def test_a_bad_spec_is_a_collection_error_without_traceback(pytester, bad):
    (pytester.path / "spec").mkdir()
    (pytester.path / "spec" / "bad.yaml").write_text("game: bad\n" + bad, encoding="utf-8")
    result = pytester.runpytest("-p", "properties.cli.pytest_plugin", *QUIET, "spec")
    out = result.stdout.str()
    assert "cannot collect bad.yaml" in out
    assert "Traceback" not in out


def test_an_expected_failure_is_found_and_the_other_properties_still_run(tmp_path):
    """A rule hole (drawing from an empty stock) fails rules_defined; the machine then
    deals anew whenever it runs into the hole and checks everything else."""
    text = LAMA.read_text(encoding="utf-8")
    hole = text.replace('''expr: "not empty(stock) or (reshuffle_discard and count(discard) > 1)"''',
                        '''expr: "True"''')
    assert hole != text
    spec = tmp_path / "lama_hole.yaml"
    spec.write_text(hole, encoding="utf-8")
    out = run_config(spec, Config(2), "ci", steps=80, expected_failures=["rules_defined"])
    assert out["rules_defined"].status == "fails"
    assert "empty" in out["rules_defined"].message or "pile" in out["rules_defined"].message
    assert {p: o.status for p, o in out.items() if p != "rules_defined"} == \
        dict.fromkeys([p for p in CHECKS if p != "rules_defined"], "holds")


@pytest.mark.parametrize("budget", ["0", "-5", "1.5", "many", "100001"])
def test_a_z3_budget_outside_its_range_is_a_usage_error(pytester, budget):
    result = pytester.runpytest("-p", "properties.cli.pytest_plugin", "-p", "no:cacheprovider",
                                "--rulespec-z3-budget", budget, "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--rulespec-z3-budget" in result.stderr.str() and "Traceback" not in result.stderr.str()
