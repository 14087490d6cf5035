"""`rulespec check`'s result cache, parallel jobs, summary and JSON.

The cache keeps each result under what decides it (properties/checks/cache.py): these
tests change one thing at a time and see which rows are computed again. The runs are
small (two players, a few games and examples) but real: nothing here is faked except
the z3 queries in the one test about z3 rows, whose results the cache only carries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from properties.checks import cache as C
from properties.checks import work
from properties.cli import main
from properties.concrete.invariants import PROPERTIES

SPEC = Path(__file__).parent.parent / "spec"
SMALL = ("-p", "2", "--games", "3", "--examples", "2", "--steps", "10", "--no-z3", "--jobs", "1")
#: A clause of LAMA's scoring taken only with next_round_starter=left_of_ender.
LEFT_OF_ENDER = "then: [\"starter = (round_ender + direction) % player_count\"]"


def check(*args: str, cache: Path | None = None, json_to: Path | None = None
          ) -> tuple[int, str, str, dict | None]:
    env = {"RULESPEC_CACHE": str(cache)} if cache is not None else {}
    extra = ["--json", str(json_to)] if json_to is not None else []
    r = CliRunner().invoke(main, ["check", *args, *extra], env=env)
    assert "Traceback" not in r.stderr, r.stderr
    data = json.loads(json_to.read_text()) if json_to is not None and json_to.exists() else None
    return r.exit_code, r.stdout, r.stderr, data


def copy(tmp_path: Path, game: str, old: str = "", new: str = "", head: str = "") -> Path:
    text = (SPEC / f"{game}.yaml").read_text(encoding="utf-8")
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    folder = tmp_path / "specs"
    folder.mkdir(exist_ok=True)
    path = folder / f"{game}.yaml"
    path.write_text(head + text, encoding="utf-8")
    return path


def decided(code: int, data: dict | None) -> bool:
    """Every row decided as the spec declares, but for the coverage gaps a small run leaves:
    exit 0 with no undecided row, or exit 3 with coverage the only undecided row."""
    assert data is not None
    undecided = {r["property"] for r in data["rows"]
                 if r["verdict"] == "undecided" and not r["ok"]}  # (the spec may accept some)
    return (code, undecided) in ((0, set()), (3, {"coverage"})) and data["exit_code"] == code


def computed(data: dict) -> set[tuple[str, str]]:
    """(game, variants) of the rows computed in this run (not from the cache)."""
    return {(r["game"], ",".join(f"{k}={v}" for k, v in r["variants"].items()))
            for r in data["rows"] if not r["cached"] and r["property"] != "coverage"}


def recomputed_coverage(data: dict) -> set[str]:
    """The games whose coverage was found afresh (some configuration ran)."""
    return {r["game"] for r in data["rows"] if r["property"] == "coverage" and not r["cached"]}


def without_times(data: dict) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("seconds", "cached")} for r in data["rows"]]


# ------------------------------------------------------------------ fingerprints
def test_positions_and_citations_do_not_change_how_a_game_plays(tmp_path: Path) -> None:
    plain = model.load_ir(copy(tmp_path, "lama"), players=3)
    moved = model.load_ir(copy(tmp_path, "lama", head="# a comment\n# moves every clause\n"),
                          players=3)
    recited = model.load_ir(copy(tmp_path, "lama", "cite: lama.nl#L23\n",
                                 "cite: [lama.nl#L23, lama.en#L13]\n"), players=3)
    a, b, c = C.fingerprint(plain), C.fingerprint(moved), C.fingerprint(recited)
    assert a.play == b.play == c.play
    assert len({a.sources, b.sources, c.sources}) == 3
    # coverage names the same statement by the same place in both
    assert sorted(a.paths.values()) == sorted(b.paths.values())
    assert a.paths != b.paths


def test_a_change_counts_only_where_the_folded_game_takes_it(tmp_path: Path) -> None:
    changed = copy(tmp_path, "lama", LEFT_OF_ENDER,
                   "then: [\"starter = (last_actor + 2 * direction) % player_count\"]")
    for variant, differs in (("ender", False), ("first_seat", False), ("left_of_ender", True)):
        v = {"next_round_starter": variant}
        before = C.fingerprint(model.load_ir(SPEC / "lama.yaml", players=3, variants=v))
        after = C.fingerprint(model.load_ir(changed, players=3, variants=v))
        assert (before.play != after.play) is differs, variant


def test_every_spec_has_a_fingerprint() -> None:
    for path in sorted(SPEC.glob("*.yaml")):
        g = model.load_ir(path, players=3)
        fp = C.fingerprint(g)
        assert re.fullmatch(r"[0-9a-f]{64}", fp.play)
        assert fp.paths  # every spec has statements


def test_the_tool_version_follows_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    (tmp_path / "pkg").mkdir()
    code = tmp_path / "pkg" / "a.py"
    code.write_text("x = 1\n")
    monkeypatch.setattr(C, "_ROOT", tmp_path)
    monkeypatch.setitem(C.CODE, "concrete", ("pkg",))
    monkeypatch.setattr(C, "_VERSIONS", {})
    first = C.tool_version("concrete")
    code.write_text("x = 2\n")
    monkeypatch.setattr(C, "_VERSIONS", {})
    assert C.tool_version("concrete") != first


def test_a_result_that_names_a_line_is_kept_with_the_positions(tmp_path: Path) -> None:
    cache = C.Cache(tmp_path, warn=pytest.fail)
    assert C.names_a_place({"message": "the loop at spec line 402 ran more than its max"})
    assert not C.names_a_place({"message": "10 examples of up to 40 actions",
                                "coverage": {"statements": ["12:5"]}})
    cache.put("k1", {"n": 1}, sources="here")
    assert cache.get("k1", lambda r: True, sources="here") == {"n": 1}
    assert cache.get("k1", lambda r: True, sources="moved") is None
    cache.put("k2", {"n": 2}, sources=None)
    assert cache.get("k2", lambda r: True, sources="moved") == {"n": 2}


# ------------------------------------------------------------------ the command
def test_a_one_clause_change_reruns_only_what_it_affects(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    lama, slambo = copy(tmp_path, "lama"), copy(tmp_path, "slambo")
    code, _, err, cold = check(str(lama), str(slambo), *SMALL, cache=cache,
                               json_to=tmp_path / "cold.json")
    assert decided(code, cold), err
    assert not any(r["cached"] for r in cold["rows"])
    code, _, err, warm = check(str(lama), str(slambo), *SMALL, cache=cache,
                               json_to=tmp_path / "warm.json")
    assert decided(code, warm)
    assert computed(warm) == set(), "nothing changed: every row from the cache"
    assert recomputed_coverage(warm) == set() and warm["cached"] == len(warm["rows"])
    assert "nothing to run" in err
    assert without_times(warm) == without_times(cold)

    copy(tmp_path, "lama", LEFT_OF_ENDER,
         "then: [\"starter = (last_actor + 2 * direction) % player_count\"]")
    code, _, _, after = check(str(lama), str(slambo), *SMALL, cache=cache,
                              json_to=tmp_path / "after.json")
    assert decided(code, after)
    # the spec_valid row of the changed spec, and the one configuration that takes the clause
    assert computed(after) == {("lama", ""), ("lama", "next_round_starter=left_of_ender")}
    assert recomputed_coverage(after) == {"lama"}
    assert [r for r in after["rows"] if not r["cached"] and r["variants"]] == [
        r for r in after["rows"] if r["variants"] == {"next_round_starter": "left_of_ender"}]

    copy(tmp_path, "lama", LEFT_OF_ENDER,
         "then: [\"starter = (last_actor + 2 * direction) % player_count\"]",
         head="# a comment moves every clause down a line\n")
    code, _, _, moved = check(str(lama), str(slambo), *SMALL, cache=cache,
                              json_to=tmp_path / "moved.json")
    assert decided(code, moved)
    assert computed(moved) == {("lama", "")}  # only spec_valid, which reads the text
    # coverage from the cache names clauses where they are now
    def down_a_line(gaps: list) -> list:
        return json.loads(re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + 1}",
                                 json.dumps(gaps)))

    assert moved["coverage"] == [{"game": c["game"], "gaps": down_a_line(c["gaps"])
                                  if c["game"] == "lama" else c["gaps"]}
                                 for c in after["coverage"]]
    assert any(g["what"] == "clause" for c in after["coverage"] for g in c["gaps"])


def test_a_new_tool_version_reruns_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    cache = tmp_path / "cache"
    lama = copy(tmp_path, "lama")
    check(str(lama), *SMALL, cache=cache)
    monkeypatch.setattr(C, "_VERSIONS", {"concrete": "rulespec=next", "z3": "rulespec=next"})
    code, _, _, data = check(str(lama), *SMALL, cache=cache, json_to=tmp_path / "r.json")
    assert decided(code, data)
    assert not any(r["cached"] for r in data["rows"])


def test_a_corrupt_or_foreign_cache_file_is_ignored_with_a_warning(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    lama = copy(tmp_path, "lama")
    _, _, _, first = check(str(lama), *SMALL, cache=cache, json_to=tmp_path / "a.json")
    entries = sorted(cache.glob("*/*.json"))
    assert len(entries) == 1 + _configurations("lama")  # spec_valid and each configuration
    configurations = [p for p in entries if "outcomes" in json.loads(p.read_text())["result"]]
    configurations[0].write_text("{not json")
    foreign = json.loads(configurations[1].read_text())
    foreign["result"]["outcomes"] = {"conservation": {"status": 3}}
    configurations[1].write_text(json.dumps(foreign))
    configurations[2].write_bytes(b"\xff\xfe\x00garbage")
    code, _, err, data = check(str(lama), *SMALL, cache=cache, json_to=tmp_path / "b.json")
    assert decided(code, data)
    # the two that are not entries, and the edited one, which no longer verifies
    assert len(re.findall(r"^warning: ignoring the cache file .*\.json: ", err, re.M)) == 2, err
    assert len(re.findall(r"^warning: ignoring cache entries that this user did not write ",
                          err, re.M)) == 1, err
    assert without_times(data) == without_times(first)
    # the three were computed again and written back whole
    _, _, err, data = check(str(lama), *SMALL, cache=cache, json_to=tmp_path / "c.json")
    assert "warning" not in err
    assert data is not None and computed(data) == set()


def test_no_cache_computes_everything_and_keeps_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    lama = copy(tmp_path, "lama")
    check(str(lama), *SMALL, cache=cache)
    kept = sorted(p.read_bytes() for p in cache.rglob("*.json"))
    code, _, _, data = check(str(lama), *SMALL, "--no-cache", cache=cache,
                             json_to=tmp_path / "r.json")
    assert decided(code, data)
    assert not any(r["cached"] for r in data["rows"])
    assert sorted(p.read_bytes() for p in cache.rglob("*.json")) == kept


def test_the_results_do_not_depend_on_the_number_of_jobs(tmp_path: Path) -> None:
    specs = [str(copy(tmp_path, "lama")), str(copy(tmp_path, "kadabra"))]
    args = ("-p", "2", "--games", "5", "--examples", "3", "--steps", "15", "--no-z3",
            "--no-cache")
    _, out1, _, one = check(*specs, *args, "--jobs", "1", json_to=tmp_path / "1.json")
    _, out2, _, two = check(*specs, *args, "--jobs", "2", json_to=tmp_path / "2.json")
    assert one is not None and two is not None
    assert without_times(one) == without_times(two)
    assert one["coverage"] == two["coverage"]
    untimed = [re.sub(r" in [\d.]+ s", "", out) for out in (out1, out2)]  # the time taken
    assert untimed[0] == untimed[1]


def test_z3_rows_come_from_the_cache_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    calls: list[tuple[int, tuple[str, ...]]] = []

    def fake_z3(spec, players, variants, queries, limit, seconds):
        calls.append((players, tuple(queries)))
        return [{"query": q, "status": "bounded" if q == "supply" else "proved",
                 "seconds": 0.5, "replay": None,
                 "detail": "no shortfall in any game of up to 3 rounds" if q == "supply"
                 else f"{q} at {players}", "bound": 3 if q == "supply" else None}
                for q in queries]

    monkeypatch.setattr(work, "run_z3", fake_z3)
    cache = tmp_path / "cache"
    lama = copy(tmp_path, "lama")
    args = ("-p", "2", "-p", "3", "--profile", "none", "--games", "2", "--jobs", "1")
    code, out, _, data = check(str(lama), *args, cache=cache, json_to=tmp_path / "a.json")
    # The spec expects z3 to find LAMA's 2-player game cycle: a proof is news (exit 1).
    assert code == 1 and data is not None
    cycles = [(r["players"], r["status"]) for r in data["rows"]
              if r["property"] == "z3_game_cycle"]
    assert cycles[0] == (2, "UNEXPECTEDLY HOLDS")
    assert sorted(n for n, _ in calls) == [2, 3]
    assert all(len(q) == 7 for _, q in calls)
    assert re.search(r"^lama\s+conservation\s+holds 2-3p \(z3 proved 2-3p\)$", out, re.M), out
    # LAMA declares its 3-player supply to fail (the fake z3 replays no witness)
    assert re.search(r"^lama\s+z3_supply\s+failure not shown 3p, proved up to a bound 2p$", out,
                     re.M), out
    calls.clear()
    code, _, _, data = check(str(lama), *args, cache=cache, json_to=tmp_path / "b.json")
    assert code == 1 and data is not None and calls == []
    assert [(r["players"], r["status"]) for r in data["rows"]
            if r["property"] == "z3_game_cycle"] == cycles
    z3 = [r for r in data["rows"] if r["property"].startswith("z3_")]
    assert len(z3) == 14 and all(r["cached"] for r in z3)
    assert {r["bound"] for r in z3 if r["property"] == "z3_supply"} == {3}


def test_a_z3_row_that_replays_a_recorded_witness_follows_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """game_cycle replays the witness LAMA records for two players first: a change to that
    file computes that player count's z3 rows again (all of them, in order, as they always
    run: a query's work depends on what the queries before it proved), and no other."""
    calls: list[tuple[int, tuple[str, ...]]] = []

    def fake_z3(spec, players, variants, queries, limit, seconds):
        calls.append((players, tuple(queries)))
        return [{"query": q, "status": "proved", "seconds": 0.5, "replay": None,
                 "detail": q, "bound": None} for q in queries]

    monkeypatch.setattr(work, "run_z3", fake_z3)
    lama = copy(tmp_path, "lama")
    witness = lama.parent / "witnesses/lama-2p-z3_game_cycle.yaml"
    witness.parent.mkdir(parents=True)
    text = (SPEC / "witnesses/lama-2p-z3_game_cycle.yaml").read_text()
    witness.write_text(text)
    args = ("-p", "2", "--profile", "none", "--games", "2", "--jobs", "1")
    check(str(lama), *args, cache=tmp_path / "cache")
    assert len(calls) == 1 and len(calls[0][1]) == 7
    check(str(lama), *args, cache=tmp_path / "cache")
    assert len(calls) == 1
    witness.write_text(text.replace("actions: [", "actions: [quit, "))
    check(str(lama), *args, cache=tmp_path / "cache")
    assert calls[1:] == [calls[0]]


