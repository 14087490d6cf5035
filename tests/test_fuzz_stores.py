"""Fuzzing what the tool reads back or writes where it is told: the result cache of
`rulespec check`, the FAQ's store of parting games, and the paths of output files.

The cache and the store are untrusted input (committed by anyone, copied, edited), and an
output path is whatever a user typed. Hypothesis plants random JSON, bytes and mutated real
entries (edited, re-signed with another secret, under another key) in a cache folder; edits
a real FAQ store's entries and replay files; and draws output paths (missing folders, files
where folders should be, NUL characters, `..`, very long names). Every run must end as the
properties alone decide (the cache: the exit code and rows of `--no-cache`; the store:
publishing uses an entry or searches again), never with a traceback, and nothing may be
written or deleted outside the folders named. An output path is either written (the file
inside the location given) or refused with one error line and exit 2.

The games are tests/specs/coin.yaml (with an invariant its first `stop` breaks, and an
ambiguity for the FAQ): each example runs the real command, a check in about two seconds,
a publication or an output in a tenth. Profile as in tests/test_fuzz_spec.py:
`FUZZ_EXAMPLES` planted caches (8) and three times as many stores and paths, derandomized
(the same every run, about 30 s in all); `RULESPEC_FUZZ_EXAMPLES=100` soaks with random
seeds.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from properties.checks import cache as C
from properties.cli import main
from properties.faq import partings

ROOT = Path(__file__).resolve().parent.parent
COIN = ROOT / "tests" / "specs"
FUZZ_EXAMPLES = int(os.environ.get("RULESPEC_FUZZ_EXAMPLES", "8"))
SOAK = "RULESPEC_FUZZ_EXAMPLES" in os.environ

#: Coin's invariants row fails (its first `stop` breaks this one).
NEVER_STOPPED = ("\ninvariants:\n"
                 "  - {name: never_stopped, when: \"not stopped\", cite: coin.en#L1}\n")
#: Coin with one gap, who takes the first turn: the readings part at the deal.
FIRST_PLAYER = """
params:
  first: {value: 0, note: chosen by ambiguity first_player}
ambiguities:
  - id: first_player
    kind: gap
    question: Who takes the first turn?
    cite: [coin.en#L1]
    variants:
      seat0: {set: {first: 0}, reading: Seat 0 does.}
      seat1: {set: {first: 1}, reading: Seat 1 does.}
    default: seat0
    rationale: The rulebook does not say.
"""
CHECK = ("-p", "2", "--games", "3", "--examples", "2", "--steps", "10", "--no-z3", "--jobs", "1")
FAQ = ("--z3-budget", "0", "--games", "3", "--examples", "0", "--statistics-games", "0")


def _settings(examples: int = FUZZ_EXAMPLES) -> settings:
    return settings(max_examples=examples, deadline=None, derandomize=not SOAK, database=None,
                    suppress_health_check=list(HealthCheck))


def coin(folder: Path, extra: str = "", old: str = "", new: str = "") -> Path:
    """A copy of coin (and its rulebook) in `folder`, with `extra` appended."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(COIN / "rulebooks", folder / "rulebooks", dirs_exist_ok=True)
    text = (COIN / "coin.yaml").read_text(encoding="utf-8")
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = folder / "coin.yaml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def run(args: list[str], env: dict[str, str] | None = None) -> Result:
    """The command, in this process; a traceback of any kind fails the test."""
    r = CliRunner().invoke(main, args, env=env)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"rulespec {' '.join(map(repr, args))} raised "
                             f"{r.exception!r}\n{r.stderr}") from r.exception
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
    return r


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (links as their target's name), by relative path."""
    out: dict[str, bytes] = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_symlink():
            out[rel] = b"-> " + os.fsencode(os.readlink(p))
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out


# ------------------------------------------------------------------ JSON and mutations
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70),
    st.sampled_from([10**400, -(10**400)]),  # past what a float holds
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
    st.sampled_from(["holds", "fails", "error", "FAILS", "proved", "", "coin", "0" * 64]))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12)


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except ValueError:  # an int past what `json` writes
        return json.dumps(repr(value))


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    """The places in a JSON value, as key paths."""
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*here, i))
    return out


