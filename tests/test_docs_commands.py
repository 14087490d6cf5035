"""Docs that run: every `rulespec ...` command shown in README.md and docs/*.md does what
the text around it says.

The commands are read from the files themselves: every line of a code block (fenced, or
indented four spaces) whose shell command starts with `rulespec`, its `# comment` removed
and continuation lines joined. Each needs an entry in COMMANDS below: the exit code the
text promises and, where the text makes a claim that is cheap to check, a check of it. A
command in the docs without an entry fails its test, with the entry to add.

Every command runs in its own temporary folder (holding a link to the repository's spec/),
through click's CliRunner, so that `docs/faq`, `replays/` and `rows.json` land there. A
slow command runs with a few options added or changed (`reduce`), each entry saying why;
the rest of the command is the one the docs show. Files the docs take as given
(`my-lama.yaml`, `situation.yaml`, a replay file) are made by the entry's `setup`: by the
documented command that writes them where there is one.

docs/coverage/ and docs/examples/ are generated and not read here. The generated FAQ
(docs/faq/*.md) is, by `test_faq_command_does_what_the_text_says`: it prints a hundred and
more commands, written by properties/faq/commands.py, so instead of a table entry each
sentence that carries one says what the command must do, and the test checks that (the deal
of a seed, the game a replay shows, the verdict of a declared failure). The site
(`rulespec faq --html`) prints no command the Markdown does not (tests/test_faq_site.py).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from properties.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # not docs/<sub>/*.md
GAMES = sorted(p.stem for p in (ROOT / "spec").glob("*.yaml"))


# --- reading the commands out of the docs ---------------------------------------------

def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every line inside a code block: ``` fences, or lines
    indented four spaces outside them; continuation lines (ending in `\\`) joined."""
    out: list[tuple[int, str]] = []
    fenced = False
    pending: tuple[int, str] | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            pending = None
            continue
        code = line if fenced else line[4:]
        if pending is not None:
            n, code = pending[0], pending[1] + " " + code.strip()
        if code.rstrip().endswith("\\"):
            pending = (n, code.rstrip()[:-1].rstrip())
            continue
        pending = None
        out.append((n, code))
    return out


def shell_commands(line: str) -> list[str]:
    """The commands of a shell line: split at `&&`, `||`, `;` and `|` outside quotes,
    a `# comment` removed, each stripped (a leading `$ ` prompt too)."""
    parts, current, quote = [], "", ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (not current.strip() or current[-1:].isspace()):
            break
        elif line.startswith(("&&", "||"), i) or c in ";|":
            parts.append(current)
            current = ""
            i += 2 if line.startswith(("&&", "||"), i) else 1
            continue
        current += c
        i += 1
    parts.append(current)
    return [p.strip().removeprefix("$ ").strip() for p in parts if p.strip()]


def documented_commands() -> dict[str, list[str]]:
    """Every `rulespec` command in the docs -> where it is shown (file:line)."""
    found: dict[str, list[str]] = {}
    for path in DOCS:
        for n, line in code_lines(path.read_text(encoding="utf-8")):
            for command in shell_commands(line):
                if command.split()[0] == "rulespec":
                    found.setdefault(command, []).append(f"{path.relative_to(ROOT)}:{n}")
    return found


# --- the table -------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """A command run before the one under test, to make a file the docs take as given."""
    command: str
    exit: int = 0


@dataclass(frozen=True)
class Doc:
    """What the docs promise of one command.

    exit: the exit code the text promises (0; 1 where the command finds something).
    reduce: options added, or whose value is replaced, to keep a slow command fast
        ({"--games": "20", "--no-z3": None}); why: the reason, one line.
    setup: run first, in order, in the test's folder: a Run, or a function of the folder.
    placeholders: text of the command standing for a file that setup made -> that file.
    check: what the text claims beyond the exit code, given the result and the folder.
    """
    exit: int = 0
    reduce: dict[str, str | None] = field(default_factory=dict)
    why: str = ""
    setup: tuple[Run | Callable[[Path], None], ...] = ()
    placeholders: dict[str, str] = field(default_factory=dict)
    check: Callable[[Result, Path], None] | None = None


def changed_spec(old: str, new: str) -> Callable[[Path], None]:
    """`cp spec/lama.yaml my-lama.yaml` and one rule changed, as docs/rule-designers.md
    has a designer do: the text `old` (found exactly once) becomes `new`."""
    def write(folder: Path) -> None:
        text = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
        assert text.count(old) == 1, f"spec/lama.yaml no longer holds {old!r} once"
        (folder / "my-lama.yaml").write_text(text.replace(old, new), encoding="utf-8")
    return write


# A rule change after which every property still holds: the game ends at 50 points.
DESIGNERS_COPY = changed_spec("end_points: {value: 40,", "end_points: {value: 50,")
# A rule change that breaks a property: a round where everybody has quit never ends
# (round_ends fails), so that `check` has a failure to write a replay file of.
BROKEN_COPY = changed_spec('{name: all_quit, when: "in_round == 0"',
                           '{name: all_quit, when: "in_round < 0"')
