"""Exits that used to slip: a closed pipe, an error while importing, Ctrl-C from a suite run in the background.

- ``forgegate runs | head``: the reader goes away; the command ends quietly with 141 (128 + SIGPIPE),
  as Unix tools do, never 1 (the code of a FAIL) and never a traceback.
- An error raised while forgegate's own modules import is a bug like any other: exit 70, a crash file.
- A suite started as a background job inherits SIGINT as ignored; the interrupt helpers put it back
  to its default for the child, so Ctrl-C still reaches forgegate.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from interrupt_helpers import interrupt_when

from forgegate.backends.embedded import bundled_gguf
from forgegate.core.verdict import EXIT_BROKEN_PIPE, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED

SRC = Path(__file__).resolve().parents[1] / "src"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "FORGEGATE_HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path),
            "PYTHONPATH": os.pathsep.join([*extra.pop("prepend", "").split(os.pathsep), str(SRC)]).strip(os.pathsep),
            **extra}


def _with_closed_stdout(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m forgegate ARGS`` with stdout a pipe whose reader has already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "forgegate", *args], stdout=write_end, stderr=subprocess.PIPE,
                              env=env, timeout=120)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", [["schema", "eval"], ["runs"], ["runs", "--help"]],
                         ids=["typer-echo", "rich-console", "help-page"])
def test_a_closed_pipe_ends_quietly_with_141(args: list[str], tmp_path: Path) -> None:
    done = _with_closed_stdout(args, _env(tmp_path))
    assert done.returncode == EXIT_BROKEN_PIPE == 141, done.stderr.decode()
    assert done.stderr == b""
    assert not list(tmp_path.glob("forgegate-crash-*"))


def test_a_usage_error_with_a_closed_stdout_is_still_a_usage_error(tmp_path: Path) -> None:
    done = _with_closed_stdout(["runs", "--no-such-option"], _env(tmp_path))
    assert done.returncode == 2
    assert b"no-such-option" in done.stderr


@pytest.mark.parametrize("entry", [["-m", "forgegate"], ["-c", "from forgegate.cli.entry import main; main()"]],
                         ids=["python-m", "console-script"])
def test_an_error_while_importing_is_a_bug_with_a_crash_file(entry: list[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "typer").mkdir(parents=True)
    (broken / "typer" / "__init__.py").write_text("raise RuntimeError('a dependency that fails to import')\n")
    done = subprocess.run([sys.executable, *entry, "runs"], capture_output=True, text=True, timeout=120,
                          env=_env(tmp_path, prepend=str(broken)))
    assert done.returncode == EXIT_INTERNAL_ERROR == 70, done.stderr
    assert "internal error: RuntimeError: a dependency that fails to import" in done.stderr
    assert "This is a bug in forgegate" in done.stderr
    (crash,) = tmp_path.glob("forgegate-crash-*.txt")
    assert "a dependency that fails to import" in crash.read_text()


def test_ctrl_c_reaches_forgegate_when_the_suite_itself_ignores_sigint(tmp_path: Path) -> None:
    """As under ``pytest &``: this process ignores SIGINT, so a child would too unless the helper resets it."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        waiting = f"waiting for {tmp_path / 'later'} to appear"
        code, err = interrupt_when(["watch", str(tmp_path / "later"), "--base", str(bundled_gguf()),
                                    "--device", "cpu", "--interval", "0.2"],
                                   lambda text: waiting in " ".join(text.split()))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == EXIT_INTERRUPTED, err
    assert "Traceback" not in err