def _set(value: Any, path: tuple, new: Any, delete: bool = False) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    if delete and not rest:
        del copy[head]
        return copy
    copy[head] = _set(copy[head], rest, new, delete)
    return copy


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """`value` with one to three places replaced by random JSON, or deleted."""
    for _ in range(draw(st.integers(1, 3))):
        places = _paths(value)
        path = draw(st.sampled_from(places))
        delete = bool(path) and draw(st.booleans())
        value = _set(value, path, None if delete else draw(json_values), delete)
    return value


# ------------------------------------------------------------------ the result cache
@pytest.fixture(scope="module")
def cache_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A failing coin, its rows without the cache, and the entries a real run writes."""
    root = tmp_path_factory.mktemp("fuzz-cache")
    spec = coin(root / "repo", NEVER_STOPPED)
    r = run(["check", str(spec), *CHECK, "--no-cache", "--replays", str(root / "replays"),
             "--json", str(root / "plain.json")])
    assert r.exit_code == 1, r.stderr
    reference = root / "reference"
    run(["check", str(spec), *CHECK, "--replays", str(root / "replays")],
        env={"RULESPEC_CACHE": str(reference)})
    entries = {p.relative_to(reference).as_posix(): json.loads(p.read_text())
               for p in reference.glob("*/*.json")}
    assert len(entries) == 2
    return {"root": root, "spec": spec, "entries": entries,
            "rows": _rows(json.loads((root / "plain.json").read_text()))}


def _rows(data: dict) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("seconds", "cached", "replay")}
            for r in data["rows"]]


@st.composite
def planted_files(draw: st.DrawFn, entries: dict[str, dict]) -> dict[str, bytes]:
    """One to four files for a cache folder: at a real entry's place, another key's, or
    timings.json; random JSON, bytes, or a real entry edited, re-signed or moved."""
    names = sorted(entries)
    out: dict[str, bytes] = {}
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["edited", "resigned", "moved", "json", "bytes",
                                     "timings", "attack"]))
        name = draw(st.sampled_from(names))
        real = entries[name]
        if kind == "timings":
            name = "timings.json"
            body: Any = draw(st.one_of(json_values, st.fixed_dictionaries(
                {"seconds": st.dictionaries(st.sampled_from(
                    ["configuration coin 2p", "spec_valid coin", "x"]), json_scalars,
                    max_size=3)})))
            out[name] = _dumps(body).encode()
            continue
        if kind == "bytes":
            text = json.dumps(real).encode()
            out[name] = draw(st.one_of(st.binary(max_size=60),
                                       st.just(text[:draw(st.integers(0, len(text)))])))
            continue
        if kind == "json":
            out[name] = _dumps(draw(json_values)).encode()
            continue
        entry = dict(real)
        if kind == "edited":
            entry = draw(mutated(entry))
        elif kind == "attack":  # the result says every property holds
            result = json.loads(json.dumps(entry["result"]))
            for outcome in (result.get("outcomes") or {}).values():
                outcome.update(status="holds", actions=None, replay=None)
            result["findings"] = {}
            entry["result"] = result
        if kind in ("resigned", "attack") and isinstance(entry, dict):
            secret = draw(st.binary(min_size=1, max_size=32))
            key = C.folder_key(secret, Path(draw(st.sampled_from(["/", ".", "other"]))))
            entry["digest"] = C.entry_digest(key, entry)
        if kind == "moved":  # a real entry under another key
            other = draw(st.sampled_from([n for n in names if n != name]))
            name = other
        out[name] = _dumps(entry).encode()
    return out


@_settings()
@given(data=st.data())
def test_a_planted_cache_is_never_trusted(cache_case: dict[str, Any],
                                          data: st.DataObject) -> None:
    """Whatever a cache folder holds that this run did not write there, check gives the
    rows and exit code of --no-cache: it warns and computes again, never a traceback."""
    root: Path = cache_case["root"]
    folder = root / f"planted-{data.draw(st.integers(0, 10**9), label='folder')}"
    shutil.rmtree(folder, ignore_errors=True)
    planted = data.draw(planted_files(cache_case["entries"]), label="files")
    for name, body in planted.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(body)
    out = root / "rows.json"
    r = run(["check", str(cache_case["spec"]), *CHECK, "--replays", str(root / "replays"),
             "--json", str(out)], env={"RULESPEC_CACHE": str(folder)})
    note(r.stderr)
    assert r.exit_code == 1, r.stderr
    got = json.loads(out.read_text())
    assert not any(row["cached"] for row in got["rows"]), "a planted entry was used"
    assert _rows(got) == cache_case["rows"]
    shutil.rmtree(folder)


# ------------------------------------------------------------------ the FAQ store
@pytest.fixture(scope="module")
def store_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Coin with an ambiguity, and the store a real publication leaves."""
    root = tmp_path_factory.mktemp("fuzz-store")
    spec = coin(root / "game", FIRST_PLAYER, "    - active = 0\n", "    - active = first\n")
    reference = root / "reference"
    r = run(["faq", str(spec), "--partings", str(reference), "--out", str(root / "out"), *FAQ])
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in reference.iterdir()) == [
        "coin-first_player-seat1.yaml", "coin.yaml"]
    return {"root": root, "spec": spec, "reference": reference,
            "faq": (root / "out" / "coin.md").read_text(encoding="utf-8"),
            "entry": yaml.safe_load((reference / "coin.yaml").read_text())["readings"][READING]}


