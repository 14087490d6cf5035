"""The FAQ: every ambiguity appears with its ruling; the published FAQ (docs/faq) is what the
stored parting games give for today's specs; every stored parting game parts the readings
exactly at its end (replayed here with the test's own comparison); no entry rests on
random games finding nothing; and the store is reused only while the rules are the same."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from test_diff import assert_parts_at_the_end

import model
from model import SpecError, ir
from model.schema import SPEC_DIR
from properties.concrete import trace as tr
from properties.faq import partings
from properties.faq.entries import build
from properties.faq.markdown import render

GAMES = sorted(p.stem for p in SPEC_DIR.glob("*.yaml"))
PUBLISHED = SPEC_DIR.parent / "docs" / "faq"
STORE = PUBLISHED / "partings"
#: How docs/publishing.md publishes the FAQ, which each page says wrote it.
PUBLISH = "rulespec faq --partings docs/faq/partings --out docs/faq"


def _ambiguities(game: str) -> list[ir.Ambiguity]:
    return list(model.load_ir(game, players=model.loader.any_player_count(game)).ambiguities)


@pytest.mark.parametrize("game", GAMES)
def test_the_published_faq_is_what_the_stored_partings_give_today(game: str) -> None:
    """A spec edited without publishing the FAQ again fails here (the stored results are
    keyed by the rules), and so does a stored game that no longer parts the readings."""
    faq = build(game, store=STORE, stored_only=True, command=PUBLISH)
    assert render(faq) == (PUBLISHED / f"{game}.md").read_text(encoding="utf-8"), (
        f"docs/faq/{game}.md is not what `{PUBLISH}` writes")
    for amb in _ambiguities(game):
        assert f"id `{amb.id}`" in render(faq)
        assert f"**Ruling: `{amb.default}`.**" in render(faq)


def _stored(game: str) -> dict[str, dict]:
    return model.source.read_yaml(STORE / f"{game}.yaml").data["readings"]


@pytest.mark.parametrize("game", GAMES)
def test_every_stored_parting_game_parts_the_readings_at_its_last_step(game: str) -> None:
    readings = _stored(game)
    assert set(readings) == {f"{a.id}={v.name}" for a in _ambiguities(game)
                             for v in a.variants if v.name != a.default}
    for key, entry in readings.items():
        if entry["status"] != "parted":
            continue
        amb_id, reading = key.split("=")
        ruling = next(a.default for a in _ambiguities(game) if a.id == amb_id)
        assert_parts_at_the_end(STORE / entry["replay"], game, game, {amb_id: ruling},
                                {amb_id: reading})


@pytest.mark.parametrize("game", GAMES)
def test_no_entry_says_only_that_random_games_found_nothing(game: str) -> None:
    for key, entry in _stored(game).items():
        assert entry["status"] in ("parted", "proved_same", "bounded"), (key, entry)
        if entry["status"] == "bounded":
            assert "behave alike (z3)" in entry["shown"], (key, entry)


def test_a_reading_that_changes_only_the_winners_is_told_apart() -> None:
    """LAMA's chip_shortage=forfeit changes only what a short pool does to the scores, so
    the first difference is in the final scores, at the end of a game (the shortened game
    leaves the winner the same)."""
    entry = _stored("lama")["chip_shortage=forfeit"]
    assert entry["status"] == "parted"
    data = tr.read_replay(STORE / entry["replay"])
    old = tr.replay({**data, "variants": {"chip_shortage": "owe"}})[1]
    new = tr.replay({**data, "variants": {"chip_shortage": "forfeit"}})[1]
    assert old[-1].is_terminal and new[-1].is_terminal
    assert list(old[-1].scores) != list(new[-1].scores)
    assert [str(a) for a in old[-2].legal_actions()] == [str(a) for a in new[-2].legal_actions()]


def _copy_lama(tmp_path: Path, edit: tuple[str, str] | None = None) -> Path:
    """spec/lama.yaml copied with its rulebooks and the situations its examples name."""
    shutil.copytree(SPEC_DIR / "rulebooks", tmp_path / "spec" / "rulebooks")
    shutil.copytree(SPEC_DIR.parent / "tests" / "situations" / "lama",
                    tmp_path / "tests" / "situations" / "lama")
    text = (SPEC_DIR / "lama.yaml").read_text(encoding="utf-8")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1], 1)
    target = tmp_path / "spec" / "lama.yaml"
    target.write_text(text, encoding="utf-8")
    return target


def test_the_stored_results_are_keyed_by_the_rules_not_the_prose(tmp_path: Path) -> None:
    amb = next(a for a in _ambiguities("lama") if a.id == "next_round_starter")
    key = partings.digest(SPEC_DIR / "lama.yaml", amb, "first_seat", [4, 3])
    reworded = _copy_lama(tmp_path / "a", (amb.question, amb.question + " (reworded)"))
    assert partings.digest(reworded, amb, "first_seat", [4, 3]) == key
    assert partings.digest(SPEC_DIR / "lama.yaml", amb, "first_seat", [4, 5]) != key
    # a rule the clarifications' examples do not read (they start from situations), so the
    # FAQ gets as far as the stored partings
    changed = _copy_lama(tmp_path / "b", ("hand_size: {value: 6,", "hand_size: {value: 7,"))
    assert partings.digest(changed, amb, "first_seat", [4, 3]) != key
    with pytest.raises(SpecError, match="no stored parting game"):
        build(str(changed), store=STORE, stored_only=True)


def test_a_search_stores_its_games_and_the_next_build_replays_them(tmp_path: Path) -> None:
    how = partings.Search(z3_limit=0, games=30, examples=0, statistics_games=0)
    said: list[str] = []
    first = build("lama", players=3, search=how, store=tmp_path, say=said.append)
    assert any("random games" in m for m in said)
    again: list[str] = []
    second = build("lama", players=3, search=how, store=tmp_path, say=again.append)
    assert not any("random games" in m for m in again)
    assert render(first) == render(second)
    for q in first.questions:
        for p in q.partings:
            if p.status == "parted":
                assert (tmp_path / str(p.replay)).exists()
            else:  # no z3 here, so what was shown is a number of games
                assert p.status == "none_in_games" and "random games" in p.shown
    # a stored game that no longer parts the readings is searched again, not shown
    (name,) = [p.replay for q in first.questions for p in q.partings
               if q.id == "next_round_starter" and p.reading == "first_seat"]
    data = tr.read_replay(tmp_path / str(name))
    (tmp_path / str(name)).unlink()
    tr.write_replay(tmp_path / str(name), spec=data["spec"], players=data["players"],
                    seed=data["seed"], variants=data["variants"], actions=data["actions"][:-1])
    redo: list[str] = []
    build("lama", players=3, search=how, store=tmp_path, say=redo.append)
    assert any(m.startswith("next_round_starter=first_seat") and "random games" in m
               for m in redo)


def test_a_bound_reached_with_another_search_is_searched_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored bound stands only for the search and second try it had: one from another
    (an older store, or a search with seconds where budgets are now z3 units) is searched
    again, and one with today's is kept. A parting game or a proof stands whatever search
    found it."""
    store = tmp_path / "store"
    shutil.copytree(STORE, store)
    key = "show_llama_legality=any_llama"
    searched: list[str] = []

    def search(path, amb, reading, counts, how, say):
        # only whether the search runs is asked here, not what it finds
        searched.append(f"{amb.id}={reading}")
        return None, []

    monkeypatch.setattr(partings, "search", search)
    today = partings.Search()
    for first, second_try, again in (
            (today.search(), [120.0, 2000, 200], True),
            ([20.0, 200, 100], today.second_try(), True),
            (today.search(), today.second_try(), False)):
        data = model.source.read_yaml(store / "kadabra.yaml").data
        data["readings"][key].update(status="bounded", how="z3", search=first,
                                     second_try=second_try,
                                     shown="from every deal the first 4 action(s) behave alike "
                                           "(z3)")
        (store / "kadabra.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
        searched.clear()
        build("kadabra", store=store)
        assert searched == ([key] if again else [])


def test_a_proof_that_needs_the_invariants_says_it_holds_where_games_can_go() -> None:
    """"From every well-formed state" would be false where only the invariants keep two
    readings alike: the entry says which counts needed them."""
    from properties.compare.parting import Parting as Found
    from properties.symbolic.queries.parting import WITH_INVARIANTS

    tried = [Found("proved_same", 2, "z3", f"proved by z3: from every state {WITH_INVARIANTS}"),
             Found("proved_same", 3, "z3", "proved by z3: from every well-formed state"),
             Found("proved_same", 4, "rules", "the same rules of play")]
    shown = partings.not_parted("r", tried)
    assert shown.status == "proved_same" and shown.how == "z3"
    assert "with 2 players z3 proves that from every state a game can reach" in shown.shown
    assert "with 3 players z3 proves that from every well-formed state" in shown.shown
    assert "with 4 players the readings have the same rules" in shown.shown


def test_a_hostile_store_loses_nothing_and_runs_nothing(tmp_path: Path) -> None:
    """A store is a file anybody may have edited: a replay name that leaves the folder is
    never read or deleted, and statistics that do not read back are searched again."""
    store = tmp_path / "store"
    shutil.copytree(STORE, store)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    data = model.source.read_yaml(store / "lama.yaml").data
    first, second = list(data["readings"])[:2]
    data["readings"][first]["replay"] = "../victim.txt"
    data["readings"]["gone=reading"] = {"digest": "x", "status": "parted",
                                        "replay": "../victim.txt"}
    data["readings"][second]["statistics"] = {"players": "x", "games": [1], "changes": 5}
    (store / "lama.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    faq = build("lama", store=store, search=partings.Search(z3_limit=0, games=3, examples=0,
                                                           statistics_games=0, longer=1))
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert all(p.replay is None or "/" not in p.replay for q in faq.questions
               for p in q.partings)