# `rulespec check my-lama.yaml` of the broken copy, at 3 players from seed 4: its first game
# fails round_ends and the replay file is replays/lama-3p-round_ends-seed4.yaml.
A_FAILURE_CHECK_WROTE = (BROKEN_COPY, Run(
    "rulespec check my-lama.yaml -p 3 --seed 4 --games 1 --profile none --no-z3", exit=1))
REPLAY = "replays/lama-3p-round_ends-seed4.yaml"
QUERY = 'rulespec query lama "quit[1] and count(hand[0]) == 7" --players 3 --out w.yaml'


def stdout_has(*texts: str) -> Callable[[Result, Path], None]:
    def check(result: Result, folder: Path) -> None:
        for text in texts:
            assert text in result.stdout, f"{text!r} not in the output"
    return check


def summary_of(*games: str, z3: bool) -> Callable[[Result, Path], None]:
    """The summary: a line per game and property; z3's verdicts beside them, or none."""
    def check(result: Result, folder: Path) -> None:
        for game in games:
            assert re.search(rf"^{game}\s+conservation\s+holds", result.stdout, re.M), game
        named = {line.split()[0] for line in result.stdout.splitlines()
                 if re.match(r"\w+\s+(conservation|spec_valid)\s", line)}
        assert named == set(games)
        assert ("(z3 " in result.stdout) is z3
        assert bool(re.search(r"^\w+\s+z3_\w+\s", result.stdout, re.M)) is z3
    return check


def z3_supply_as_expected(result: Result, folder: Path) -> None:
    """The spec expects the chip shortfall of this reading and records its witness, which
    the row replays (issue 12 found the command exiting 1 when z3 did not find it again).
    The two-player game cycle the spec declares has its witness recorded for the default
    reading only: under this one z3 finds one itself, filling in the skeleton of a round
    the deep search played (it was "failure not shown", undecided, before)."""
    assert re.search(r"^lama\s+z3_supply\s+expected failure 2p$", result.stdout, re.M)
    assert re.search(r"^lama\s+z3_game_cycle\s+expected failure 2p$", result.stdout, re.M)
    assert re.search(r"z3_game_cycle expected failure at 2p: .*\(found by z3 .*filled in the "
                     r"skeleton of a round the deep search played", result.stdout)


def rounds_started_by_seat_0(result: Result, folder: Path) -> None:
    """next_round_starter=first_seat: every round starts with player 0 (under the default
    reading, the player who ended the last one)."""
    firsts = re.findall(r"^\s+\d+\. r(\d+) (p\d): ", result.stdout, re.M)
    starters = {r: p for r, p in reversed(firsts)}
    assert len(starters) > 1 and set(starters.values()) == {"p0"}, starters


def json_trace(result: Result, folder: Path) -> None:
    data = json.loads(result.stdout)
    assert data["final"]["terminal"] is True and data["actions"]


def readable_trace(result: Result, folder: Path) -> None:
    assert re.search(r"^\s+1\. r1 p0: ", result.stdout, re.M)
    assert "final scores" in result.stdout


def seat_trace(result: Result, folder: Path) -> None:
    """`play ... --as 2`: the trace as seat 2 sees it, the others' hands as counts."""
    readable_trace(result, folder)
    assert "as player 2 sees it" in result.stdout
    assert re.search(r"^  player 0: hand \d+ hidden;", result.stdout, re.M), result.stdout


def situation_written(result: Result, folder: Path) -> None:
    """`deal ... > FILE`: the output is a situation file, in YAML."""
    data = yaml.safe_load(result.stdout)
    assert data["players"] == 3 and "zones" in data


def legal_actions_and_effects(result: Result, folder: Path) -> None:
    actions = [line for line in result.stdout.splitlines() if line.startswith("- ")]
    assert actions and all(": " in line and " -> " in line for line in actions), actions


def every_row_shown_and_written(result: Result, folder: Path) -> None:
    data = json.loads((folder / "rows.json").read_text(encoding="utf-8"))
    assert data["exit_code"] == result.exit_code and data["rows"]
    shown = [line for line in result.stdout.splitlines() if re.match(r"lama\s+(all|\d)\s", line)]
    assert len(shown) == len(data["rows"])


def replayed_failure(quiet: bool) -> Callable[[Result, Path], None]:
    def check(result: Result, folder: Path) -> None:
        assert "recorded failure: round_ends" in result.stdout
        assert "reproduced: round_ends fails at step" in result.stdout
        assert re.search(r"^\s+1\. p0: .*\[lama\.(en|nl)#L\d+", result.stdout, re.M)  # citations
        assert ("player 0: hand" in result.stdout) is not quiet  # the states, unless -q
    return check


