"""Ctrl-C during `rulespec check`: the workers stop at once (a z3 check cannot be
interrupted, so its worker is ended, not waited for), the run says what was kept, and it
exits 130, not 1 (the code for a failing property)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT")
def test_ctrl_c_stops_check_within_two_seconds_and_says_what_was_kept(tmp_path: Path) -> None:
    env = {**os.environ, "RULESPEC_CACHE": str(tmp_path / "cache")}
    # Lambada's z3 queries take tens of seconds: the run is surely busy when interrupted
    cmd = [sys.executable, "-m", "properties.cli", "check", "lambada", "-p", "2", "--games",
           "2", "--profile", "none", "--jobs", "2"]
    # as from a terminal: Ctrl-C's default handling, even where this test runs with SIGINT
    # ignored (a background job of a shell script ignores it, and its children inherit that)
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint)
    try:
        time.sleep(8)  # the jobs have started, the z3 worker is deep in a query
        assert proc.poll() is None, proc.communicate()
        t0 = time.perf_counter()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole group
        _, err = proc.communicate(timeout=30)
        took = time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert took < 2.0, f"took {took:.1f} s to stop"
    assert "interrupted:" in err and "jobs had finished" in err, err
    assert "Traceback" not in err and "Aborted!" not in err, err


@pytest.mark.skipif(sys.platform == "win32", reason="pipes closed early")
def test_a_reader_that_stops_reading_ends_the_command_silently_with_141() -> None:
    """`rulespec play ... | head -1`: the output's reader goes away; that is not a bug in
    rulespec (exit 4) and prints nothing on stderr. The game's trace must be longer than
    a pipe holds, or the command may write it all before the reader leaves and exit 0
    (seen in CI with LAMA's 1.5 KB two-player game)."""
    cmd = [sys.executable, "-m", "properties.cli", "play", "lambada", "-p", "6", "--seed", "2",
           "--max-actions", "10000"]
    whole = subprocess.run(cmd, cwd=ROOT, capture_output=True, check=True).stdout
    # more than the pipe and the reader's buffer (8 KiB) hold together, with a margin
    assert len(whole) > _pipe_capacity() + 16 * 1024, len(whole)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert first
    assert proc.returncode == 141, err
    assert err == ""


def _pipe_capacity() -> int:
    """How many bytes a pipe holds before its writer waits (64 KiB on Linux by default)."""
    r, w = os.pipe()
    try:
        import fcntl

        return fcntl.fcntl(w, getattr(fcntl, "F_GETPIPE_SZ", 1032))
    except (ImportError, OSError):
        return 65536
    finally:
        os.close(r)
        os.close(w)