# ------------------------------------------------------------------ what it prints
def test_summary_and_json_shape(tmp_path: Path) -> None:
    lama = copy(tmp_path, "lama")
    # 50 games: seed 43 finds both holes LAMA declares at 3 players
    args = ("-p", "3", "--games", "50", "--examples", "2", "--steps", "10", "--no-z3")
    code, out, _, data = check(str(lama), *args, "--no-cache", json_to=tmp_path / "r.json")
    assert decided(code, data)
    assert set(data) == {"format", "exit_code", "seconds", "passed", "failed", "cached", "specs",
                         "summary", "rows", "coverage", "verdicts", "accepted_undecided"}
    assert data["format"] == 2
    assert data["specs"] == [{"game": "lama", "spec": str(lama)}]
    keys = {"game", "players", "variants", "property", "status", "verdict", "ok",
            "accepted_undecided", "found_by", "start", "z3_units", "bound", "detail",
            "seconds", "cached", "replay"}
    assert all(set(r) == keys for r in data["rows"])
    # spec_valid, the properties x each configuration, coverage
    n = _configurations("lama", players=3)
    assert len(data["rows"]) == 1 + len(PROPERTIES) * n + 1
    assert data["passed"] + data["failed"] == len(data["rows"])
    assert sum(data["verdicts"].values()) == len(data["rows"])
    assert data["failed"] == data["verdicts"]["undecided"] == (data["exit_code"] == 3)
    # the declared holes were found by the seeded playouts or by Hypothesis, and say so
    shown = [r for r in data["rows"] if r["verdict"] == "shown"]
    assert shown and all(r["found_by"] in ("playout", "hypothesis") for r in shown)
    # one summary line per property (and spec_valid, coverage), the same as printed
    lines = out.splitlines()
    assert lines[:len(data["summary"])] == data["summary"]
    assert len(data["summary"]) == len(PROPERTIES) + 2
    assert re.search(rf"^lama\s+conservation\s+holds 3p \({n} configurations\)$", out, re.M)
    # the rows expected to fail are named, with their configuration and the spec's reason
    expected = [r for r in data["rows"] if r["status"] == "expected failure"]
    assert {r["property"] for r in expected} == {"round_ends", "game_ends"}
    for r in expected:
        (v,) = r["variants"].items()
        assert f"{r['property']} expected failure at 3p {v[0]}={v[1]}: " in out
        assert re.search(rf"^lama\s+{r['property']}\s+expected failure 3p {v[0]}={v[1]}, "
                         rf"holds 3p \({n - 1} configurations\)$", out, re.M)
    # --verbose: a table row for every row
    _, verbose, _, _ = check(str(lama), *args, "--verbose")
    assert len([ln for ln in verbose.splitlines() if ln.startswith("lama ")]) == len(data["rows"])


