"""Runs the jobs of `rulespec check`, `workers` at a time.

The jobs of the concrete checks run in worker processes (started fresh, "spawn": no
state of this process leaks into a run); a z3 job waits on the worker process its
queries run in (properties/symbolic/isolate.py), so it runs in a thread here. Each job
computes the same results in any process and order (it is seeded on its own), so the
rows do not depend on `workers`. The longest jobs (by the last run's times) start
first, so that no long job is left running alone at the end.

A job stopped by bad input (a variant that does not compile) stops the run: the jobs
not yet started are dropped and the error is raised as the RulespecError it was. An
interrupt (Ctrl-C) ends every worker process at once and is raised as KeyboardInterrupt
within a second or so: what had finished has been handed to `done` already. The threads
the jobs run in are daemon threads, so an interrupted process never waits at its exit for
a job that was starting its z3 worker when the others were killed (such a worker, a
daemon process, is ended at exit too).
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import signal
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from typing import Any

from model import RulespecError

from .plan import Job
from .progress import Progress


class JobFailed(RulespecError):
    """A job met bad input; carries the message and exit code of the original error."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def run_jobs(jobs: list[Job], workers: int, progress: Progress,
             done: Callable[[Job, list[Any]], None], z3_workers: int | None = None) -> None:
    """Run every job; `done(job, results)` receives each job's results (one per entry)
    as it finishes, in this thread or another (never two at once)."""
    order = sorted(jobs, key=lambda j: -progress.timings.estimate(j))
    if workers <= 1:
        for job in order:
            progress.started(job)
            results = _call(job)
            progress.finished(job)
            done(job, results)
        return
    lock = threading.Lock()
    z3_slots = threading.Semaphore(z3_workers or workers)
    stop = threading.Event()
    procs = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                initializer=ignore_interrupts)
    try:

        def one(job: Job) -> None:
            if stop.is_set():
                return
            if job.kind == "z3":
                with z3_slots:
                    progress.started(job)
                    results = _call(job)
            else:
                progress.started(job)
                results = [procs.submit(job.fn, *job.args, **job.kwargs).result()]
            progress.finished(job)
            if stop.is_set():
                return  # interrupted meanwhile: a result cut short is not kept
            with lock:
                _raise_if_failed(results)
                done(job, results)

        futures = _in_daemon_threads(one, order, workers)
        finished, _ = _wait_interruptibly(futures)
        for f in finished:
            if f.exception() is not None:
                stop.set()
                for other in futures:
                    other.cancel()
                raise f.exception()  # type: ignore[misc]
        procs.shutdown()
    except BaseException:
        stop.set()
        _end_workers(procs)
        procs.shutdown(wait=False, cancel_futures=True)
        raise


def _in_daemon_threads(fn: Callable[[Job], None], jobs: list[Job], n: int) -> list[Future]:
    """`fn` of each job in `n` daemon threads, in order; a future per job (one cancelled
    before it starts never runs)."""
    futures: list[Future] = [Future() for _ in jobs]
    todo: queue.SimpleQueue[tuple[Job, Future]] = queue.SimpleQueue()
    for pair in zip(jobs, futures, strict=True):
        todo.put(pair)

    def worker() -> None:
        while True:
            try:
                job, fut = todo.get_nowait()
            except queue.Empty:
                return
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fn(job)
                fut.set_result(None)
            except BaseException as exc:  # handed to the waiting thread, as an executor does
                fut.set_exception(exc)

    for _ in range(n):
        threading.Thread(target=worker, daemon=True).start()
    return futures


def ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is the parent's to handle (it ends the workers), so a
    worker prints no traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _wait_interruptibly(futures: list[Future]) -> tuple[set[Future], set[Future]]:
    """`wait(futures, FIRST_EXCEPTION)` in short steps, so that Ctrl-C is seen at once."""
    while True:
        finished, pending = wait(futures, timeout=0.2, return_when=FIRST_EXCEPTION)
        if not pending or any(f.exception() is not None for f in finished):
            return finished, pending


def _end_workers(procs: ProcessPoolExecutor) -> None:
    """Kill the pool's processes and the z3 workers: neither is waited for."""
    from ..symbolic.isolate import stop_all

    stop_all()
    for p in list(getattr(procs, "_processes", {}).values() or ()):
        p.kill()


def _call(job: Job) -> list[Any]:
    """Run a job here; one result per entry."""
    if job.kind == "z3":
        try:
            results = job.fn(*job.args, **job.kwargs)
        except RulespecError:
            raise
        except Exception as exc:  # a query that raised in its worker: the rows say so
            first = str(exc).strip().splitlines()
            why = f"the z3 worker failed: {first[-1] if first else type(exc).__name__}"
            return [{"query": q, "status": "error", "detail": why, "seconds": 0.0,
                     "bound": None, "replay": None} for q in job.args[3]]
        return results
    results = [job.fn(*job.args, **job.kwargs)]
    _raise_if_failed(results)
    return results


def _raise_if_failed(results: list[Any]) -> None:
    for r in results:
        if isinstance(r, dict) and "error" in r and "exit_code" in r:
            raise JobFailed(r["error"], r["exit_code"])