def witness(result: Result, folder: Path) -> None:
    assert "reached after" in result.stdout
    assert "replayed on the concrete model: every state equals z3's" in result.stdout


def witness_written(result: Result, folder: Path) -> None:
    witness(result, folder)
    assert yaml.safe_load((folder / "w.yaml").read_text(encoding="utf-8"))["actions"]


def witness_replayed(result: Result, folder: Path) -> None:
    """The witness, step by step on the concrete model, every property holding."""
    assert re.search(r"^\s+1\. p\d: ", result.stdout, re.M)
    assert "reproduced" not in result.stdout


def PUBLISHED_PARTINGS(folder: Path) -> None:
    """The published FAQ's stored parting games, as docs/publishing.md has them."""
    shutil.copytree(ROOT / "docs" / "faq" / "partings", folder / "docs" / "faq" / "partings")


def published_faq(result: Result, folder: Path) -> None:
    """From the stored results nothing is searched, and the FAQ is the published one."""
    faq_of_every_spec(result, folder)
    for game in GAMES:
        assert (folder / "docs" / "faq" / f"{game}.md").read_text(encoding="utf-8") == (
            ROOT / "docs" / "faq" / f"{game}.md").read_text(encoding="utf-8")


def faq_site(result: Result, folder: Path) -> None:
    pages = {p.name for p in (folder / "site").glob("*.html")}
    assert {"index.html", *(f"{g}.html" for g in GAMES),
            *(f"{g}-explorer.html" for g in GAMES)} <= pages, pages


def faq_of_every_spec(result: Result, folder: Path) -> None:
    written = sorted(p.stem for p in (folder / "docs" / "faq").glob("*.md"))
    assert written == GAMES
    for game in GAMES:
        assert (folder / "docs" / "faq" / f"{game}.md").read_text(encoding="utf-8").startswith("# ")


def python_source(result: Result, folder: Path) -> None:
    compile(result.stdout, "show-code", "exec")


BUDGET_OR_PRECISION = r"the time budget of 2 s|precision reached"  # a fast machine may get there


def stats_report(*files: str, stopped_by: str) -> Callable[[Result, Path], None]:
    """A report that says what stopped play, with intervals (a budget run on a loaded
    machine may finish fewer than 30 games, which the report says), and the files asked for."""
    def check(result: Result, folder: Path) -> None:
        shown = r"\d+\.\d%  \[\d" + ("" if "fixed" in stopped_by else r"|–  \(fewer than 30 games\)")
        assert re.search(rf"win share, seat 0 +({shown})", result.stdout)
        assert re.search(rf"; stopped by ({stopped_by})", result.stdout)
        for name in files:
            assert (folder / name).stat().st_size > 0, name
        if "stats.json" in files:
            json.loads((folder / "stats.json").read_text(encoding="utf-8"))
        if "stats.html" in files:
            assert "<svg" in (folder / "stats.html").read_text(encoding="utf-8")
    return check


# docs/rule-designers.md's worked example: `sed 's/points: 10, copies: 8/points: 7, copies: 8/'`
LLAMA_WORTH_7 = changed_spec("points: 10, copies: 8", "points: 7, copies: 8")
FAST_DIFF = {"--no-properties": None, "--budget": "3"}
WHY_FAST_DIFF = ("the property table (z3 for both versions) and 60 s of games take minutes; "
                 "the rules and the parting game, with 3 s of games")


def plays_differently(*files: str) -> Callable[[Result, Path], None]:
    def check(result: Result, folder: Path) -> None:
        assert "The versions play differently" in result.stdout, result.stdout
        assert "they part" in result.stdout, result.stdout
        for name in files:
            assert (folder / name).stat().st_size > 0, name
    return check


def examples_folder(folder: Path) -> None:
    (folder / "docs" / "examples").mkdir(parents=True, exist_ok=True)


FAST_CHECK = {"--games": "10", "--profile": "none", "--no-z3": None}
WHY_FAST_CHECK = "200 games and the z3 queries take minutes; a few seeded games run every check"

