"""SIGTERM (``kill``, a CI timeout, ``docker stop``) does what Ctrl-C does: what is stored is counted, the
resuming command printed; the exit code is its own, 143."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import script_for
from interrupt_helpers import interrupt_when

from forgegate.backends.embedded import bundled_gguf
from forgegate.battery import bundled_battery_path, load_battery
from forgegate.core.verdict import EXIT_TERMINATED
from forgegate.store import RunStore, list_runs

BATTERY = load_battery(bundled_battery_path())
MODELS = {"gloss:v10": "f" * 64}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a child process is POSIX")


def test_sigterm_during_eval_counts_the_stored_answers_prints_the_resume_line_and_exits_143(tmp_path: Path) -> None:
    store = tmp_path / "store"
    args = ["eval", "--backend", "ollama", "--model", "gloss:v10", "--store", str(store), "--quiet",
            "--concurrency", "1"]
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=MODELS, chunk_delay_s=0.02)) as server:
        code, err = interrupt_when([*args, "--base-url", server.url],
                                   lambda _: len(server.generation_requests()) >= 4, sig=signal.SIGTERM)
    assert code == EXIT_TERMINATED == 143, err
    assert "Traceback" not in err
    (run_file,) = list_runs(store)
    with RunStore.open(run_file, create=False) as opened:
        stored = len(opened.finished_keys())
    counted = re.search(r"terminated \(SIGTERM\): (\d+) of (\d+) answers are stored in (\S+)", err)
    assert counted is not None, err
    assert (int(counted[1]), int(counted[2])) == (stored, len(BATTERY))
    assert re.search(r"resume with: .+ eval ", err), err


def test_sigterm_while_watch_waits_exits_143(tmp_path: Path) -> None:
    waiting = f"waiting for {tmp_path / 'later'} to appear"
    code, err = interrupt_when(["watch", str(tmp_path / "later"), "--base", str(bundled_gguf()), "--device", "cpu",
                                "--interval", "0.2"],
                               lambda text: waiting in " ".join(text.split()), sig=signal.SIGTERM)
    assert code == 143, err
    assert "terminated (SIGTERM)" in err and "Traceback" not in err


@pytest.mark.slow  # it starts the `forgegate view` server in a subprocess: not for the fast lane
def test_sigterm_stops_the_view_like_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "forgegate.cli.main", "view", "--store", str(tmp_path),
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "forgegate view: serving" in proc.stdout.readline()
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "Traceback" not in err