def test_a_failure_is_detailed_with_a_replay_and_exit_1(tmp_path: Path) -> None:
    broken = copy(tmp_path, "lama", "      - quit[active] = True\n", "")
    replays = tmp_path / "replays"
    for _ in range(2):  # computed, then from the cache: the same report and replay file
        code, out, err, data = check(str(broken), *SMALL, "--replays", str(replays),
                                     cache=tmp_path / "cache", json_to=tmp_path / "r.json")
        assert code == 1 and data is not None and data["exit_code"] == 1
        failing = [r for r in data["rows"] if r["status"] == "FAILS"]
        assert failing and all(r["replay"] for r in failing)
        assert re.search(r"^lama\s+round_ends\s+FAILS 2p", out, re.M), out
        assert "replay: " in err
        for r in failing:
            assert Path(r["replay"]).exists()


def test_a_variant_that_does_not_compile_is_a_clear_error(tmp_path: Path) -> None:
    # Only the chip_exchange=never reading is broken: the spec loads with its defaults,
    # and the spec_valid job (in a worker when --jobs > 1) meets the error.
    broken = copy(tmp_path, "lama", "set: {consolidate: false}", "set: {consolidate: 5}")
    for jobs in ("1", "2"):
        code, _, err, _ = check(str(broken), "-p", "2", "--games", "1", "--profile", "none",
                                "--no-z3", "--no-cache", "--jobs", jobs)
        assert code == 2, err
        errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
        assert len(errors) == 1 and str(broken) in errors[0], err