COMMANDS: dict[str, Doc] = {
    # README.md
    "rulespec check": Doc(
        reduce={"-p": "2", "--games": "2", "--profile": "none", "--no-z3": None},
        why="every spec with z3 takes 18 min: two seeded games of every spec at 2 players",
        check=summary_of(*GAMES, z3=False)),
    "rulespec play lama --players 4 --seed 7": Doc(check=readable_trace),
    "rulespec play lama -p 4 --seed 7 --json": Doc(check=json_trace),
    "rulespec play lama -p 4 --seed 7 --as 2": Doc(check=seat_trace),
    "rulespec deal lama -p 3 > situation.yaml": Doc(check=situation_written),
    "rulespec legal lama -p 3 --state situation.yaml": Doc(
        setup=(Run("rulespec deal lama -p 3 > situation.yaml"),),
        check=legal_actions_and_effects),
    "rulespec check spec/lama.yaml --games 500": Doc(
        reduce=FAST_CHECK, why=WHY_FAST_CHECK, check=summary_of("lama", z3=False)),
    "rulespec check lama --verbose --json rows.json": Doc(
        reduce=FAST_CHECK, why=WHY_FAST_CHECK, check=every_row_shown_and_written),
    "rulespec check lama --variant chip_exchange=never": Doc(
        exit=3, reduce={"-p": "2", "--games": "5", "--profile": "none"},
        why="z3 at one player count (the shortfall is the spec's recorded witness)",
        check=z3_supply_as_expected),
    "rulespec replay replays/<file>.yaml": Doc(
        exit=1, setup=A_FAILURE_CHECK_WROTE, placeholders={"replays/<file>.yaml": REPLAY},
        check=replayed_failure(quiet=False)),
    'rulespec query lama "quit[1] and count(hand[0]) == 7" -p 3': Doc(check=witness),
    "rulespec bench lama --players 4": Doc(
        reduce={"--seconds": "0.2"}, why="each measurement runs 3 s by default",
        check=stdout_has("actions/s")),
    "rulespec stats lama -p 4 --html stats.html": Doc(
        reduce={"--budget": "2"}, why="at most 60 s by default: 2 s (±1 pp takes about 14,000 games)",
        check=stats_report("stats.html", stopped_by=BUDGET_OR_PRECISION)),
    "rulespec faq --partings docs/faq/partings --out docs/faq": Doc(
        setup=(PUBLISHED_PARTINGS,), check=published_faq),
    "rulespec show-code lama -p 4": Doc(check=python_source),
    "rulespec bench lama -p 4 --yardstick benchmarks/handwritten_lama.py": Doc(
        setup=(lambda f: (f / "benchmarks").mkdir(),
               lambda f: (f / "benchmarks" / "handwritten_lama.py").symlink_to(
                   ROOT / "benchmarks" / "handwritten_lama.py")),
        reduce={"--seconds": "0.2"}, why="each measurement runs 3 s by default",
        check=stdout_has("State API / hand-written")),
    "rulespec diff spec/lama.yaml my-lama.yaml": Doc(
        exit=1, setup=(LLAMA_WORTH_7,), reduce={"-p": "4", **FAST_DIFF},
        why="every player count: " + WHY_FAST_DIFF, check=plays_differently()),
    "rulespec diff lama lama --new-variant empty_stock=reshuffle": Doc(
        exit=1, reduce={"-p": "4", "--no-statistics": None, **FAST_DIFF},
        why="every player count: " + WHY_FAST_DIFF, check=plays_differently()),
    "rulespec diff spec/lama.yaml@HEAD spec/lama.yaml": Doc(
        check=stdout_has("The versions play the same")),
    # docs/rule-designers.md
    "rulespec diff lama lama --new-variant empty_stock=reshuffle -p 4": Doc(
        exit=1, reduce={"--no-statistics": None, **FAST_DIFF}, why=WHY_FAST_DIFF,
        check=plays_differently()),
    "rulespec diff lama my-lama.yaml -p 4 --no-z3": Doc(
        exit=1, setup=(LLAMA_WORTH_7,), reduce=FAST_DIFF, why=WHY_FAST_DIFF,
        check=plays_differently()),
    "rulespec diff lama my-lama.yaml -p 4 --no-properties --no-statistics": Doc(
        exit=1, setup=(LLAMA_WORTH_7,), check=plays_differently()),
    "rulespec diff lama my-lama.yaml --markdown pr.md --json r.json --html r.html": Doc(
        exit=1, setup=(LLAMA_WORTH_7,), reduce={"-p": "4", **FAST_DIFF},
        why="every player count: " + WHY_FAST_DIFF,
        check=plays_differently("pr.md", "r.json", "r.html")),
    "rulespec diff lama my-lama.yaml -p 4 --markdown docs/examples/lama-llama-worth-7.md": Doc(
        exit=1, setup=(LLAMA_WORTH_7, examples_folder), reduce=FAST_DIFF, why=WHY_FAST_DIFF,
        check=plays_differently("docs/examples/lama-llama-worth-7.md")),
    "rulespec check my-lama.yaml": Doc(
        setup=(DESIGNERS_COPY,), reduce=FAST_CHECK, why=WHY_FAST_CHECK,
        check=stdout_has("holds 2-6p")),
    "rulespec check my-lama.yaml -p 3 --games 2000": Doc(
        setup=(DESIGNERS_COPY,), reduce={"--games": "50", "--profile": "none", "--no-z3": None},
        why="2000 games, the state machine at 10 configurations and z3 take minutes",
        check=summary_of("lama", z3=False)),
    f"rulespec replay {REPLAY}": Doc(
        exit=1, setup=A_FAILURE_CHECK_WROTE, check=replayed_failure(quiet=False)),
    f"rulespec replay {REPLAY} -q": Doc(
        exit=1, setup=A_FAILURE_CHECK_WROTE, check=replayed_failure(quiet=True)),
    'rulespec query my-lama.yaml "quit[1] and count(hand[0]) == 7" -p 3 --out w.yaml': Doc(
        setup=(DESIGNERS_COPY,), check=witness_written),
    "rulespec replay w.yaml": Doc(setup=(Run(QUERY),), check=witness_replayed),
    "rulespec deal my-lama.yaml -p 3 > s.yaml": Doc(
        setup=(DESIGNERS_COPY,), check=situation_written),
    "rulespec legal my-lama.yaml -p 3 --state s.yaml": Doc(
        setup=(DESIGNERS_COPY, Run("rulespec deal my-lama.yaml -p 3 > s.yaml")),
        check=legal_actions_and_effects),
    "rulespec play lama -p 4 --seed 3 --variant next_round_starter=first_seat": Doc(
        check=rounds_started_by_seat_0),
    "rulespec bench my-lama.yaml -p 4": Doc(
        setup=(DESIGNERS_COPY,), reduce={"--seconds": "0.2"},
        why="each measurement runs 3 s by default", check=stdout_has("actions/s")),
    "rulespec stats my-lama.yaml -p 4": Doc(
        setup=(DESIGNERS_COPY,), reduce={"--budget": "2"},
        why="at most 60 s by default: 2 s (±1 pp takes about 14,000 games)",
        check=stats_report(stopped_by=BUDGET_OR_PRECISION)),
    "rulespec stats my-lama.yaml -p 3 -p 4 --policy greedy --precision 0.5 --budget 300": Doc(
        setup=(DESIGNERS_COPY,), reduce={"--budget": "2"},
        why="5 minutes: 2 s, which stops before ±0.5 pp",
        check=stats_report(stopped_by="the time budget of 2 s")),
    "rulespec stats my-lama.yaml -p 4 --html stats.html --markdown stats.md --json stats.json": Doc(
        setup=(DESIGNERS_COPY,), reduce={"--games": "200"},
        why="games until ±1 pp take up to 60 s; 200 games make every report",
        check=stats_report("stats.html", "stats.md", "stats.json", stopped_by="a fixed number of games")),
    # docs/publishing.md
    "rulespec faq --partings docs/faq/partings --html site/": Doc(
        setup=(PUBLISHED_PARTINGS,), check=faq_site),
    "rulespec faq lama": Doc(
        reduce={"--z3-budget": "0", "--games": "5", "--examples": "0",
                "--statistics-games": "0"},
        why="the whole search (z3, 300 games, statistics per reading) takes minutes",
        check=stdout_has("# L.L.A.M.A. (LAMA): clarified rules", "**Ruling: `ender`.**")),
    "rulespec replay docs/faq/partings/lama-empty_stock-reshuffle.yaml": Doc(
        setup=(PUBLISHED_PARTINGS,), check=stdout_has("32. p3: play 4")),
    "rulespec replay docs/faq/partings/lama-empty_stock-reshuffle.yaml "
    "--variant empty_stock=reshuffle": Doc(
        setup=(PUBLISHED_PARTINGS,), check=stdout_has("32. p3: play 4")),
    # docs/symbolic.md
    "rulespec check lama": Doc(
        reduce={"-p": "2", "--games": "5", "--profile": "none"},
        why="z3 at every player count takes minutes: one player count",
        check=summary_of("lama", z3=True)),
    "rulespec check lama --no-z3": Doc(
        reduce={"--games": "10", "--examples": "3"},
        why="200 games and 10 state-machine examples at 13 configurations take a minute",
        check=summary_of("lama", z3=False)),
    QUERY: Doc(check=witness_written),
}

