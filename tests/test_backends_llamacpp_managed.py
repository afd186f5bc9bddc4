"""``backend = "llamacpp"``: forgegate starts the REAL llama.cpp server on the packaged SmolLM2, runs through it,
and stops it on success, on failure, on Ctrl-C, and when forgegate itself is killed with SIGKILL."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path

import pytest
from managed_helpers import (
    gone_within,
    kill_if_alive,
    start_forgegate,
    wait_for_server,
    write_managed_plan,
)

from forgegate.backends import BackendConfig, make_backend
from forgegate.backends.managed import SERVERS, ManagedBackend
from forgegate.core.records import GenerationRequest
from forgegate.errors import UsageError
from forgegate.store import RunStore

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")

REQUEST = GenerationRequest(prompt="Name one colour.", max_tokens=6, seed=1, temperature=0.0)


def _backend(**extra: object) -> ManagedBackend:
    backend = make_backend("llamacpp", BackendConfig(n_threads=1, startup_timeout_s=240, **extra))  # type: ignore[arg-type]
    assert isinstance(backend, ManagedBackend)
    return backend


def test_arms_share_one_server_that_answers_and_stops_with_the_last_arm() -> None:
    async def scenario() -> None:
        first, second = _backend(), _backend()
        pid = first.servers[0].proc.pid
        assert second.servers[0].proc.pid == pid  # the same server: equal launch specs share it
        completion = await first.generate(REQUEST)
        assert completion.text and 0 < completion.tokens <= REQUEST.max_tokens
        assert completion.endpoint is not None and first.servers[0].url in completion.endpoint
        await first.aclose()
        assert not gone_within(pid, 1.0)  # the second arm still needs it
        again = await second.generate(REQUEST)
        assert again.text == completion.text  # greedy: the same server, the same answer
        await second.aclose()
        assert gone_within(pid, 30.0)

    asyncio.run(scenario())


def test_a_plan_on_llamacpp_runs_end_to_end_and_leaves_no_server(tmp_path: Path) -> None:
    plan = write_managed_plan(tmp_path / "plan", items=1)
    err = tmp_path / "stderr.txt"
    proc = start_forgegate(["run", str(plan), "--store", str(tmp_path / "runs"), "--quiet"], err, tmp_path)
    pid = wait_for_server(proc, err)
    try:
        code = proc.wait(timeout=600)
        assert code in (0, 1, 3), err.read_text()  # a verdict, not a crash or bad input
        assert gone_within(pid, 30.0)
        stores = list((tmp_path / "runs").rglob("*.sqlite*"))
        assert stores, "no run store written"
        with RunStore.open(stores[0], create=False) as store:
            rows = store.latest()
        assert len(rows) == 4 and all(row.ok and row.response for row in rows)
    finally:
        kill_if_alive(pid)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["sigkill", "ctrl-c"])
def test_a_killed_forgegate_leaves_no_server_behind(tmp_path: Path, sig: signal.Signals) -> None:
    plan = write_managed_plan(tmp_path / "plan", items=6, max_tokens=200)
    err = tmp_path / "stderr.txt"
    proc = start_forgegate(["run", str(plan), "--store", str(tmp_path / "runs"), "--quiet"], err, tmp_path)
    pid = wait_for_server(proc, err)
    try:
        assert gone_within(pid, 1.0) is False  # mid-run: the server is serving
        proc.send_signal(sig)
        proc.wait(timeout=60)
        assert proc.returncode == (130 if sig is signal.SIGINT else -signal.SIGKILL), err.read_text()[-2000:]
        assert gone_within(pid, 30.0), f"llama.cpp server pid {pid} outlived forgegate ({sig.name})"
    finally:
        kill_if_alive(proc.pid)
        kill_if_alive(pid)


def test_a_port_in_use_is_refused_with_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        plan = write_managed_plan(tmp_path / "plan", arm_extra=f"port = {port}")
        err = tmp_path / "stderr.txt"
        proc = start_forgegate(["run", str(plan), "--store", str(tmp_path / "runs"), "--quiet"], err, tmp_path)
        assert proc.wait(timeout=120) == 2
    text = err.read_text()
    assert f"port {port} on 127.0.0.1 is in use" in text and "started" not in text


def test_a_file_that_is_not_gguf_is_refused_with_exit_2(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_text("not a model")
    plan = write_managed_plan(tmp_path / "plan", arm_extra=f'model = "{fake}"')
    err = tmp_path / "stderr.txt"
    proc = start_forgegate(["run", str(plan), "--store", str(tmp_path / "runs"), "--quiet"], err, tmp_path)
    assert proc.wait(timeout=120) == 2
    assert "is not a GGUF file" in err.read_text()


def test_a_server_that_fails_to_start_reports_its_last_log_lines(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)  # the right magic, then nothing llama.cpp can load
    with pytest.raises(UsageError) as caught:
        _backend(model=str(broken))
    message = str(caught.value)
    assert "llama.cpp server exited with status" in message and "last lines of its log" in message
    assert str(broken) in message  # the command is shown, so the user can run it by hand
    assert not SERVERS._sets  # nothing half-started is kept