def _configurations(spec: str, players: int = 2) -> int:
    """Configurations the CI profile runs at one player count (the spec's variants change
    with its ambiguities, so the count is asked for rather than remembered)."""
    from properties.concrete.stateful import PROFILES, configurations

    return len(configurations(model.load_ir(spec, players=players), PROFILES["ci"], [players]))


# ------------------------------------------------------------------ a cache nobody here wrote
COIN = Path(__file__).parent / "specs"
#: Coin with an invariant its first `stop` breaks: the invariants row fails.
NEVER_STOPPED = ("\ninvariants:\n"
                 "  - {name: never_stopped, when: \"not stopped\", cite: coin.en#L1}\n")
TINY = ("-p", "2", "--games", "3", "--examples", "2", "--steps", "10", "--no-z3", "--jobs", "1")


def failing_coin(folder: Path) -> Path:
    """A copy of tests/specs/coin.yaml (with its rulebook) whose invariants row fails."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rulebooks").mkdir(exist_ok=True)
    (folder / "rulebooks" / "coin.en.txt").write_bytes(
        (COIN / "rulebooks" / "coin.en.txt").read_bytes())
    path = folder / "coin.yaml"
    path.write_text((COIN / "coin.yaml").read_text(encoding="utf-8") + NEVER_STOPPED,
                    encoding="utf-8")
    return path


def passing(entry: dict) -> dict:
    """An entry's result edited to say that every property holds."""
    result = json.loads(json.dumps(entry["result"]))
    if "outcomes" in result:
        result["findings"] = {}
        for outcome in result["outcomes"].values():
            outcome.update(status="holds", message="2 examples of up to 10 actions",
                           actions=None, replay=None)
    return result