ALIASES = {"-p": "--players", "-j": "--jobs", "-q": "--quiet", "-v": "--verbose"}


# --- running them ----------------------------------------------------------------------

def reduced(command: str, doc: Doc) -> list[str]:
    """The command's words with the reduction applied: an option already there gets the
    new value, any other is added at the end. Nothing else changes."""
    words = shlex.split(command)
    for option, value in doc.reduce.items():
        names = {option, ALIASES.get(option, option)} | {k for k, v in ALIASES.items() if v == option}
        at = [i for i, w in enumerate(words) if w in names]
        if value is None:
            if not at:
                words.append(option)
            continue
        assert len(at) <= 1, f"{command}: {option} is given more than once; reduce it another way"
        if at:
            words[at[0] + 1] = value
        else:
            words += [option, value]
    return words


def run(words: list[str], folder: Path) -> Result:
    """Run `rulespec ...` (words[0] is `rulespec`) in-process; `> FILE` writes stdout there."""
    assert words[0] == "rulespec", words
    target = None
    if ">" in words:
        at = words.index(">")
        words, target = words[:at], words[at + 1]
    result = CliRunner().invoke(main, words[1:])
    if target is not None:
        (folder / target).write_text(result.stdout, encoding="utf-8")
    return result


def explain(result: Result, words: list[str]) -> str:
    trace = ""
    if result.exc_info and not isinstance(result.exception, SystemExit):
        import traceback
        trace = "".join(traceback.format_exception(*result.exc_info))
    return (f"`{shlex.join(words)}` exited {result.exit_code}\n--- stdout\n{result.stdout[-3000:]}"
            f"\n--- stderr\n{result.stderr[-3000:]}\n{trace}")


