"""Where games run: in this process, on every local core, or on a Dask cluster.

Work is cut into `Chunk`s: a version of a game, a player count, a policy and a range of
game indices. A game's seed depends on its index alone (`game_seed`), so a chunk gives
the same records wherever and whenever it runs, and the statistics are the same for
any number of jobs. A runner takes a list of chunks and yields their records as they
finish, until a deadline; what had not finished by then is dropped (the caller keeps
only complete prefixes of game indices, so the result depends on how many games
finished, never on which worker was faster).
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import hashlib
import re
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

import model
from model.rulebooks import RULEBOOKS
from model.safe_write import make_folder, write_text
from model.source import read_text

from .policies import GameRecord, play_game


@attrs.frozen
class Version:
    """One version of a game: the spec's text (so a remote worker needs no file), a label
    for reports, the chosen variants and, when there is one, the local file it came from."""

    label: str
    text: str = attrs.field(repr=False)
    variants: tuple[tuple[str, str], ...] = ()
    path: str | None = None
    #: (file name, text) of the rulebooks the spec cites, when they do not ship with rulespec:
    #: a copy of the spec elsewhere finds them beside it.
    rulebooks: tuple[tuple[str, str], ...] = attrs.field(default=(), repr=False)

    @classmethod
    def of(cls, spec: str | Path, variants: Mapping[str, str] | None = None,
           label: str | None = None) -> Version:
        """A version from a spec path or a game id of spec/."""
        path = model.resolve_spec_path(spec)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise model.SpecError(model.Where(str(path)), f"cannot read the spec: {exc}") from None
        return cls(label or str(spec), text, tuple(sorted((variants or {}).items())), str(path),
                   _rulebooks_beside(path))

    def with_text(self, label: str, text: str) -> Version:
        """Another version of the same game (an edited text), citing the same rulebooks."""
        return Version(label, text, self.variants, None, self.rulebooks)

    def file(self) -> Path:
        """A file of this machine holding the text: its own, or a copy in a temporary folder
        (with the rulebooks it cites beside it)."""
        if self.path is not None and _same_text(Path(self.path), self.text):
            return Path(self.path)
        return _spec_file(self.text, self.rulebooks)

    def load(self, players: int) -> model.Game:
        return model.load(self.file(), players=players, variants=dict(self.variants))


def _same_text(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except OSError:
        return False


def _rulebooks_beside(path: Path) -> tuple[tuple[str, str], ...]:
    """The rulebooks in a `rulebooks/` folder beside a spec (those of spec/ ship with rulespec)."""
    folder = path.resolve().parent / "rulebooks"
    if folder.resolve() == RULEBOOKS.resolve() or not folder.is_dir():
        return ()
    return tuple((book.name, read_text(book)) for book in sorted(folder.glob("*.txt")))


def _spec_file(text: str, rulebooks: tuple[tuple[str, str], ...] = ()) -> Path:
    """The spec text as a file of this machine (a worker elsewhere has no copy), in a folder
    of its own with its rulebooks beside it. The folder is shared by every process of the
    machine: a file found there with other text (or a link) is not used as it is."""
    digest = hashlib.sha256(repr((text, rulebooks)).encode()).hexdigest()[:24]
    folder = make_folder(Path(tempfile.gettempdir()) / "rulespec-specs" / digest)
    path = folder / "spec.yaml"
    if not _same_text(path, text) or path.is_symlink():
        books = make_folder(folder / "rulebooks") if rulebooks else folder
        for name, book in rulebooks:
            if not _same_text(books / name, book):
                write_text(books / name, book)
        write_text(path, text)
    return path


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a run seeded `seed` (runs with other seeds share no game)."""
    return seed * 2**32 + index


@attrs.frozen
class Chunk:
    """Games `start` .. `start + count - 1` of one version, player count and policy."""

    version: Version
    players: int
    policy: str
    seed: int
    start: int
    count: int
    max_actions: int


def play_chunk(chunk: Chunk) -> list[GameRecord]:
    """Play a chunk's games (in whatever process or worker this runs)."""
    game = chunk.version.load(chunk.players)
    return [play_game(game, chunk.policy, game_seed(chunk.seed, i), i, chunk.max_actions)
            for i in range(chunk.start, chunk.start + chunk.count)]


Results = Iterator[tuple[Chunk, list[GameRecord]]]


class InlineRunner:
    """Runs chunks one after another in this process (--jobs 1)."""

    jobs = 1

    def run(self, chunks: list[Chunk], deadline: float | None) -> Results:
        for c in chunks:
            if deadline is not None and time.monotonic() >= deadline:
                return
            yield c, play_chunk(c)

    def close(self) -> None:
        pass


