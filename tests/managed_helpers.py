"""Test helper: plans whose arms run on a server forgegate manages, and watching that server's pid."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from forgegate.plan import lock_plan
from tests.interrupt_helpers import sigint_at_default
from tests.plan_helpers import damage_plan_text

STARTED = re.compile(r"started (?P<label>[\w. ]+) \(pid (?P<pid>\d+)\) at (?P<url>\S+),")


def write_managed_plan(folder: Path, *, items: int = 2, max_tokens: int = 8, arm_extra: str = "") -> Path:
    """A locked plan: two arms on ``backend = "llamacpp"`` (the packaged SmolLM2, one shared server),
    ``items`` prompts x 2 seeds each."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fixture.jsonl").write_text(
        "".join(json.dumps({"id": f"p{i}", "prompt": f"Write one sentence about the number {i}."}) + "\n"
                for i in range(items)))
    plan = folder / "plan.toml"
    arms = f"""
[[arms]]
name = "smol"
backend = "llamacpp"
role = "control"
n_threads = 1
{arm_extra}

[[arms]]
name = "smol-again"
backend = "llamacpp"
role = "candidate"
n_threads = 1
{arm_extra}
"""
    plan.write_text(damage_plan_text("managed", arms, control="smol", candidate="smol-again", max_tokens=max_tokens))
    lock_plan(plan)
    return plan


def forgegate_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from forgegate.cli.main import main; main()", *args]


def start_forgegate(args: list[str], stderr_path: Path, cwd: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    with open(stderr_path, "wb") as err:
        return subprocess.Popen(forgegate_command(*args), stdout=subprocess.DEVNULL, stderr=err, cwd=cwd, env=env,
                                preexec_fn=sigint_at_default)


def wait_for_server(proc: subprocess.Popen[bytes], stderr_path: Path, timeout_s: float = 240) -> int:
    """The pid of the server ``proc`` reports having started (fails if it exits or times out first)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = STARTED.search(stderr_path.read_text(errors="replace"))
        if found:
            return int(found["pid"])
        if proc.poll() is not None:
            raise AssertionError(f"forgegate exited {proc.returncode} first:\n{stderr_path.read_text()}")
        time.sleep(0.2)
    raise AssertionError(f"no server started within {timeout_s} s:\n{stderr_path.read_text()}")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie left for a parent that never reaps it counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone_within(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return not alive(pid)


def kill_if_alive(pid: int) -> None:
    """Clean up after a failed test (never a broad kill: this one pid)."""
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
