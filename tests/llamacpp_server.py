"""A real llama.cpp server (llama-cpp-python's ``llama_cpp.server``) on the packaged SmolLM2 GGUF, for tests.

It is slow to start and serves one request at a time, so tests share one per module.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from forgegate.backends.embedded import bundled_gguf

MODEL_ALIAS = "smollm2"
"""The id the server lists at /v1/models (without it, the GGUF's path): forgegate refuses a --model it does not list."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ready(url: str, api_key: str | None) -> bool:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        return httpx.get(f"{url}/models", headers=headers, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


@contextmanager
def llamacpp_server(log_dir: Path, *, api_key: str | None = None, timeout_s: float = 180) -> Iterator[str]:
    """Start the server, yield its ``/v1`` URL once it answers, stop it afterwards."""
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()), "--host", "127.0.0.1",
               "--port", str(port), "--n_threads", "1", "--model_alias", MODEL_ALIAS]
    if api_key:
        command += ["--api_key", api_key]
    log_path = log_dir / "server.log"  # a file: the load log overfills a pipe
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + timeout_s
        while not ready(url, api_key):
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not become ready in {timeout_s:.0f} s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