READING = "first_player=seat1"


#: Names an edited entry might give as its replay file.
REPLAY_NAMES = ["coin-first_player-seat1.yaml", "coin.yaml", "other.yaml",
                "other-first_player-seat1.yaml", "../outside.yaml", "/etc/hostname", ".", "",
                "coin-first_player-seat0.yaml", "coin-gone-away.yaml", "coin-link-out.yaml",
                "coin-first_player-seat1.yaml/..", "coin-first_player-seat1.yaml\0x"]


@st.composite
def store_edits(draw: st.DrawFn, store: dict, replay: dict) -> tuple[Any, Any, bool]:
    """The store file and its replay file, edited; and whether the store is still a mapping
    with readings (else publishing may refuse it, with one error line)."""
    readings = json.loads(json.dumps(store["readings"]))
    for _ in range(draw(st.integers(1, 4))):
        what = draw(st.sampled_from(["replay", "field", "entry", "new", "drop"]))
        key = draw(st.sampled_from(sorted(readings) or ["first_player=seat1"]))
        entry = readings.setdefault(key, {})
        if not isinstance(entry, dict):
            readings[key] = entry = {}
        if what == "replay":
            entry["replay"] = draw(st.one_of(st.sampled_from(REPLAY_NAMES), st.text(max_size=30),
                                             json_values))
        elif what == "field":
            entry[draw(st.sampled_from(["digest", "status", "how", "shown", "statistics",
                                        "second_try", "replay"]))] = draw(json_values)
        elif what == "entry":
            readings[key] = draw(mutated(entry))
        elif what == "new":
            readings[draw(st.sampled_from(["gone=away", "link=out", "first_player=seat0",
                                           "../x=y", ""]))] = {
                "digest": draw(st.sampled_from([entry.get("digest"), "x"])),
                "status": "parted", "replay": draw(st.sampled_from(REPLAY_NAMES))}
        else:
            readings.pop(key, None)
    top: Any = {**store, "readings": readings}
    sound = True
    if draw(st.integers(0, 9)) == 0:
        top, sound = draw(json_values), False
    edited_replay: Any = replay
    if draw(st.booleans()):
        edited_replay = draw(mutated(replay))
    return top, edited_replay, sound


