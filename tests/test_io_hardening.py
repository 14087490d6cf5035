"""What the commands write and connect to, attacked: planted symbolic links, output paths
that cannot be written, non-finite numbers, a git blob too large for a spec, a Dask
scheduler that never answers, and a replay file naming a file that is not a spec. Each
mistake is one error line and exit 2, said before any game is played, and no file
outside the places named is written or quoted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from test_cli_input import one_error, run

from model.limits import MAX_FILE_BYTES
from model.safe_write import LinkRefused, make_folder, write_text

ROOT = Path(__file__).resolve().parent.parent
COIN = ROOT / "tests" / "specs" / "coin.yaml"
#: A spec that fails a property in its first seeded game (check writes a replay).
FAILING = ROOT / "tests" / "mutants" / "lama_play_keeps_card.yaml"
FAILING_REPLAY = "lama_play_keeps_card-2p-round_ends-seed0.yaml"
FAST_FAQ = ("--games", "0", "--examples", "0", "--statistics-games", "0", "--z3-budget", "0")




@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every long run of a command fails the test: a mistake must be said before."""
    from properties.checks import runner
    from properties.cli import bench
    from properties.compare import run as compare_run
    from properties.compare import stats
    from properties.faq import entries

    def started(*args, **kwargs):
        raise AssertionError("the work started before the mistake was said")

    monkeypatch.setattr(runner, "run_jobs", started)
    monkeypatch.setattr(bench, "run_bench", started)
    monkeypatch.setattr(stats, "play_statistics", started)
    monkeypatch.setattr(compare_run, "compare", started)
    monkeypatch.setattr(entries, "build", started)


def _plant(link: Path, target: Path) -> Path:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


# ------------------------------------------------------------------ 1. symbolic links
@pytest.mark.parametrize("existing", [True, False], ids=["existing", "dangling"])
def test_writing_refuses_a_planted_symbolic_link(tmp_path: Path, existing: bool) -> None:
    outside = tmp_path / "outside.txt"
    if existing:
        outside.write_text("kept\n", encoding="utf-8")
    link = _plant(tmp_path / "out" / "report.md", outside)
    with pytest.raises(LinkRefused):
        write_text(link, "new\n")
    assert (outside.read_text(encoding="utf-8") == "kept\n") if existing else not outside.exists()
    assert link.is_symlink()
    assert sorted(p.name for p in link.parent.iterdir()) == ["report.md"]  # no temporary left
    with pytest.raises(LinkRefused):
        make_folder(_plant(tmp_path / "folder", tmp_path))


def test_writing_replaces_a_file_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b.txt"
    write_text(path, "one\n")
    path.chmod(0o640)
    write_text(path, "two\n")
    assert path.read_text(encoding="utf-8") == "two\n"
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["b.txt"]


@pytest.mark.parametrize("option,name", [("--out", "coin.md"), ("--html", "index.html"),
                                         ("--partings", "coin.yaml")])
@pytest.mark.parametrize("existing", [True, False], ids=["existing", "dangling"])
def test_faq_writes_through_no_planted_link(tmp_path: Path, option: str, name: str,
                                            existing: bool) -> None:
    outside = tmp_path / "outside.txt"
    if existing:
        outside.write_text("kept\n", encoding="utf-8")
    _plant(tmp_path / "dest" / name, outside)
    code, _, err = run("faq", str(COIN), "-p", "2", option, str(tmp_path / "dest"), *FAST_FAQ)
    assert code == 2 and "symbolic link" in one_error(err)
    assert "kept" not in err
    assert (outside.read_text(encoding="utf-8") == "kept\n") if existing else not outside.exists()


@pytest.mark.parametrize("option", ["--out", "--html", "--partings"])
def test_faq_refuses_an_output_folder_that_is_a_link(tmp_path: Path, option: str,
                                                     no_work: None) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = _plant(tmp_path / "dest", elsewhere)
    code, _, err = run("faq", str(COIN), "-p", "2", option, str(link), *FAST_FAQ)
    assert code == 2 and "symbolic link" in one_error(err)
    assert list(elsewhere.iterdir()) == []


