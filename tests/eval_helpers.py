"""Helpers for eval pipeline tests: scripted answers for a battery, and running the CLI."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from forgegate.battery import Battery
from forgegate.battery.item import BatteryItem
from forgegate.checks.match import present


def one_arm_gloss_plan(url: str, model: str, *, name: str, seed: int, max_tokens: int, battery: str,
                       gate_config: str) -> str:
    """A plan's text with one ``ollama`` arm called ``model`` (the eval's arm name) and the gloss instrument: an
    eval written as a plan."""
    return f'''name = "{name}"
seeds = [{seed}]
[sampling]
max_tokens = {max_tokens}
[fixture]
battery = "{battery}"
[[arms]]
name = "model"
backend = "ollama"
model = "{model}"
base_urls = ["{url}"]
role = "candidate"
[instruments.gloss]
gate_config = "{gate_config}"
'''


def perfect_answer(item: BatteryItem) -> str:
    """What a model that knows the battery would say: the expected text and nothing more."""
    if item.eval_type == "semantic" and item.require is not None:
        return " ".join(group[0] for group in item.require) or "◌"  # require []: anything that is no loop
    if item.coherent:  # a glyph the prompt does not already hold (an echo is not coherent)
        echoed = set(present(item.expected_list, item.prompt))
        return next(e for e in item.expected_list if e not in echoed)
    return item.expected_list[0]


def script_for(battery: Battery, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """prompt -> answer for every item; a prompt used twice must expect compatible answers."""
    script: dict[str, str] = {}
    for item in battery.items:
        answer = perfect_answer(item)
        if item.prompt in script and script[item.prompt] != answer:
            script[item.prompt] = f"{script[item.prompt]} {answer}"
        else:
            script[item.prompt] = answer
    script.update(overrides or {})
    return script


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ``forgegate`` as a user would, in a subprocess; return the completed process."""
    return subprocess.run(
        [sys.executable, "-m", "forgegate.cli.main", *args],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})},
    )


def run_cli_in_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``forgegate ARGS`` through :func:`forgegate.cli.main.run`, the function the console script calls, in this
    process: the exit code and the lines it prints, as :func:`run_cli` gives them, without an interpreter start
    per call (``env``: variables set for this call only). Use :func:`run_cli` where the process itself is the
    point (signals, a crash, how the program starts)."""
    from forgegate.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        code = run(["forgegate", *args])
    return subprocess.CompletedProcess(["forgegate", *args], code, out.getvalue(), err.getvalue())


def read_json(path: Path) -> dict[str, Any]:
    """A result JSON the CLI wrote (eval, live, comparison...); it must be valid and versioned."""
    from forgegate.results import parse_result
    from forgegate.results.base import schema_version_of

    payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert payload["schema_version"] == schema_version_of(payload["kind"])
    assert parse_result(payload, path).kind == payload["kind"]
    return payload


def kill_once_stored(proc: subprocess.Popen[Any], store: Path, answers: int, *, poll_s: float = 0.05,
                     timeout_s: float = 120) -> int:
    """SIGKILL ``proc`` (no cleanup, as in a crash) once its run store in ``store`` holds ``answers`` rows, or after
    ``timeout_s``; the rows it held when last looked at."""
    deadline, done = time.time() + timeout_s, 0
    while time.time() < deadline and done < answers:
        time.sleep(poll_s)
        files = list(store.glob("*.sqlite"))
        if files:
            try:
                with sqlite3.connect(files[0]) as db:
                    done = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            except sqlite3.OperationalError:  # the file exists before its tables do: look again
                continue
    proc.kill()
    proc.wait()
    return done