@_settings(3 * FUZZ_EXAMPLES)
@given(data=st.data())
def test_an_edited_store_is_used_or_searched_again(store_case: dict[str, Any],
                                                   data: st.DataObject) -> None:
    """Publishing with an edited store (entries, replay files) writes the same FAQ or an
    error line (a store that is not a mapping of readings), never a traceback, and writes
    or deletes nothing but this game's store files in the store folder."""
    root: Path = store_case["root"]
    case = root / "case"
    shutil.rmtree(case, ignore_errors=True)
    store = case / "store"
    shutil.copytree(store_case["reference"], store)
    ours = store / "coin-first_player-seat1.yaml"
    replay = yaml.safe_load(ours.read_text(encoding="utf-8"))
    # another game's store and replay share the folder; a file and a link outside it
    (store / "other.yaml").write_text("game: other\nversion: 1\nreadings: {}\n")
    (store / "other-first_player-seat1.yaml").write_bytes(ours.read_bytes())
    (case / "outside.yaml").write_bytes(ours.read_bytes())
    (store / "coin-link-out.yaml").symlink_to(case / "outside.yaml")
    top, edited_replay, sound = data.draw(store_edits(
        yaml.safe_load((store / "coin.yaml").read_text(encoding="utf-8")), replay))
    (store / "coin.yaml").write_text(yaml.safe_dump(top), encoding="utf-8")
    ours.write_text(yaml.safe_dump(edited_replay), encoding="utf-8")
    before = files(case)
    r = run(["faq", str(store_case["spec"]), "--partings", str(store), "--out",
             str(case / "out"), *FAQ])
    note(r.stderr)
    after = files(case)
    changed = {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}
    if r.exit_code == 2:
        (error,) = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
        if f"{store / 'coin.yaml'}:" in error:  # the store as a whole refused, and kept
            assert not changed & {"store/coin.yaml", "store/coin-first_player-seat1.yaml"}
        else:  # or a file of the replay's name in the way that is not one
            assert edited_replay != replay and "not a replay of coin" in error, r.stderr
    else:
        assert r.exit_code == 0, r.stderr
        assert sound or isinstance(top, dict), "a store that is no mapping was used"
        published = (case / "out" / "coin.md").read_text(encoding="utf-8")
        # the same FAQ, but for the folders it names (its replay files, and the command
        # that wrote it at the top)
        published = published.replace(str(store), str(store_case["reference"])).replace(
            str(case / "out"), str(root / "out")).replace("case/store/", "reference/")
        if published != store_case["faq"]:
            # an edited entry was used as it says: only one this tool could have written
            entry = yaml.safe_load((store / "coin.yaml").read_text())["readings"][READING]
            assert entry != store_case["entry"] and entry["status"] in partings.STATUSES
    allowed = {"store/coin.yaml", "store/coin-first_player-seat1.yaml", "out/coin.md"}
    assert changed <= allowed, f"written or deleted outside this game's store: {changed}"
    assert not any(n.startswith("store/.tmp") for n in after)


# ------------------------------------------------------------------ output paths
#: Pieces of output paths, relative to a folder four levels below the test's root.
SEGMENTS = ["a", "b", "out.json", "..", ".", "", "spec.yaml", "folder", "new", " ", "é",
            "x" * 300, "nul\0", "-", "--json"]


@st.composite
def output_paths(draw: st.DrawFn, base: Path) -> str:
    """A path string: pieces joined by '/', at most three `..` (the test's root is four
    folders up), relative or from `base` (the current folder) on."""
    parts = draw(st.lists(st.one_of(st.sampled_from(SEGMENTS),
                                    st.text(alphabet=st.characters(
                                        blacklist_categories=("Cs",)), max_size=8)),
                          min_size=1, max_size=4))
    parts = [p for p in parts if p != ".."] + [".."] * min(parts.count(".."), 3)
    parts = draw(st.permutations(parts))
    text = "/".join(parts)
    if text.startswith("/"):  # relative all the same (a first piece was empty)
        text = "." + text
    if draw(st.booleans()):
        text = str(base) + "/" + text
    return text


