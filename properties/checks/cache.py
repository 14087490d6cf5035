"""The result cache of `rulespec check`: each row's result, kept under what decides it.

A row's result is decided by the game as it plays (the IR of one player count and one
choice of variants), by what is asked of it (the property or z3 query, the profile and
its numbers), and by the code that answers. The key of an entry is a digest of exactly
these, so a change re-runs what it can affect and nothing else:

- `fingerprint(ir)` is the IR after constant folding (an `if` whose test the chosen
  variants make constant is replaced by the branch taken, as the code generator does),
  without what does not change play: source positions, rulebook citations and prose
  (title, the ambiguities' questions and rationales, the `expect` entries, which the
  table applies to a result afresh on every run). A clause moved down by an edit above
  it, a new citation, or a change inside a branch this configuration never takes, keeps
  the entry.
- `tool_version(part)` is the package version, a digest of the source of the code
  that computes that part's results, and the versions of the libraries it relies on.

The text of a result that holds names no spec position. Any other result may (a
message such as "the loop at spec line 402 ran more than its max"), so its entry also
records where every clause is and what it cites (`Fingerprint.sources`), and is used
only while those are unchanged. Coverage names clauses by position; an entry stores
them by their place in the folded IR (`Fingerprint.paths`) and they are named by the
current positions when read.

Entries are JSON files (never pickle: the cache is untrusted input, as a spec is),
written atomically (a temporary file, then a rename). A file that cannot be read, is
not JSON, or does not have an entry's shape is ignored with a warning, and the row is
computed again. The folder is `$RULESPEC_CACHE`, else `.rulespec-cache/` in the
current folder.

Anybody can compute the keys, so a key proves nothing about a result: a cache folder
committed beside a spec, or copied from elsewhere, could make a failing spec pass. So
every entry carries an HMAC-SHA256 (`digest`) of its key and content, keyed by a secret
of this user kept outside the cache folder and the repository (`secret_file`: one random
secret per user in the user's state directory, created 0600 on first use) combined with
the cache folder's resolved path. An entry written by another user, in another folder,
or edited since it was written does not verify: it is ignored (one warning per run) and
computed again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from model import ir
from model.fold import fold
from model.safe_write import make_folder, write_text

#: The layout of an entry; a change to it makes every older entry a miss.
FORMAT = 2
#: The largest cache file read; a bigger one is not an entry this tool wrote.
MAX_ENTRY_BYTES = 8 * 1024 * 1024


def default_folder() -> Path:
    return Path(os.environ.get("RULESPEC_CACHE") or ".rulespec-cache")


# ------------------------------------------------------------------ fingerprints
@attrs.frozen
class Fingerprint:
    """What decides a configuration's results, as digests."""

    play: str  # the folded IR without positions, citations and prose
    sources: str  # every clause's position and citations (for results whose text may name them)
    paths: dict[str, str]  # "line:column" of every statement -> its place in the folded IR


#: Fields of the game that do not change how it plays (the table reads them afresh).
_PROSE = frozenset({"title", "file", "sources", "ambiguities", "expectations"})
#: Fields of clauses that say where a clause is written and what it cites.
_PLACE = frozenset({"where", "cite"})
_BODIES = ("then", "orelse", "body")


def fingerprint(g: ir.GameIR) -> Fingerprint:
    canon = _Canon()
    plain = canon.game(g)
    return Fingerprint(_digest(plain), _digest(canon.places), canon.paths)


