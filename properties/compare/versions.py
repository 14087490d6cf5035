"""The two versions `rulespec diff` compares: each a spec path, a game id of spec/, or
PATH@REV (that file at a git revision, read with `git cat-file` once its size is known
to be that of a spec), with its own variants.

A revision's text is written to a private temporary file so that the rest of rulespec can
load it like any spec; errors in it are reported against `PATH@REV`, never the temporary
path.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

import model
from model import SpecError, Where, ir
from model.limits import MAX_FILE_BYTES
from model.loader import resolve_spec_path
from model.safe_write import write_text
from model.source import read_yaml

_TEMP: list[Path] = []


@attrs.frozen
class Version:
    """One side of a comparison: where its text is, and the readings chosen."""

    label: str  # as the user wrote it: spec/game.yaml@HEAD, game, my-game.yaml
    path: Path  # a file holding the spec text (a temporary copy for PATH@REV)
    variants: dict[str, str] = attrs.field(factory=dict, eq=False)
    revision: str | None = None

    @property
    def spec(self) -> str:
        """What `model.load` takes for this version."""
        return str(self.path)

    def ir(self, players: int) -> ir.GameIR:
        with self.errors():
            return model.load_ir(self.path, players=players, variants=self.variants)

    def game(self, players: int) -> model.Game:
        with self.errors():
            return model.load(str(self.path), players=players, variants=self.variants)

    def raw(self) -> dict[str, Any]:
        """The spec's YAML as plain data (for what the IR no longer holds: raw params)."""
        with self.errors():
            data = read_yaml(self.path).data
        return data if isinstance(data, dict) else {}

    def player_range(self) -> tuple[int, int]:
        from model.loader import any_player_count

        with self.errors():
            g = model.load_ir(self.path, players=any_player_count(self.path),
                              variants=self.variants)
        return g.min_players, g.max_players

    def errors(self) -> _Relabel:
        return _Relabel(self)

    def shown(self, other: Version | None = None) -> str:
        """The label, with the variants when they tell the two sides apart."""
        if other is not None and other.label == self.label and self.variants != other.variants:
            chosen = ", ".join(f"{k}={v}" for k, v in sorted(self.variants.items()))
            return f"{self.label} ({chosen or 'default readings'})"
        return self.label


class _Relabel:
    """Errors in a revision's temporary copy, reported against PATH@REV."""

    def __init__(self, version: Version) -> None:
        self.v = version

    def __enter__(self) -> None:
        return None

    def __exit__(self, tp: Any, exc: BaseException | None, tb: Any) -> Literal[False]:
        if isinstance(exc, SpecError) and self.v.revision is not None:
            w = exc.where
            if w is not None and Path(w.file) == self.v.path:
                raise SpecError(Where(self.v.label, w.line, w.column), exc.message) from None
            raise SpecError(Where(self.v.label), exc.message) from None
        return False


def read_version(arg: str, variants: Mapping[str, str] | None = None) -> Version:
    """A version from its command-line form: a path, a game id, or PATH@REV."""
    if not arg:
        raise SpecError(None, "a version is a spec path, a game id of spec/, or PATH@REV")
    if "@" in arg and not Path(arg).exists():
        path_text, _, rev = arg.rpartition("@")
        if not path_text or not rev:
            raise SpecError(Where(arg), "write a revision as PATH@REV, e.g. spec/game.yaml@HEAD")
        path = Path(path_text)
        if not path.suffix and not path.exists():
            path = resolve_spec_path(path_text)  # a game id: its file in spec/
        return Version(arg, _from_git(path, rev, arg), dict(variants or {}), rev)
    path = resolve_spec_path(arg)
    if not path.exists():
        raise SpecError(Where(str(path)), "no such file")
    return Version(arg, path, dict(variants or {}))


def _git(folder: Path, label: str, *args: str) -> bytes:
    """The output of `git -C folder args...`; a failure is the revision's error."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SpecError(Where(label), f"cannot run git: {exc}") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = why[0].removeprefix("fatal: ") if why else f"git exited {done.returncode}"
        raise SpecError(Where(label), f"git cannot show this revision: {reason}")
    return done.stdout


def _from_git(path: Path, rev: str, label: str) -> Path:
    """The file at a revision, copied to a private temporary file. Its size is asked of
    git first: a file larger than a spec may be (`max_file_bytes`) is never read."""
    if rev.startswith("-"):
        raise SpecError(Where(label), f"{rev!r} is not a revision")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SpecError(Where(label), f"no folder {str(folder)!r} to read the revision in")
    name = f"{rev}:./{path.name}"
    kind = _git(folder, label, "cat-file", "-t", name).decode("ascii", "replace").strip()
    if kind != "blob":
        raise SpecError(Where(label), f"at {rev}, {path.name} is a {kind}, not a file")
    size = int(_git(folder, label, "cat-file", "-s", name))
    if size > MAX_FILE_BYTES:
        raise SpecError(Where(label), f"the file at {rev} is {size:,} bytes, over the limit of "
                                      f"{MAX_FILE_BYTES:,} (max_file_bytes)")
    data = _git(folder, label, "cat-file", "blob", name)
    if len(data) > MAX_FILE_BYTES:  # the revision moved on between the two calls
        raise SpecError(Where(label), f"the file at {rev} is over the limit of "
                                      f"{MAX_FILE_BYTES:,} bytes (max_file_bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(Where(label), "the file at this revision is not UTF-8 text") from None
    folder_tmp = Path(tempfile.mkdtemp(prefix="rulespec-rev-"))
    if not _TEMP:
        atexit.register(_cleanup)
    _TEMP.append(folder_tmp)
    out = folder_tmp / (path.name if path.suffix in (".yaml", ".yml") else f"{path.name}.yaml")
    return write_text(out, text)


def _cleanup() -> None:
    for folder in _TEMP:
        shutil.rmtree(folder, ignore_errors=True)
    _TEMP.clear()


def player_counts(old: Version, new: Version, asked: Iterable[int] = ()) -> list[int]:
    """The asked-for player counts (each allowed by both), or every count both allow."""
    lo_o, hi_o = old.player_range()
    lo_n, hi_n = new.player_range()
    lo, hi = max(lo_o, lo_n), min(hi_o, hi_n)
    asked = list(dict.fromkeys(asked))
    for n in asked:
        for v, (a, b) in ((old, (lo_o, hi_o)), (new, (lo_n, hi_n))):
            if not a <= n <= b:
                raise SpecError(Where(v.label), f"this version is for {a} to {b} players, "
                                                f"not {n}")
    if asked:
        return sorted(asked)
    if lo > hi:
        raise SpecError(None, f"no player count is allowed by both versions ({old.label}: "
                              f"{lo_o} to {hi_o}; {new.label}: {lo_n} to {hi_n})")
    return list(range(lo, hi + 1))
