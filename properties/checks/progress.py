"""Progress of `rulespec check` on stderr: what runs, how long it has taken, what is left.

On a terminal it is one line, rewritten in place about twice a second; otherwise (a CI
log, a pipe) one plain line per finished job, and every half minute one for the jobs
still running. The estimate of what is left comes from
how long each job took the last time it ran (`Timings`, kept beside the cache), else
from the jobs of its kind finished so far in this run.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from model.safe_write import make_folder, write_text

#: Seconds between the lines naming the jobs still running, when not on a terminal.
HEARTBEAT = 30.0
#: Seconds a job of each kind is guessed to take, per unit of its weight (a z3 job: per
#: query), before any has finished.
GUESS = {"spec_valid": 2.0, "configuration": 3.0, "z3": 15.0}


class JobLike(Protocol):
    kind: str
    weight: float

    @property
    def name(self) -> str: ...


#: The longest time a job is believed to have taken (a week); more is not a time it took.
MAX_SECONDS = 7 * 24 * 3600.0


def _a_time(value: object) -> bool:
    """Whether a value read from timings.json (untrusted, like the cache) is a time a job
    can have taken: a number, finite, from zero to MAX_SECONDS (not NaN, not 10**400)."""
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and 0 <= value <= MAX_SECONDS)


class Timings:
    """How long each job took when it last ran, by its name (a JSON file in the cache)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}
        self.now: dict[str, list[float]] = {}  # per kind, this run, per unit of weight
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                self.seconds = {k: float(v) for k, v in data["seconds"].items()
                                if isinstance(k, str) and _a_time(v)}
            except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
                self.seconds = {}  # only estimates: a bad file is simply not used

    def estimate(self, job: JobLike) -> float:
        key = f"{job.kind} {job.name}"
        if key in self.seconds:
            return self.seconds[key]
        done = self.now.get(job.kind)
        return job.weight * (sum(done) / len(done) if done else GUESS.get(job.kind, 5.0))

    def record(self, job: JobLike, seconds: float) -> None:
        self.seconds[f"{job.kind} {job.name}"] = seconds
        self.now.setdefault(job.kind, []).append(seconds / job.weight)

    def save(self) -> None:
        if self.path is None:
            return
        try:
            make_folder(self.path.parent)
            write_text(self.path, json.dumps({"seconds": self.seconds}, indent=0,
                                             sort_keys=True))
        except OSError:
            pass  # estimates only


def duration(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """Reports jobs starting and finishing; thread-safe."""

    def __init__(self, jobs: list[Any], workers: int, timings: Timings,
                 write: Callable[[str], None], terminal: bool) -> None:
        self.total = len(jobs)
        self.workers = max(workers, 1)
        self.timings = timings
        self.write = write
        self.terminal = terminal
        self.t0 = time.perf_counter()
        self.pending = {id(j): j for j in jobs}
        self.running: dict[int, tuple[Any, float]] = {}
        self.done = 0
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._width = 0
        if self.total:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def started(self, job: Any) -> None:
        with self.lock:
            self.pending.pop(id(job), None)
            self.running[id(job)] = (job, time.perf_counter())
            if self.terminal:
                self._draw()

    def finished(self, job: Any) -> float:
        """Record a finished job; returns how long it ran."""
        with self.lock:
            _, t = self.running.pop(id(job), (job, time.perf_counter()))
            seconds = time.perf_counter() - t
            self.timings.record(job, seconds)
            self.done += 1
            if self.terminal:
                self._draw()
            else:
                self.write(f"[{self.done}/{self.total}] {job.name}: {seconds:.1f} s; "
                           f"{self._status()}\n")
            return seconds

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self.terminal and self._width:
            # a write may only begin with \r (properties/cli/terminal.py)
            self.write("\r" + " " * self._width)
            self.write("\r")

    def left(self) -> float:
        """Seconds of work left, spread over the workers (an estimate)."""
        now = time.perf_counter()
        work = sum(self.timings.estimate(j) for j in self.pending.values())
        work += sum(max(self.timings.estimate(j) - (now - t), 1.0)
                    for j, t in self.running.values())
        busy = min(self.workers, len(self.pending) + len(self.running)) or 1
        return work / busy

    def _status(self) -> str:
        return (f"{duration(time.perf_counter() - self.t0)} elapsed, "
                f"about {duration(self.left())} left")

    def _draw(self) -> None:
        running = ", ".join(j.name for j, _ in self.running.values()) or "-"
        line = f"[{self.done}/{self.total}] {self._status()}; running: {running}"
        width = shutil.get_terminal_size((100, 20)).columns - 1
        line = line[:width]
        self.write("\r" + line + " " * max(self._width - len(line), 0))
        self._width = len(line)

    def _tick(self) -> None:
        every = 0.5 if self.terminal else HEARTBEAT
        while not self._stop.wait(every):
            with self.lock:
                if self.terminal:
                    self._draw()
                elif self.running:
                    now = time.perf_counter()
                    running = ", ".join(f"{j.name} ({duration(now - t)})"
                                        for j, t in self.running.values())
                    self.write(f"[{self.done}/{self.total}] still running: {running}; "
                               f"{self._status()}\n")
