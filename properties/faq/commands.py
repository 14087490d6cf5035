"""The `rulespec` commands the FAQ prints, each complete: run as printed (from the folder
the FAQ was published from), it does what the sentence around it says.

One place writes them, for the Markdown and the site alike; `tests/test_docs_commands.py`
reads every command out of the published FAQ and runs it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from model.schema import SPEC_DIR


class Search(Protocol):
    """The options of a parting search (`partings.Search`) a `rulespec faq` run names;
    `Search()` of its type is the search made without options."""

    # read-only (properties): `partings.Search` is frozen
    @property
    def z3_limit(self) -> int: ...
    @property
    def games(self) -> int: ...
    @property
    def examples(self) -> int: ...
    @property
    def statistics_games(self) -> int: ...


def spec_argument(path: Path) -> str:
    """How a command names the spec at `path`: its game id where that finds this very file
    (a spec of the package's spec/), else the path."""
    packaged = SPEC_DIR / f"{path.stem}.yaml"
    try:
        if packaged.exists() and packaged.resolve() == path.resolve():
            return path.stem
    except OSError:
        pass
    return str(path)


def _join(words: Iterable[str]) -> str:
    return shlex.join(["rulespec", *words])


def _variant_words(variants: Mapping[str, str]) -> list[str]:
    return [w for k, v in sorted(variants.items()) for w in ("--variant", f"{k}={v}")]


def play(spec: str, players: int, seed: int) -> str:
    """A random game from the deal of `seed`: the deal is the example's."""
    return _join(["play", spec, "-p", str(players), "--seed", str(seed)])


def replay(file: str, variants: Mapping[str, str] | None = None) -> str:
    """A parting game step by step, under the ruling or under the readings given."""
    return _join(["replay", file, *_variant_words(variants or {})])


def check(spec: str, players: Iterable[int], variants: Mapping[str, str]) -> str:
    """`rulespec check` of the configuration a declared failure is about."""
    counts = [w for n in sorted(players) for w in ("-p", str(n))]
    return _join(["check", spec, *counts, *_variant_words(variants)])


def faq(specs: Iterable[str] = (), *, store: Path | None = None, players: int | None = None,
        search: Search | None = None, out: Path | None = None,
        html: Path | None = None) -> str:
    """The `rulespec faq` run that writes a FAQ again (printing it when neither `out` nor
    `html` is given): the specs as named (none: every spec of spec/), and every option
    that is not the default."""
    words = [*specs]
    if players is not None:
        words += ["-p", str(players)]
    if store is not None:
        words += ["--partings", store.as_posix()]
    if search is not None:
        default = type(search)()  # the search `rulespec faq` makes without options
        if search.z3_limit != default.z3_limit:
            words += ["--z3-budget", f"{search.z3_limit // 1_000_000}"]
        for option, value, usual in (("--games", search.games, default.games),
                                     ("--examples", search.examples, default.examples),
                                     ("--statistics-games", search.statistics_games,
                                      default.statistics_games)):
            if value != usual:
                words += [option, str(value)]
    if out is not None:
        words += ["--out", out.as_posix()]
    if html is not None:
        words += ["--html", html.as_posix()]
    return _join(["faq", *words])
