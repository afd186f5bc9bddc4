"""Ctrl-C during ``forgegate eval``: the answers stored so far are counted, the resuming command printed, exit 130."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import script_for
from interrupt_helpers import interrupt_when

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.store import RunStore, list_runs

BATTERY = load_battery(bundled_battery_path())
MODELS = {"gloss:v10": "f" * 64}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")


def _interrupted_eval(server: FakeOllamaServer, args: list[str]) -> tuple[int, str]:
    """Start ``forgegate`` with ``args`` against ``server``, send SIGINT once a few answers are in; its exit."""
    return interrupt_when([*args, "--base-url", server.url], lambda _: len(server.generation_requests()) >= 4)


def test_ctrl_c_counts_the_stored_answers_prints_the_resume_line_and_exits_130_and_the_line_resumes(
        tmp_path: Path) -> None:
    """One interrupted eval (a subprocess each way: the costliest kind of test in the fast lane): the count and the
    resuming command it prints, then that command run, which sends only the requests that have no answer yet."""
    store = tmp_path / "store"
    args = ["eval", "--backend", "ollama", "--model", "gloss:v10", "--store", str(store), "--quiet",
            "--concurrency", "1"]
    # slow enough that the run is still going when the signal comes, fast enough to store a few answers first
    behaviour = Behaviour(script=script_for(BATTERY), models=MODELS, chunk_delay_s=0.02)
    with FakeOllamaServer(behaviour) as server:
        code, err = _interrupted_eval(server, args)
        assert code == 130, err
        assert "Traceback" not in err
        first = len(server.generation_requests())
        (run_file,) = list_runs(store)
        with RunStore.open(run_file, create=False) as opened:
            stored = len(opened.finished_keys())
        assert 0 < stored < len(BATTERY)
        counted = re.search(r"(\d+) of (\d+) answers are stored in (\S+)", err)
        assert counted is not None, err
        assert (int(counted[1]), int(counted[2]), counted[3]) == (stored, len(BATTERY), str(run_file))
        resume = re.search(r"resume with: (.+)", err)
        assert resume is not None, err
        assert resume[1].endswith(" ".join([*args, "--base-url", server.url]))
        assert resume[1].startswith(f"{sys.executable} -m forgegate.cli.main eval")
        server.behaviour.chunk_delay_s = 0.0
        again = subprocess.run(resume[1], shell=True, capture_output=True, text=True, timeout=300, check=False)
        assert again.returncode == 0, again.stdout + again.stderr
        assert len(server.generation_requests()) - first == len(BATTERY) - stored