def missing_entry(command: str, where: list[str]) -> str:
    return (f"{', '.join(where)} shows `{command}`, which no test runs. Add it to COMMANDS in "
            f"tests/test_docs_commands.py:\n\n    {command!r}: Doc(exit=0),\n\nwith the exit code "
            "the text promises (1 where the command finds something), a `check` of what the "
            "text says it does where that is cheap, `setup` for files the text takes as given, "
            "and for a slow command `reduce={'--games': '20'}, why='...'`.")


DOCUMENTED = documented_commands()


def test_the_docs_show_commands() -> None:
    """The reading of the docs finds what it should (a guard against a broken parser)."""
    assert shell_commands("python -m pip install -e . && rulespec check  # all") == [
        "python -m pip install -e .", "rulespec check"]
    assert shell_commands('rulespec query x "a # b" -p 3   # comment') == ['rulespec query x "a # b" -p 3']
    assert code_lines("text\n\n    rulespec a \\\n      --b\n```sh\nrulespec c\n```\n") == [
        (3, "rulespec a --b"), (6, "rulespec c")]
    assert any(w.startswith("README.md:") for w in DOCUMENTED["rulespec check"])
    assert not [c for c in DOCUMENTED if "#" in c or c.endswith("\\")]


def test_every_entry_is_a_command_the_docs_show() -> None:
    stale = sorted(set(COMMANDS) - set(DOCUMENTED))
    assert not stale, f"COMMANDS lists commands the docs no longer show; remove them: {stale}"


def test_every_reduction_says_why_and_keeps_the_command() -> None:
    for command, doc in COMMANDS.items():
        assert bool(doc.reduce) == bool(doc.why), f"{command}: a reduction needs its reason"
        words = reduced(command, doc)
        assert words[:2] == shlex.split(command)[:2], command
        for placeholder in doc.placeholders:
            assert placeholder in command, f"{command}: no {placeholder}"


