"""A managed server's log folder: gone after a normal stop, kept (and named) when the server died on its own or
never became healthy. Uses a real process (Python's own http.server) as the server: the lifecycle is the same
for llama.cpp and vLLM, whose own tests start the real ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from forgegate.backends.managed import LaunchSpec, ServerPool, start_server
from forgegate.errors import UsageError

HTTP_SERVER = LaunchSpec(label="test server", argv=(sys.executable, "-m", "http.server", "{port}", "--bind",
                                                    "127.0.0.1"), health_path="/", stop_grace_s=5.0)


def test_a_server_stopped_at_the_end_of_its_use_leaves_no_log_folder() -> None:
    pool = ServerPool()
    [server] = pool.acquire(("k",), [HTTP_SERVER], port=None, timeout_s=30)
    folder = server.log_path.parent
    assert folder.is_dir() and folder.name.startswith("forgegate-server-")
    pool.release(("k",))
    assert server.proc.poll() is not None
    assert not folder.exists()


def test_a_server_that_died_on_its_own_keeps_its_log_and_says_where(capsys: pytest.CaptureFixture[str]) -> None:
    pool = ServerPool()
    [server] = pool.acquire(("k",), [HTTP_SERVER], port=None, timeout_s=30)
    server.proc.kill()
    server.proc.wait()
    pool.release(("k",))
    assert server.log_path.exists()
    assert f"its log is {server.log_path}" in capsys.readouterr().err
    server.discard_log()


def test_a_server_that_never_became_healthy_keeps_its_log_for_the_error() -> None:
    crash = "print('no model here'); raise SystemExit(3)"
    broken = LaunchSpec(label="broken server", argv=(sys.executable, "-c", crash), health_path="/")
    with pytest.raises(UsageError, match="no model here") as refused:
        start_server(broken, port=None, timeout_s=30)
    log = Path(str(refused.value).split("last lines of its log (")[1].split(")")[0])
    assert log.exists()
    log.unlink()
    log.parent.rmdir()