def test_check_writes_no_replay_through_a_planted_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    _plant(tmp_path / "replays" / FAILING_REPLAY, outside)
    code, _, err = run("check", str(FAILING), "-p", "2", "--no-z3", "--profile", "none",
                       "--games", "1", "--no-cache", "-j", "1",
                       "--replays", str(tmp_path / "replays"))
    assert code == 2 and "symbolic link" in one_error(err)
    assert not outside.exists()


def test_check_refuses_a_replays_folder_that_is_a_link(tmp_path: Path, no_work: None) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = _plant(tmp_path / "replays", elsewhere)
    code, _, err = run("check", str(COIN), "-p", "2", "--no-z3", "--replays", str(link))
    assert code == 2 and "symbolic link" in one_error(err)


def test_the_result_cache_writes_through_no_planted_link(tmp_path: Path) -> None:
    from properties.checks.cache import Cache

    folder = tmp_path / "cache"
    outside = tmp_path / "outside"
    _plant(folder / ".gitignore", outside / "ignore")
    key = "ab" + "0" * 62
    _plant(folder / key[:2], outside)
    warnings: list[str] = []
    Cache(folder, warnings.append).put(key, {"x": 1})
    assert not outside.exists()
    assert warnings and all("symbolic link" in w for w in warnings)