@pytest.mark.parametrize("command", sorted(DOCUMENTED))
def test_documented_command_does_what_the_text_says(command: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    doc = COMMANDS.get(command)
    if doc is None:
        pytest.fail(missing_entry(command, DOCUMENTED[command]))
    (tmp_path / "spec").symlink_to(ROOT / "spec", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RULESPEC_CACHE", str(tmp_path / ".rulespec-cache"))
    for step in doc.setup:
        if isinstance(step, Run):
            words = shlex.split(step.command)
            result = run(words, tmp_path)
            assert result.exit_code == step.exit, "setup: " + explain(result, words)
        else:
            step(tmp_path)
    for placeholder, path in doc.placeholders.items():
        command = command.replace(placeholder, path)
    words = reduced(command, doc)
    result = run(words, tmp_path)
    if words != shlex.split(command) and words[:2] == ["rulespec", "check"] and doc.exit == 0 \
            and result.exit_code == 3:
        # a reduced run of check may leave rules no game reached: exit 3 (undecided), with
        # the coverage row the only one undecided, is what the full run's exit 0 becomes
        undecided = re.search(r"^not decided: (\d+) rows? ", result.stdout, re.M)
        # (the summary says "warning:" or "warning (accepted by the spec):", the table "warning")
        gaps = re.findall(r"^\w+\s+(?:all\s+)?coverage\s+warning(?::| +\d)", result.stdout, re.M)
        assert undecided and int(undecided.group(1)) == len(gaps), explain(result, words)
    else:
        assert result.exit_code == doc.exit, explain(result, words)
    if doc.check is not None:
        try:
            doc.check(result, tmp_path)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{explain(result, words)}") from e


# --- the commands the published FAQ prints --------------------------------------------

FAQ = sorted((ROOT / "docs" / "faq").glob("*.md"))
#: A code span holding a command (the FAQ writes commands with single backticks).
_SPAN = re.compile(r"(?<!`)`(rulespec [^`]+)`(?!`)")


@dataclass(frozen=True)
class Said:
    """One place the FAQ prints a command: where, and the entry (a bullet with its
    continuation lines, or a paragraph) around it, which says what the command does."""
    where: str
    line: str
    entry: str


def faq_entries(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each entry of a FAQ page: a list item with the indented lines
    that continue it, or any other line."""
    out: list[tuple[int, str]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("  ") and out and out[-1][1].startswith("- "):
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
        else:
            out.append((n, line))
    return out


def faq_commands() -> dict[str, list[Said]]:
    """Every command the published FAQ prints -> each place it is printed."""
    found: dict[str, list[Said]] = {}
    for path in FAQ:
        for n, entry in faq_entries(path.read_text(encoding="utf-8")):
            for offset, line in enumerate(entry.splitlines()):
                for m in _SPAN.finditer(line):
                    where = f"{path.relative_to(ROOT)}:{n + offset}"
                    found.setdefault(m.group(1), []).append(Said(where, line, entry))
    return found


FAQ_SAYS = faq_commands()
FAQ_SPEC = re.compile(r"^rulespec (?:play|check) (\S+)")


def _spans(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text)]


def _actions_before(entry: str) -> list[tuple[str, str]]:
    """The actions an example lists before the step where the readings part ("2 actions:
    p0 `quit`, p1 `quit`.")."""
    first = entry.splitlines()[0]
    listed = re.search(r"\d+ actions?: (.*)$", first)
    return re.findall(r"(p\d+|everyone) `([^`]+)`", listed.group(1)) if listed else []


def _game_shown(entry: str) -> list[tuple[str, str]]:
    """The game an example's replay shows: the actions before the parting step, and the
    parting action itself where both readings allow it and it leads elsewhere."""
    steps = _actions_before(entry)
    after = re.search(r"\*\*They part at step \d+\*\*, (?:player (\d+)|(everyone)) to act: both "
                      r"allow the same actions, but after `([^`]+)`", entry)
    if after is None:
        return steps
    return [*steps, (after.group(2) or f"p{after.group(1)}", after.group(3))]


def _replayed_steps(stdout: str) -> list[tuple[str, str]]:
    return re.findall(r"^\s*\d+\. (p\d+|everyone): (.+?)(?:  \[.*)?$", stdout, re.M)


def _replay_in(entry: str) -> str | None:
    """The replay file an example's entry names (its `rulespec replay FILE`)."""
    files = [c.split()[2] for c in _spans(entry) if c.startswith("rulespec replay ")]
    return files[0] if files else None


def _deal_shown(stdout: str) -> str:
    """What `rulespec play` prints of the deal: the lines before the first action."""
    lines = stdout.splitlines()[1:]
    first = next((i for i, x in enumerate(lines) if re.match(r"^\s+1\. r1 (p\d+|everyone): ", x)),
                 len(lines))
    return "\n".join(lines[:first])


def _deal_of(file: str, folder: Path) -> str:
    """The deal of a replay file, as `rulespec replay` shows it (under the ruling)."""
    from properties.concrete import trace as tr

    data = tr.read_replay(folder / file)
    game = tr.load_game(data)
    state, _ = tr.start(game, data)
    return tr.describe(game, state)


def deals_the_example(said: list[Said]) -> Callable[[Result, Path], None]:
    """"From the deal of seed S (`rulespec play G -p N --seed S`)": the game it plays starts
    from the deal of each example that prints it (its replay file's deal)."""
    def check(result: Result, folder: Path) -> None:
        shown = _deal_shown(result.stdout)
        for s in said:
            assert re.search(r"From the deal of seed (\d+) \(`rulespec play ", s.line), s.where
            file = _replay_in(s.entry)
            assert file is not None, f"{s.where}: the example names no replay file"
            assert shown == _deal_of(file, folder), f"{s.where}: not the deal of {file}"
    return check


def shows_the_game(said: list[Said], variant: str | None) -> Callable[[Result, Path], None]:
    """"Replay: `rulespec replay F` shows this game under the ruling, `... --variant X=Y`
    under that reading": the steps it shows are the example's, and under the reading asked."""
    def check(result: Result, folder: Path) -> None:
        for s in said:
            assert re.search(r"Replay: `rulespec replay [^`]+` shows this game under the "
                             r"ruling, `rulespec replay [^`]+ --variant [^`]+` under that "
                             r"reading\.", s.line), s.where
            assert _replayed_steps(result.stdout) == _game_shown(s.entry), s.where
        header = result.stdout.splitlines()[0]
        if variant is not None:
            assert re.search(rf"variants: (.*, )?{re.escape(variant)}(,|$)", header), header
    return check


def verdict_as_declared(said: list[Said]) -> Callable[[Result, Path], None]:
    """"Property (declared in the spec, checked by `rulespec check ...`): `P` fails [with N
    players]: ..." (or "can fail"): the row of P says so — a declared failure shown where the
    property fails, and never an unexpected failure or a failure not shown."""
    def check(result: Result, folder: Path) -> None:
        for s in said:
            m = re.search(r"Property \(declared in the spec, checked by `rulespec check (\S+)"
                          r"[^`]*`\): `(\w+)` (fails|can fail)(?: with ([\d, ]+) players)?",
                          s.line)
            assert m, f"{s.where}: not the sentence of a declared failure"
            game, prop, verb, counts = m.groups()
            row = re.search(rf"^{re.escape(game)}\s+{prop}\s+(.+)$", result.stdout, re.M)
            assert row, f"{s.where}: no row for {prop}"
            verdict = row.group(1)
            assert not re.search(r"failing|not shown|UNEXPECTEDLY|unknown|bounded|out of time",
                                 verdict), \
                f"{s.where}: {prop}: {verdict}"
            if verb == "fails":
                assert "expected failure" in verdict, f"{s.where}: {prop}: {verdict}"
                for n in (counts or "").replace(",", " ").split():
                    assert re.search(rf"expected failure (\d-)?{n}p|expected failure \d-\dp",
                                     verdict), f"{s.where}: {prop} at {n}p: {verdict}"
    return check


#: Where the FAQ's checks may run smaller than printed: the text speaks of one row. A
#: declared failure of a z3 query is shown by the witness the spec records (replayed on the
#: model), so the seeded games, the state machine and z3's budget for the other queries run
#: at a minimum; one of play is decided by the seeded games, so z3 and the state machine do
#: not run. Neither can pass falsely: a declared failure a smaller run does not show is
#: "failure not shown" or "UNEXPECTEDLY HOLDS", and the test fails (five games do not show
#: Lambada's game_ends failure; twenty do).
FAQ_CHECK_Z3 = {"--games": "2", "--profile": "none", "--z3-budget": "1"}
FAQ_CHECK_PLAY = {"--games": "20", "--profile": "none", "--no-z3": None}
WHY_FAQ_CHECK = ("the row the text speaks of only: a z3 query's recorded witness, or 20 "
                 "seeded games for a property of play")


def faq_doc(command: str, said: list[Said]) -> Doc:
    """What the FAQ says of one of its commands, by the sentence that prints it."""
    words = shlex.split(command)
    if words[1] == "play":
        return Doc(setup=(PUBLISHED_PARTINGS,), check=deals_the_example(said))
    if words[1] == "replay":
        variant = words[words.index("--variant") + 1] if "--variant" in words else None
        return Doc(setup=(PUBLISHED_PARTINGS,), check=shows_the_game(said, variant))
    if words[1] == "check":
        props = {m.group(1) for s in said
                 for m in [re.search(r"`\): `(\w+)` (?:fails|can fail)", s.line)] if m}
        z3 = all(p.startswith("z3_") for p in props)
        # a declared failure leaves other rows undecided (coverage, a witness recorded for
        # the default reading only): exit 3, and 0 where it does not; 1 would be a failure
        return Doc(exit=3, reduce=FAQ_CHECK_Z3 if z3 else FAQ_CHECK_PLAY, why=WHY_FAQ_CHECK,
                   check=verdict_as_declared(said))
    raise AssertionError(f"{said[0].where}: the test does not know what `{command}` is "
                         "to do: teach faq_doc")


def test_the_faq_prints_commands() -> None:
    """The reading of the FAQ finds what it prints (a guard against a broken parser)."""
    kinds = {shlex.split(c)[1] for c in FAQ_SAYS}
    assert {"play", "replay", "check", "faq"} <= kinds, kinds
    assert faq_entries("- **a**\n  b `rulespec x`\nc\n") == [(1, "- **a**\n  b `rulespec x`"),
                                                            (3, "c")]
    replays = [c for c in FAQ_SAYS if c.startswith("rulespec replay ")]
    assert sum("--variant" in c for c in replays) * 2 == len(replays)


def test_every_faq_command_names_a_game_of_spec() -> None:
    for command in FAQ_SAYS:
        m = FAQ_SPEC.match(command)
        if m:
            assert m.group(1) in GAMES, command


def _short(command: str) -> str:
    """A test id: the command without `rulespec ` and the store's folder (pytest numbers
    long ids instead of showing them)."""
    return command.removeprefix("rulespec ").replace("docs/faq/partings/", "").replace(
        ".yaml", "").replace("--variant ", "+")


@pytest.mark.parametrize("command", sorted(FAQ_SAYS), ids=_short)
def test_faq_command_does_what_the_text_says(command: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Every distinct command in docs/faq/*.md, run once, checked against every sentence
    that prints it. A command the docs show too (the one that publishes the FAQ) is run by
    test_documented_command_does_what_the_text_says."""
    said = FAQ_SAYS[command]
    if command in DOCUMENTED:
        assert command in COMMANDS, missing_entry(command, [s.where for s in said])
        return
    doc = faq_doc(command, said)
    (tmp_path / "spec").symlink_to(ROOT / "spec", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RULESPEC_CACHE", str(tmp_path / ".rulespec-cache"))
    for step in doc.setup:
        assert not isinstance(step, Run)
        step(tmp_path)
    words = reduced(command, doc)
    result = run(words, tmp_path)
    expected = {doc.exit, 0} if words[1] == "check" else {doc.exit}
    assert result.exit_code in expected, explain(result, words)
    assert doc.check is not None
    try:
        doc.check(result, tmp_path)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{explain(result, words)}") from e