def test_an_edited_store_entry_deletes_and_reads_no_file_of_another_game(tmp_path: Path) -> None:
    """Games share a store folder: an entry of one, edited to name another game's store or
    replay file (or a file of its own reading's name that it did not write, or a link out
    of the folder), neither reads nor deletes it; only the entry is searched again."""
    store = tmp_path / "store"
    shutil.copytree(STORE, store)
    outside = tmp_path / "outside.yaml"
    outside.write_bytes((STORE / "lama-chip_exchange-never.yaml").read_bytes())
    (store / "lama-gone-link.yaml").symlink_to(outside)
    (store / "lama-gone-notes.yaml").write_text("# my notes, not a replay\n", encoding="utf-8")
    kadabra_replay = sorted(STORE.glob("kadabra-*.yaml"))[0].name
    (store / "lama-gone-foreign.yaml").write_bytes((STORE / kadabra_replay).read_bytes())
    before = {p.name: p.read_bytes() for p in store.iterdir() if not p.is_symlink()}
    data = model.source.read_yaml(store / "lama.yaml").data
    readings = data["readings"]
    used = next(k for k, e in readings.items() if e.get("replay"))
    planted = {"gone=a": "kadabra.yaml", "gone=b": kadabra_replay, "gone=c": "slambo.yaml",
               "gone=d": readings[used]["replay"], "gone=link": "lama-gone-link.yaml",
               "gone=notes": "lama-gone-notes.yaml", "gone=foreign": "lama-gone-foreign.yaml",
               "gone=e": "lama.yaml", "gone=f": "."}
    for key, name in planted.items():
        readings[key] = {"digest": "x", "status": "parted", "replay": name}
    # a reading still in use that names another game's file is searched again, not read
    other = next(k for k, e in readings.items() if e.get("replay") and k != used)
    readings[other]["replay"] = kadabra_replay
    (store / "lama.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    faq = build("lama", store=store, search=partings.Search(z3_limit=0, games=3, examples=0,
                                                           statistics_games=0, longer=1))
    after = {p.name: p.read_bytes() for p in store.iterdir() if not p.is_symlink()}
    for name, content in before.items():
        if not name.startswith("lama"):
            assert after.get(name) == content, f"{name} of another game was changed or deleted"
    for name in ("lama-gone-notes.yaml", "lama-gone-foreign.yaml", readings[used]["replay"]):
        assert name in after, f"{name} was deleted"
    assert (store / "lama-gone-link.yaml").is_symlink() and outside.exists()
    shown = {f"{q.id}={p.reading}": p for q in faq.questions for p in q.partings}
    assert shown[other].replay != kadabra_replay
    kept = model.source.read_yaml(store / "lama.yaml").data["readings"]
    assert not set(planted) & set(kept)
    assert all(e.get("replay") in (None, f"lama-{k.replace('=', '-')}.yaml")
               for k, e in kept.items())


def test_a_reading_no_game_parts_any_more_loses_its_replay_file(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    for f in STORE.glob("lama*.yaml"):
        shutil.copy(f, store_dir / f.name)
    store = partings.Store(store_dir, "lama", SPEC_DIR / "lama.yaml")
    amb = next(a for a in _ambiguities("lama") if a.id == "empty_stock")
    name = store.entries["empty_stock=reshuffle"]["replay"]
    other = next(k for k, e in store.entries.items()
                 if e.get("replay") and k != "empty_stock=reshuffle")
    assert (store_dir / name).exists()
    for key in store.entries:  # every other reading keeps its result
        store.used.add(key)
    store.put(amb, "reshuffle", {"digest": "x", "status": "none_in_games", "how": "none",
                                 "shown": "none in 0 games"}, None)
    store.save()
    assert not (store_dir / name).exists()
    assert (store_dir / store.entries[other]["replay"]).exists()