# ------------------------------------------------------------------ 2. git blobs
def test_diff_refuses_a_blob_larger_than_a_spec_before_reading_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from properties.compare import versions

    repo = tmp_path / "repo"
    repo.mkdir()
    big = repo / "big.yaml"
    big.write_text("# padding\n" * (MAX_FILE_BYTES // 10 + 50_000), encoding="utf-8")
    for args in (["init", "-q"], ["add", "big.yaml"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "big"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    read: list[int] = []
    real_run = subprocess.run

    def spy(*args, **kwargs):
        done = real_run(*args, **kwargs)
        read.append(len(done.stdout or b""))
        return done

    monkeypatch.setattr(versions.subprocess, "run", spy)
    code, _, err = run("diff", f"{big}@HEAD", str(COIN), "-p", "2", "--no-z3")
    assert code == 2
    assert f"over the limit of {MAX_FILE_BYTES:,}" in one_error(err)
    assert read and max(read) < 1000, "the blob was read"


# ------------------------------------------------------------------ 3. the scheduler
def _stats_process(*args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "properties.cli", "stats", str(COIN), "-p",
                           "2", "--games", "10", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)
    return done, time.monotonic() - t0


def test_a_scheduler_that_never_answers_is_one_error_within_its_timeout() -> None:
    pytest.importorskip("distributed")
    with socket.socket() as listener:  # loopback only: accepts, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        done, seconds = _stats_process("--scheduler", f"tcp://127.0.0.1:{port}")
    assert done.returncode == 2, done.stderr
    assert "no answer within 10 s" in one_error(done.stderr)
    assert seconds < 40


@pytest.mark.parametrize("address", ["foo://bar", "127.0.0.1:notaport", "localhost",
                                     "tcp://127.0.0.1:99999", "tcp://"])
def test_a_malformed_scheduler_address_is_one_error_at_once(address: str, no_work: None) -> None:
    code, _, err = run("stats", str(COIN), "-p", "2", "--scheduler", address)
    assert code == 2 and "--scheduler" in one_error(err)
    code, _, err = run("diff", str(COIN), str(COIN), "--scheduler", address)
    assert code == 2 and "--scheduler" in one_error(err)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "scheduler:8786",
                                     "tls://[::1]:8786", "inproc://192.0.2.2/16183/1"])
def test_a_well_formed_scheduler_address_is_taken(address: str) -> None:
    from properties.compare.runner import scheduler_problem

    assert scheduler_problem(address) is None


def test_a_malformed_scheduler_address_leaves_no_traceback_behind() -> None:
    done, seconds = _stats_process("--scheduler", "127.0.0.1:notaport")
    assert done.returncode == 2 and "--scheduler" in one_error(done.stderr)
    assert seconds < 15


# ------------------------------------------------------------------ 4. output paths
@pytest.mark.parametrize("args,said", [
    (("stats", str(COIN), "--html", "{tmp}/missing/s.html"), "no folder"),
    (("stats", str(COIN), "--markdown", "{tmp}/missing/s.md"), "no folder"),
    (("stats", str(COIN), "--json", "{tmp}"), "is a directory"),
    (("diff", str(COIN), str(COIN), "--html", "{tmp}"), "is a directory"),
    (("diff", str(COIN), str(COIN), "--json", "{tmp}/missing/r.json"), "no folder"),
    (("diff", str(COIN), str(COIN), "--replays", "{tmp}/file"), "is a file"),
    (("check", str(COIN), "--no-z3", "--json", "{tmp}/missing/rows.json"), "no folder"),
    (("check", str(COIN), "--no-z3", "--json", "{tmp}"), "is a directory"),
    (("check", str(COIN), "--no-z3", "--replays", "{tmp}/file/replays"), "cannot write here"),
    (("faq", str(COIN), "--out", "{tmp}/file"), "is a file"),
])
def test_output_paths_are_checked_before_any_game(tmp_path: Path, args: tuple[str, ...],
                                                  said: str, no_work: None) -> None:
    (tmp_path / "file").write_text("kept\n", encoding="utf-8")
    code, _, err = run(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert code == 2 and said in one_error(err)
    assert (tmp_path / "file").read_text(encoding="utf-8") == "kept\n"


def test_check_json_to_stdout_is_still_allowed(tmp_path: Path) -> None:
    code, out, _ = run("check", str(COIN), "-p", "2", "--no-z3", "--profile", "none",
                       "--games", "2", "--no-cache", "-j", "1", "--json", "-")
    data = json.loads(out)  # (two games leave rules unexercised: exit 3, undecided)
    assert code in (0, 3) and data["exit_code"] == code and data["rows"]


# ------------------------------------------------------------------ 5. finite numbers
@pytest.mark.parametrize("args", [
    ("bench", str(COIN), "-p", "2", "--seconds", "nan"),
    ("bench", str(COIN), "-p", "2", "--seconds", "inf"),
    ("check", str(COIN), "--z3-safety-net", "nan"),
    ("check", str(COIN), "--z3-safety-net", "inf"),
    ("stats", str(COIN), "--budget", "inf"),
    ("stats", str(COIN), "--precision", "nan"),
    ("diff", str(COIN), str(COIN), "--budget", "inf"),
])
def test_numbers_must_be_finite(args: tuple[str, ...], no_work: None) -> None:
    code, _, err = run(*args)
    assert code == 2 and "not a finite number" in one_error(err)


# ------------------------------------------------------------------ 6. a replay's spec
SECRET = "hunter2"


def _replay_naming(tmp_path: Path, spec: str) -> Path:
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump({"spec": spec, "players": 2, "seed": 0, "actions": []}),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("name,text", [
    ("notes.txt", f"password: {SECRET}\n"),
    ("secret", f"root:{SECRET}:0:0\n"),
    ("config.yaml", f"password: {SECRET}\ntoken: [{SECRET}]\n"),
    ("broken.yml", f"{SECRET}: [unclosed\n"),
])
def test_a_replay_naming_a_file_that_is_not_a_spec_quotes_none_of_it(
        tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    replay = _replay_naming(tmp_path, str(tmp_path / name))
    code, out, err = run("replay", str(replay))
    assert code == 2
    line = one_error(err)
    assert "not a spec" in line and str(replay) in line
    assert SECRET not in out + err


def test_a_replay_naming_a_real_spec_still_replays(tmp_path: Path) -> None:
    code, out, err = run("replay", str(_replay_naming(tmp_path, str(COIN))), "-q")
    assert code == 0, err
    assert "winners" in out


def test_a_replay_spec_named_on_the_command_line_is_the_users_to_read(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("title: 3\n", encoding="utf-8")
    replay = _replay_naming(tmp_path, str(COIN))
    code, _, err = run("replay", str(replay), "--spec", str(tmp_path / "mine.yaml"))
    assert code == 2 and "mine.yaml" in one_error(err)


if os.name == "nt":  # pragma: no cover
    pytestmark = pytest.mark.skip("symbolic links need privileges on Windows")