class ProcessRunner:
    """Runs chunks on `jobs` local processes."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool = cf.ProcessPoolExecutor(max_workers=jobs)

    def run(self, chunks: list[Chunk], deadline: float | None) -> Results:
        futures = {self.pool.submit(play_chunk, c): c for c in chunks}
        try:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            for f in cf.as_completed(futures, timeout=left):
                yield futures[f], f.result()
        except cf.TimeoutError:
            pass
        finally:
            for f in futures:
                f.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


#: Seconds a Dask scheduler has to answer (the connection and its handshake) before
#: `--scheduler` gives up.
SCHEDULER_TIMEOUT = 10.0
#: The protocols of a scheduler address rulespec connects to.
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss")
_ADDRESS = re.compile(r"(?:(?P<protocol>[a-z][a-z0-9+.-]*)://)?"
                      r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})")


#: The address of a scheduler of this process (a LocalCluster without processes).
_IN_PROCESS = re.compile(r"inproc://[0-9A-Za-z_.:-]+/[0-9]+/[0-9]+")


def scheduler_problem(address: str) -> str | None:
    """Why `address` is not a Dask scheduler address ([tcp|tls|ws|wss://]HOST:PORT, the
    port from 1 to 65535, or the inproc:// address of a scheduler in this process), or
    None; nothing is connected to."""
    if _IN_PROCESS.fullmatch(address):
        return None
    m = _ADDRESS.fullmatch(address)
    if m is None:
        return "write a scheduler address as [tcp://]HOST:PORT, e.g. tcp://127.0.0.1:8786"
    if m["protocol"] is not None and m["protocol"] not in SCHEDULER_PROTOCOLS:
        return (f"the protocol {m['protocol']!r} is not one of "
                f"{', '.join(SCHEDULER_PROTOCOLS)}")
    if not 1 <= int(m["port"]) <= 65535:
        return f"the port {m['port']} is not from 1 to 65535"
    return None


def _answers(address: str, timeout: float) -> None:
    """Connect to the scheduler at `address` and close again, all within `timeout`
    seconds: Dask's own connect gives up on a refused connection, but waits for ever for
    a handshake a listening port never sends. Raises OSError or TimeoutError."""
    from distributed.comm import connect

    async def probe() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    asyncio.run(asyncio.wait_for(probe(), timeout))


class DaskRunner:
    """Runs chunks on a Dask distributed cluster (the optional extra `[cluster]`)."""

    def __init__(self, address: Any, timeout: float = SCHEDULER_TIMEOUT) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise model.SpecError(None, "--scheduler needs Dask: pip install 'rulespec[cluster]'"
                                  ) from None
        if isinstance(address, str):
            problem = scheduler_problem(address)
            if problem is not None:
                raise model.SpecError(None, f"--scheduler {address!r}: {problem}")
            try:  # a scheduler that does not answer is said before a client waits on it
                if not _IN_PROCESS.fullmatch(address):  # (one in this process answers)
                    _answers(address, timeout)
            except (OSError, TimeoutError, ValueError) as exc:
                why = str(exc) or "no answer"
                if isinstance(exc, TimeoutError):
                    why = f"no answer within {timeout:g} s"
                raise model.SpecError(None, f"--scheduler {address}: cannot reach a Dask "
                                            f"scheduler there: {why}") from None
        try:
            self.client = Client(address, timeout=f"{timeout:g}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise model.SpecError(None, f"cannot reach the Dask scheduler at {address}: {exc}"
                                  ) from None
        self.jobs = max(1, sum(self.client.nthreads().values()))

    def run(self, chunks: list[Chunk], deadline: float | None) -> Results:
        from distributed import as_completed

        futures = {self.client.submit(play_chunk, c, pure=False): c for c in chunks}
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        pending = set(futures)
        try:
            with self.client.as_current():  # as_completed asks for the current client
                for f in as_completed(futures, timeout=left):
                    pending.discard(f)
                    yield futures[f], f.result()
        except TimeoutError:
            pass
        finally:
            if pending:
                self.client.cancel(list(pending))

    def close(self) -> None:
        self.client.close()


def make_runner(jobs: int, scheduler: Any = None) -> InlineRunner | ProcessRunner | DaskRunner:
    if scheduler is not None:
        return DaskRunner(scheduler)
    return InlineRunner() if jobs <= 1 else ProcessRunner(jobs)