class _Canon:
    """The IR as plain JSON data; records positions and statement places on the way."""

    def __init__(self) -> None:
        self.places: list[Any] = []
        self.paths: dict[str, str] = {}

    def game(self, g: ir.GameIR) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in attrs.fields(type(g)):
            if f.name in _PROSE:
                continue
            value = getattr(g, f.name)
            if f.name in ("setup", "round_start", "scoring"):
                out[f.name] = self.body(value, f.name)
            elif f.name == "actions":
                out[f.name] = [self.action(a) for a in value]
            else:
                out[f.name] = self.value(value, f.name)
        return out

    def action(self, a: ir.ActionDecl) -> dict[str, Any]:
        path = f"action {a.name}"
        self.places.append([path, a.where.line, a.where.column, list(a.cite)])
        return {f.name: (self.body(getattr(a, f.name), path) if f.name == "effects"
                         else self.value(getattr(a, f.name), path))
                for f in attrs.fields(type(a)) if f.name not in _PLACE}

    def body(self, stmts: Iterable[ir.Stmt], path: str) -> list[Any]:
        out: list[Any] = []
        for s in _folded(stmts, self.places):
            here = f"{path}/{len(out)}"
            if s.where.line:
                self.paths[f"{s.where.line}:{s.where.column}"] = here
            self.places.append([here, s.where.line, s.where.column, list(s.cite)])
            fields: dict[str, Any] = {"": type(s).__name__}
            for f in attrs.fields(type(s)):
                if f.name in _PLACE:
                    continue
                value = getattr(s, f.name)
                fields[f.name] = (self.body(value, f"{here}.{f.name}") if f.name in _BODIES
                                  else self.value(value, here))
            out.append(fields)
        return out

    def value(self, v: Any, path: str) -> Any:
        if isinstance(v, ir.Expr):
            return _plain(fold(v))
        if isinstance(v, ir.Condition):
            self.places.append([f"{path} {v.name}", 0, 0, list(v.cite)])
            return {"": "Condition", "name": v.name, "expr": _plain(fold(v.expr))}
        if isinstance(v, tuple | list):
            return [self.value(x, path) for x in v]
        if attrs.has(type(v)):
            return {"": type(v).__name__,
                    **{f.name: self.value(getattr(v, f.name), path)
                       for f in attrs.fields(type(v)) if f.name not in _PLACE}}
        return _plain(v)


def _folded(stmts: Iterable[ir.Stmt], places: list[Any]) -> Iterator[ir.Stmt]:
    """The statements as the code generator emits them: an `if` whose test folds to a
    constant is replaced by the branch taken (its place is still recorded)."""
    for s in stmts:
        if isinstance(s, ir.If):
            test = fold(s.test)
            if isinstance(test, ir.Const):
                places.append(["folded", s.where.line, s.where.column, list(s.cite)])
                yield from _folded(s.then if test.value else s.orelse, places)
                continue
        yield s


