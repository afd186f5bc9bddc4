"""One writer per run: a second process on the same run waits (naming the holder's pid) or, with
--no-wait, exits 2; a lock left by a killed process is taken over at once.

Before, two processes started together on one battery and model sent 178 requests for 90 items.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeHandler, FakeOllamaServer
from eval_helpers import run_cli, script_for

from forgegate.battery import bundled_live_test_path, load_battery
from forgegate.errors import StoreError
from forgegate.store import run_lock
from forgegate.store.lock import lock_path

LIVE = load_battery(bundled_live_test_path())
MODEL = "gloss:v10"
PATIENCE_S = 120.0


class GatedOllama(FakeOllamaServer):
    """Holds every generation request until ``gate`` is set: the first process is then surely mid-run."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__(Behaviour(script=script_for(LIVE), models={MODEL: "f" * 64}))
        self.gate = gate

    def handle_post(self, handler: FakeHandler, body: dict[str, Any]) -> None:
        self.gate.wait(PATIENCE_S)
        super().handle_post(handler, body)


def live_args(server: FakeOllamaServer, store: Path, json_out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "forgegate.cli.main", "live", "--backend", "ollama", "--model", MODEL,
            "--base-url", server.url, "--store", str(store), "--json", str(json_out), "--quiet",
            "--concurrency", "2", *extra]


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


@pytest.mark.slow  # two forgegate processes racing for one run store: 7-9 s each, subprocess waits
def test_two_processes_started_together_generate_each_item_once(tmp_path: Path) -> None:
    gate = threading.Event()
    store = tmp_path / "store"
    with GatedOllama(gate) as server:
        logs = [tmp_path / "a.err", tmp_path / "b.err"]
        procs = []
        for name, log in zip("ab", logs, strict=True):
            with log.open("w") as err:
                procs.append(subprocess.Popen(live_args(server, store, tmp_path / f"{name}.json"),
                                              stdout=subprocess.DEVNULL, stderr=err))
        try:
            wait_for(lambda: any("waiting for pid" in log.read_text() for log in logs), "one process to wait")
        finally:
            gate.set()
        codes = [p.wait(timeout=PATIENCE_S) for p in procs]
        sent = len(server.generation_requests())
    assert codes == [0, 0], [log.read_text() for log in logs]
    assert sent == len(LIVE.items)  # at most the items: the second generated nothing
    waiter = next(i for i, log in enumerate(logs) if "waiting for pid" in log.read_text())
    holder = procs[1 - waiter]
    waited = logs[waiter].read_text()
    assert f"waiting for pid {holder.pid}" in waited and "--no-wait" in waited
    assert f"generated 0, resumed {len(LIVE.items)}" in waited


@pytest.mark.slow  # two forgegate processes racing for one run store: 7-9 s each, subprocess waits
def test_no_wait_exits_2_at_once_naming_the_holder(tmp_path: Path) -> None:
    gate = threading.Event()
    store = tmp_path / "store"
    with GatedOllama(gate) as server:
        first = subprocess.Popen(live_args(server, store, tmp_path / "a.json"),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(lambda: server.generation_requests(), "the first process to be generating")
            second = run_cli(*live_args(server, store, tmp_path / "b.json", "--no-wait")[3:])
        finally:
            gate.set()
        assert first.wait(timeout=PATIENCE_S) == 0
        sent = len(server.generation_requests())
    assert second.returncode == 2, second.stderr
    assert f"another forgegate process (pid {first.pid}) is generating this run" in second.stderr
    assert "without --no-wait" in second.stderr
    assert sent == len(LIVE.items) and not (tmp_path / "b.json").exists()


@pytest.mark.slow  # two forgegate processes racing for one run store: 7-9 s each, subprocess waits
def test_a_killed_holders_lock_is_taken_over(tmp_path: Path) -> None:
    gate = threading.Event()
    store = tmp_path / "store"
    with GatedOllama(gate) as server:
        first = subprocess.Popen(live_args(server, store, tmp_path / "a.json"),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: server.generation_requests(), "the first process to be generating")
        first.send_signal(signal.SIGKILL)
        first.wait()
        gate.set()
        second = run_cli(*live_args(server, store, tmp_path / "b.json", "--no-wait")[3:])
        sent = len(server.generation_requests())
    assert second.returncode == 0, second.stderr
    assert "waiting" not in second.stderr
    assert sent <= len(LIVE.items) + 2  # plus what the killed process had in flight (--concurrency 2)


HOLDER = """
import asyncio, sys
from pathlib import Path
from forgegate.store import run_lock
async def main():
    async with run_lock(Path(sys.argv[1]), wait=False, on_wait=print):
        print("held", flush=True)
        await asyncio.sleep(float(sys.argv[2]))
asyncio.run(main())
"""


def take(run: Path, *, wait: bool, on_wait: Callable[[str], None] = print) -> str:
    """Take the run's lock in this process and return what its lock file then says."""

    async def main() -> str:
        async with run_lock(run, wait=wait, on_wait=on_wait):
            return lock_path(run).read_text()

    return asyncio.run(main())


def hold(path: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE,
                            text=True, env={**os.environ})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_run_lock_refuses_while_held_and_is_free_once_its_holder_is_killed(tmp_path: Path) -> None:
    run = tmp_path / "eval-abc.sqlite"
    holder = hold(run, PATIENCE_S)
    try:
        with pytest.raises(StoreError, match=f"pid {holder.pid}"):
            take(run, wait=False)
    finally:
        holder.kill()  # SIGKILL: the holder cannot clean anything up
        holder.wait()
    assert take(run, wait=False) == str(os.getpid())


def test_run_lock_waits_for_the_holder_and_says_whom_it_waits_for(tmp_path: Path) -> None:
    run = tmp_path / "eval-abc.sqlite"
    holder = hold(run, 1.0)
    said: list[str] = []
    assert take(run, wait=True, on_wait=said.append) == str(os.getpid())
    assert holder.wait() == 0  # it slept its second out, holding the lock, and then let go
    assert len(said) == 1 and f"waiting for pid {holder.pid}" in said[0]
