"""Test helper: start a ``forgegate`` command as a real process, send it Ctrl-C (SIGINT) once it has got somewhere."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def sigint_at_default() -> None:
    """``preexec_fn`` for a child that will be sent Ctrl-C: SIGINT back at its default.

    A suite started from a background job (``pytest &`` in a script) inherits SIGINT as *ignored*,
    and so would every child; Python then never installs its KeyboardInterrupt handler and the
    signal the test sends does nothing. The shell resets it for foreground jobs; the tests must too.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_when(args: Sequence[str | Path], ready: Callable[[str], bool], *, timeout: float = 120,
                   stdout: int | None = subprocess.DEVNULL, sig: int = signal.SIGINT) -> tuple[int, str]:
    """Run ``forgegate ARGS``; once ``ready(stderr so far)`` holds, send ``sig`` (SIGINT: Ctrl-C; SIGTERM:
    ``kill``); return (exit code, stderr).

    stderr goes to a file, so the condition can read what the command has printed while it runs. The
    process is killed if it is still there at the end (a test never leaves one behind).
    """
    with tempfile.TemporaryDirectory() as tmp:
        err_file = Path(tmp) / "stderr.txt"
        with err_file.open("w") as err_out:
            proc = subprocess.Popen([sys.executable, "-m", "forgegate.cli.main", *map(str, args)], stdout=stdout,
                                    stderr=err_out, env={**os.environ},
                                    preexec_fn=sigint_at_default)
            try:
                deadline = time.monotonic() + timeout
                while not ready(err_file.read_text()) and proc.poll() is None:
                    assert time.monotonic() < deadline, f"timed out waiting for progress:\n{err_file.read_text()}"
                    time.sleep(0.1)
                proc.send_signal(sig)
                proc.wait(timeout=120)
            finally:
                if proc.poll() is None:
                    proc.kill()
        return proc.returncode, err_file.read_text()