def test_a_planted_cache_cannot_make_a_failing_spec_pass(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A `.rulespec-cache/` committed beside a spec (or copied, or edited) verifies nothing:
    entries written with the real keys and another user's secret, with this user's secret
    for another folder, or edited after they were written, are all computed again, so
    check exits 1 as --no-cache does."""
    spec = failing_coin(tmp_path / "repo")
    code, _, err, _ = check(str(spec), *TINY, "--no-cache")
    assert code == 1, err
    mine, theirs = tmp_path / "my-secret", tmp_path / "their-secret"
    monkeypatch.setenv("RULESPEC_CACHE_SECRET_FILE", str(mine))
    # What this user computes, in another folder: each entry, edited to pass.
    elsewhere = tmp_path / "elsewhere"
    code, _, _, _ = check(str(spec), *TINY, cache=elsewhere)
    assert code == 1
    entries = {p.relative_to(elsewhere): json.loads(p.read_text())
               for p in elsewhere.glob("*/*.json")}
    assert len(entries) == 2  # spec_valid and the one configuration

    def plant(folder: Path, secret: Path | None, edit_after: bool) -> None:
        """Entries under the real keys, written by the cache itself with `secret` (None:
        this user's), then (or else before) edited to say that every property holds."""
        if secret is not None:
            monkeypatch.setenv("RULESPEC_CACHE_SECRET_FILE", str(secret))
        writer = C.Cache(folder, warn=lambda _m: None)
        for entry in entries.values():
            writer.put(entry["key"], entry["result"] if edit_after else passing(entry),
                       entry["sources"], entry["about"])
        monkeypatch.setenv("RULESPEC_CACHE_SECRET_FILE", str(mine))
        if edit_after:
            for p in folder.glob("*/*.json"):
                entry = json.loads(p.read_text())
                p.write_text(json.dumps({**entry, "about": entry["about"] + ", edited",
                                         "result": passing(entry)}))

    cases = {"another user's secret": (theirs, False), "edited": (None, True)}
    for name, (secret, edit_after) in cases.items():
        planted = tmp_path / "repo" / name.replace(" ", "-").replace("'", "") / ".rulespec-cache"
        plant(planted, secret, edit_after)
        code, _, err, data = check(str(spec), *TINY, cache=planted,
                                   json_to=tmp_path / "planted.json")
        assert code == 1, f"{name}: a planted cache made a failing spec pass\n{err}"
        assert data is not None and not any(r["cached"] for r in data["rows"]), name
        assert len(re.findall(r"^warning: .*cache", err, re.M)) == 1, err
    # this user's own entries, copied to another folder, are computed again there too
    copied = tmp_path / "copied"
    plant(elsewhere, None, False)
    import shutil

    shutil.copytree(elsewhere, copied)
    code, _, err, data = check(str(spec), *TINY, cache=copied, json_to=tmp_path / "copied.json")
    assert code == 1 and data is not None and not any(r["cached"] for r in data["rows"]), err
    # while in their own folder they verify (the run exits 0: they say every row holds)
    code, _, err, data = check(str(spec), *TINY, cache=elsewhere, json_to=tmp_path / "own.json")
    assert code == 0 and data is not None and all(r["cached"] for r in data["rows"]), err


def test_the_secret_lives_in_the_users_state_directory(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Made on first use, 0600, outside the cache folder; one that others may read (or that
    is not a secret) is refused: nothing earlier is trusted then, with one warning."""
    monkeypatch.delenv("RULESPEC_CACHE_SECRET_FILE")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    where = tmp_path / "state" / "rulespec" / "cache-secret"
    assert C.secret_file() == where
    cache = C.Cache(tmp_path / "cache", warn=pytest.fail)
    cache.put("k1", {"n": 1})
    assert where.stat().st_mode & 0o777 == 0o600
    assert not any(p.name == "cache-secret" for p in (tmp_path / "cache").rglob("*"))
    again = C.Cache(tmp_path / "cache", warn=pytest.fail)
    assert again.get("k1", lambda r: True) == {"n": 1}
    where.chmod(0o644)
    said: list[str] = []
    shared = C.Cache(tmp_path / "cache", warn=said.append)
    assert shared.get("k1", lambda r: True) is None
    assert shared.get("k1", lambda r: True) is None
    assert len(said) == 2 and "chmod 600" in said[0] and "did not write" in said[1], said
    where.chmod(0o600)
    where.write_text("not a secret\n")
    said.clear()
    assert C.Cache(tmp_path / "cache", warn=said.append).get("k1", lambda r: True) is None
    assert "does not hold a secret" in said[0]