def _plain(v: Any) -> Any:
    """An IR value (an expression, a type, a constant) as JSON data, type names included."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):  # in insertion (spec) order: order may matter to a back end
        return {"dict": [[_plain(k), _plain(x)] for k, x in v.items()]}
    cls: type = type(v)  # type(v) of an Any is type[Any], which mypy does not count as Hashable
    names = _fields(cls)
    if names is not None:
        return {"": type(v).__name__, **{n: _plain(getattr(v, n)) for n in names}}
    raise TypeError(f"cannot fingerprint a {type(v).__name__} in the IR")


@functools.cache
def _fields(cls: type) -> tuple[str, ...] | None:
    """The fields of an attrs class that decide play (None: not an attrs class)."""
    if not attrs.has(cls):
        return None
    return tuple(f.name for f in attrs.fields(cls) if f.name not in _PLACE)


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def key_of(**parts: Any) -> str:
    """The key of an entry: a digest of everything that decides it."""
    return _digest({"format": FORMAT, **parts})


# ------------------------------------------------------------------ tool version
_ROOT = Path(__file__).resolve().parent.parent.parent

#: Per kind of result, the code that computes it (relative to the repository root).
CODE: dict[str, tuple[str, ...]] = {
    "concrete": ("model", "properties/concrete", "properties/checks/work.py",
                 "properties/checks/cache.py"),
    "z3": ("model", "properties/symbolic", "properties/search", "properties/checks/z3rows.py",
           "properties/checks/work.py", "properties/checks/cache.py"),
}
_LIBRARIES = {"concrete": ("hypothesis",), "z3": ("z3-solver",)}
_VERSIONS: dict[str, str] = {}


def tool_version(part: str) -> str:
    """The package version, a digest of the code that computes `part`'s results, and the
    versions of the libraries and Python it runs on."""
    if part not in _VERSIONS:
        from importlib import metadata

        def version(dist: str) -> str:
            try:
                return metadata.version(dist)
            except metadata.PackageNotFoundError:
                return "none"

        h = hashlib.sha256()
        for name in CODE[part]:
            top = _ROOT / name
            for f in sorted(top.rglob("*.py")) if top.is_dir() else [top]:
                h.update(f.relative_to(_ROOT).as_posix().encode() + b"\0")
                h.update(f.read_bytes() + b"\0")
        libs = ",".join(f"{d}={version(d)}" for d in _LIBRARIES[part])
        _VERSIONS[part] = (f"rulespec={version('rulespec')},code={h.hexdigest()[:16]},{libs},"
                           f"python={sys.version_info.major}.{sys.version_info.minor}")
    return _VERSIONS[part]


# ------------------------------------------------------------------ the secret
#: Bytes of a new secret (written as hex); a shorter secret file is not one this tool wrote.
SECRET_BYTES = 32
#: What the HMAC of an entry covers, in this order (the key first).
SIGNED = ("format", "key", "about", "sources", "result")


class SecretError(Exception):
    """The secret that signs cache entries cannot be read or made."""


def secret_file() -> Path:
    """Where this user's cache secret lives: `$RULESPEC_CACHE_SECRET_FILE`, else
    `rulespec/cache-secret` in `$XDG_STATE_HOME` (default `~/.local/state`). Never in a
    cache folder or a checkout, so a folder committed or copied carries no secret."""
    explicit = os.environ.get("RULESPEC_CACHE_SECRET_FILE")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME")
    base = Path(state) if state and Path(state).is_absolute() else \
        Path.home() / ".local" / "state"
    return base / "rulespec" / "cache-secret"


def read_secret(path: Path) -> bytes:
    """This user's secret at `path`, made (random, mode 0600) if there is none yet.

    Refused (SecretError) when it is not a regular file of this user that only this user
    can read and write, or does not hold a secret of the expected form."""
    try:
        if not path.exists():
            _make_secret(path)
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            raise SecretError(f"{path} is not a regular file")
        if os.name == "posix" and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            raise SecretError(f"{path} must belong to this user and be readable by nobody else "
                              f"(chmod 600 {path})")
        with open(path, "rb") as f:
            text = f.read(4 * SECRET_BYTES + 1).strip()
    except OSError as exc:
        raise SecretError(f"cannot read or create {path}: {exc.strerror or exc}") from None
    if not re.fullmatch(rb"[0-9a-f]{%d,%d}" % (2 * SECRET_BYTES, 4 * SECRET_BYTES), text):
        raise SecretError(f"{path} does not hold a secret of {SECRET_BYTES} random bytes in hex "
                          "(delete it and a new one is made)")
    return bytes.fromhex(text.decode("ascii"))


def _make_secret(path: Path) -> None:
    """A new random secret at `path`, mode 0600, made atomically (a process racing this
    one either makes it first, and its secret is kept, or finds this one's)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-secret-")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(SECRET_BYTES) + "\n")
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            os.link(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def folder_key(secret: bytes, folder: Path) -> bytes:
    """The key that signs the entries of one cache folder: the user's secret combined
    with the folder's resolved path, so an entry moved to another folder does not verify."""
    place = os.fsencode(folder.resolve())
    return hmac.new(secret, b"rulespec cache folder\0" + place, hashlib.sha256).digest()


def entry_digest(key: bytes, entry: dict[str, Any]) -> str:
    """The HMAC-SHA256 of an entry's key and content (its JSON text, canonical)."""
    signed = [entry.get(name) for name in SIGNED]
    text = json.dumps(signed, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, text.encode("ascii"), hashlib.sha256).hexdigest()


# ------------------------------------------------------------------ the store
class Cache:
    """Entries in a folder, one JSON file each; `folder=None` keeps nothing (--no-cache).

    Each entry is signed with `folder_key` (this user's secret and the folder's place);
    one that does not verify is a miss, with one warning per run. Where the secret
    cannot be read or made, this run signs with a secret of its own, used by nobody
    else: nothing from an earlier run is trusted, and what it writes verifies only in
    this run."""

    def __init__(self, folder: Path | None, warn: Callable[[str], None] = print) -> None:
        self.folder = folder
        self.warn = warn
        self.hits = 0
        self.misses = 0
        self.unverified = 0  # entries that did not verify
        self._key: bytes | None = None

    def path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2] / f"{key}.json"

    def signing_key(self) -> bytes:
        """The key of this folder's digests (read or made once per Cache)."""
        assert self.folder is not None
        if self._key is None:
            try:
                secret = read_secret(secret_file())
            except SecretError as exc:
                self.warn(f"warning: the result cache trusts nothing from earlier runs: {exc}")
                secret = secrets.token_bytes(SECRET_BYTES)
            self._key = folder_key(secret, self.folder)
        return self._key

    def get(self, key: str, shape: Callable[[Any], bool], sources: str = "") -> Any:
        """The result stored under `key`, or None. An entry that records other `sources`
        (its text names a clause's place, and the places have changed) is a miss; a
        file that is not an entry of this shape is a miss with a warning, and so (one
        warning per run) is an entry whose digest does not verify."""
        if self.folder is None:
            return None
        path = self.path(key)
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                raise ValueError(f"larger than {MAX_ENTRY_BYTES} bytes")
            entry = json.loads(path.read_text(encoding="utf-8"))
            if not (isinstance(entry, dict) and entry.get("format") == FORMAT
                    and entry.get("key") == key and isinstance(entry.get("digest"), str)):
                raise ValueError("not an entry of this version of rulespec")
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
            self.warn(f"warning: ignoring the cache file {path}: {exc}")
            self.misses += 1
            return None
        try:
            verified = hmac.compare_digest(entry["digest"], entry_digest(self.signing_key(),
                                                                         entry))
        except (ValueError, TypeError, RecursionError):  # not text JSON writes back
            verified = False
        if not verified:
            if not self.unverified:
                self.warn(f"warning: ignoring cache entries that this user did not write in "
                          f"{self.folder} (copied, committed or edited; first {path}): "
                          "computing them again")
            self.unverified += 1
            self.misses += 1
            return None
        try:
            sound = isinstance(entry.get("sources"), str | None) and shape(entry.get("result"))
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
            sound = False
        if not sound:  # signed here, yet not of this shape: written by other code
            self.warn(f"warning: ignoring the cache file {path}: not an entry of this version "
                      "of rulespec")
            self.misses += 1
            return None
        if entry["sources"] is not None and entry["sources"] != sources:
            self.misses += 1
            return None
        self.hits += 1
        return entry["result"]

    def put(self, key: str, result: Any, sources: str | None = None, about: str = "") -> None:
        """Store `result` (JSON data) under `key`, valid only with these `sources` if
        given, signed for this folder. A folder that cannot be written is a warning (the
        results still show)."""
        if self.folder is None:
            return
        path = self.path(key)
        # signed as it reads back (JSON turns tuples into lists, keys into text)
        entry = json.loads(json.dumps({"format": FORMAT, "key": key, "about": about,
                                       "sources": sources, "result": result}))
        entry["digest"] = entry_digest(self.signing_key(), entry)
        try:
            _make_folder(self.folder)
            make_folder(path.parent)
            write_text(path, json.dumps(entry, separators=(",", ":")))
        except OSError as exc:
            self.warn(f"warning: cannot write the cache file {path}: {exc}")


def _make_folder(folder: Path) -> None:
    """The cache folder, with a .gitignore that keeps all of it out of git wherever it is
    (neither is made or written through a symbolic link)."""
    make_folder(folder)
    ignore = folder / ".gitignore"
    if not ignore.exists() or ignore.is_symlink():
        write_text(ignore, "# rulespec check's result cache\n*\n")


#: Text that may name a clause's place: "spec line 402", "play@212", "rules.en#L17", "f:3:5".
_PLACE_TEXT = re.compile(r"\blines?\b|@\d|#L\d|:\d+:\d+")


def names_a_place(result: Any) -> bool:
    """Whether a result's text may name a spec position or a citation (then it is kept
    only while the positions are unchanged). Coverage is left out: it is stored by place
    in the folded IR, not by position."""
    if isinstance(result, dict):
        result = {k: v for k, v in result.items() if k != "coverage"}
    return bool(_PLACE_TEXT.search(json.dumps(result)))