#: (command, the option, whether it names a folder); cheap runs on coin.
OUTPUTS = [
    (["check", "{spec}", "--no-cache", *CHECK], "--json", False),
    (["stats", "{spec}", "-p", "2", "--games", "4", "--jobs", "1"], "--json", False),
    (["stats", "{spec}", "-p", "2", "--games", "4", "--jobs", "1"], "--markdown", False),
    (["stats", "{spec}", "-p", "2", "--games", "4", "--jobs", "1"], "--html", False),
    (["diff", "{spec}", "{spec}", "-p", "2", "--no-z3", "--games", "1", "--examples", "0",
      "--no-properties", "--no-statistics"], "--markdown", False),
    (["faq", "{spec}"], "--out", True),
    (["faq", "{spec}"], "--html", True),
]


@pytest.fixture(scope="module")
def paths_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-paths")
    coin(root / "game")
    return root


@_settings(3 * FUZZ_EXAMPLES)
@given(data=st.data())
def test_an_output_path_is_written_there_or_refused(paths_case: Path, data: st.DataObject,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Any path for --json/--markdown/--html/--out: the file is written inside the location
    given (nothing else changes), or one error line and exit 2; never a traceback."""
    root = paths_case / "case"
    shutil.rmtree(root, ignore_errors=True)
    cwd = root / "w" / "x" / "y" / "z"
    cwd.mkdir(parents=True)
    for where in (cwd, root):  # a file where a folder may be named, and a folder
        (where / "spec.yaml").write_text("not a folder\n")
        (where / "folder").mkdir()
    spec = paths_case / "game" / "coin.yaml"
    command, option, folder = data.draw(st.sampled_from(OUTPUTS), label="command")
    target = data.draw(output_paths(cwd), label="path")
    # never a path out of the test's folder (whatever the strategy draws)
    assert os.path.normpath(os.path.join(cwd, target)).startswith(str(root) + os.sep) \
        or os.path.normpath(os.path.join(cwd, target)) == str(root), target
    args = [str(spec) if a == "{spec}" else a for a in command] + [option, target]
    monkeypatch.chdir(cwd)
    before = files(root)
    r = run(args)
    note(r.stderr)
    after = files(root)
    changed = {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}
    if r.exit_code == 2:
        assert len([ln for ln in r.stderr.splitlines() if ln.lower().startswith("error")]) \
            == 1, r.stderr
        assert not changed, f"refused, yet wrote {changed}"
        return
    assert r.exit_code == 0, r.stderr
    written = (cwd / target).resolve()
    assert written.is_relative_to(root.resolve()), written
    if folder:
        assert written.is_dir() and any(written.iterdir())
        inside = {n for n in changed if (root / n).resolve().is_relative_to(written)}
    else:
        assert written.is_file() and written.stat().st_size > 0
        inside = {n for n in changed if (root / n).resolve() == written}
    assert changed == inside and changed, f"wrote {changed}, asked for {target!r}"


@pytest.mark.parametrize("seconds", ["1" + "0" * 400, "NaN", "Infinity", "-5", "1e308", "true",
                                     "\"x\"", "[1]"])
def test_timings_of_any_number_are_only_an_estimate(tmp_path: Path, seconds: str) -> None:
    """timings.json (the last run's time per job, in the cache folder) orders the jobs and
    estimates what is left; a time no job takes is not used, never a traceback."""
    folder = tmp_path / "cache"
    folder.mkdir()
    jobs = ", ".join(f'"{job}": {seconds}' for job in ("configuration coin 2p", "spec_valid coin"))
    (folder / "timings.json").write_text(f'{{"seconds": {{{jobs}}}}}')
    r = run(["check", str(coin(tmp_path / "game")), *CHECK], env={"RULESPEC_CACHE": str(folder)})
    assert r.exit_code == 0, r.stderr
