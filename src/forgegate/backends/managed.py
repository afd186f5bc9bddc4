"""Model servers forgegate starts, watches and stops itself (llama.cpp, vLLM): one lifecycle for both.

A managed backend builds a :class:`LaunchSpec` per replica; :class:`ManagedServer` starts it on a
free port of 127.0.0.1, waits for its health URL, and stops it; requests go through the
OpenAI-compatible backend against the servers' URLs, spread over the replicas like a
``--base-url`` list. Arms whose specs are equal share one set of servers (vLLM serves every
adapter over a base at once), released when the last of them closes.

A server must never outlive forgegate: it is stopped on success, on failure and on Ctrl-C (the
runner closes every backend in a ``finally``; an ``atexit`` hook stops any left over), and on
Linux it is started with a parent-death signal, so that even a forgegate killed with SIGKILL
takes it along. The signal is tied to the thread that started the server, so servers are
started from the thread that runs the event loop (the backend's constructor), never from a
worker thread that may end first.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from forgegate.backends._httpx import httpx
from forgegate.backends.base import BackendConfig
from forgegate.backends.openai import OpenAIBackend
from forgegate.backends.served_sampling import ServedValue
from forgegate.console import err_console
from forgegate.core.records import Completion, GenerationRequest, StreamStop
from forgegate.errors import UsageError

HOST = "127.0.0.1"
LOG_TAIL_LINES = 25
_PR_SET_PDEATHSIG = 1
_PORT_IN_USE = ("address already in use", "errno 98")


@dataclass(frozen=True)
class LaunchSpec:
    """How to start one server: its argv (``{port}`` marks where the port goes), env and health check."""

    label: str
    argv: tuple[str, ...]
    health_path: str
    env: Mapping[str, str] = field(default_factory=dict)
    death_signal: int = signal.SIGKILL
    """Sent to the server when forgegate dies: SIGTERM for a server that must stop its own workers."""
    stop_grace_s: float = 20.0

    def command(self, port: int) -> list[str]:
        return [arg.replace("{port}", str(port)) for arg in self.argv]


def free_port() -> int:
    """A port nothing listens on now (the server binds it a moment later; a lost race is retried)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return True
    return False


def _die_with_parent(death_signal: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks Linux to send ``death_signal`` to the child when forgegate dies.

    libc is looked up here, in the parent: after fork the child may call only what is already
    loaded. If forgegate died between fork and prctl, the child is already orphaned and exits.
    """
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, death_signal, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.rstrip().splitlines()[-lines:]) or "(the server printed nothing)"


class ManagedServer:
    """One running server process, its port and its log file."""

    def __init__(self, spec: LaunchSpec, port: int, log_path: Path) -> None:
        self.spec = spec
        self.port = port
        self.log_path = log_path
        env = {**os.environ, **spec.env}
        with open(log_path, "wb") as log:  # a file: a model's load log overfills a pipe
            self.proc = subprocess.Popen(spec.command(port), stdout=log, stderr=subprocess.STDOUT, env=env,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         preexec_fn=_die_with_parent(spec.death_signal))

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def wait_healthy(self, timeout_s: float) -> str | None:
        """None once the health URL answers 200; else why not (the process exited, or the timeout passed)."""
        deadline = time.monotonic() + timeout_s
        health = self.url + self.spec.health_path
        while True:
            code = self.proc.poll()
            if code is not None:
                return f"exited with status {code} before it was ready"
            try:
                if httpx.get(health, timeout=2.0).status_code == 200:
                    return None
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                return f"did not answer {health} within {timeout_s:.0f} s"
            time.sleep(0.25)

    def discard_log(self) -> None:
        """Remove the log (and its folder once empty) of a server forgegate stopped itself.

        The log is kept when the server failed to start or died on its own: an error names it.
        """
        with contextlib.suppress(OSError):
            self.log_path.unlink(missing_ok=True)
            self.log_path.parent.rmdir()

    def stop(self) -> None:
        """SIGTERM to the server's process group, then SIGKILL after the grace period."""
        if self.proc.poll() is None:
            err_console.print(f"forgegate: stopping {self.spec.label} (pid {self.proc.pid})", markup=False,
                              highlight=False)
            _signal_group(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=self.spec.stop_grace_s)
            except subprocess.TimeoutExpired:
                _signal_group(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        _signal_group(self.proc.pid, signal.SIGKILL)  # any worker the server left in its group


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def start_server(spec: LaunchSpec, *, port: int | None, timeout_s: float, attempts: int = 3) -> ManagedServer:
    """Start ``spec`` and wait until it is healthy; a clear UsageError (exit 2) with its last log lines if not.

    A fixed ``port`` that is taken is refused before anything starts; a free port picked here
    and taken by someone else before the server bound it is retried with another.
    """
    if port is not None and port_in_use(port):
        raise UsageError(f"port {port} on {HOST} is in use: stop whatever listens there, choose another "
                         "'port', or leave 'port' out and forgegate picks a free one")
    log_dir = Path(tempfile.mkdtemp(prefix="forgegate-server-"))
    for attempt in range(1, attempts + 1):
        chosen = port if port is not None else free_port()
        log_path = log_dir / f"{spec.label.replace(' ', '-')}-{chosen}.log"
        server = ManagedServer(spec, chosen, log_path)
        try:
            why = server.wait_healthy(timeout_s)
        except BaseException:  # Ctrl-C while waiting: the server goes too
            server.stop()
            raise
        if why is None:
            err_console.print(f"forgegate: started {spec.label} (pid {server.proc.pid}) at {server.url}, "
                              f"log {log_path}", markup=False, highlight=False)
            return server
        server.stop()
        tail = log_tail(log_path)
        if any(mark in tail.lower() for mark in _PORT_IN_USE):
            if port is None and attempt < attempts:
                log_path.unlink(missing_ok=True)  # a lost race for the port, retried: its log says only that
                continue
            why = f"could not bind port {chosen} (address already in use)"
        raise UsageError(f"the {spec.label} {why}.\n"
                         f"command: {' '.join(spec.command(chosen))}\n"
                         f"last lines of its log ({log_path}):\n{tail}")
    raise AssertionError("unreachable")


@dataclass
class _Shared:
    servers: list[ManagedServer]
    users: int = 0


class ServerPool:
    """Running server sets keyed by what was started: arms asking for the same one share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: dict[tuple[object, ...], _Shared] = {}

    def acquire(self, key: tuple[object, ...], specs: list[LaunchSpec], *, port: int | None,
                timeout_s: float) -> list[ManagedServer]:
        with self._lock:
            shared = self._sets.get(key)
            if shared is None:
                servers: list[ManagedServer] = []
                try:
                    for index, spec in enumerate(specs):
                        servers.append(start_server(spec, port=None if port is None else port + index,
                                                    timeout_s=timeout_s))
                except BaseException:
                    for server in servers:
                        server.stop()
                    raise
                shared = self._sets[key] = _Shared(servers)
            shared.users += 1
            return shared.servers

    def release(self, key: tuple[object, ...]) -> None:
        with self._lock:
            shared = self._sets.get(key)
            if shared is None:
                return
            shared.users -= 1
            if shared.users <= 0:
                del self._sets[key]
                for server in shared.servers:
                    _stop_and_tidy(server)

    def stop_all(self) -> None:
        with self._lock:
            sets, self._sets = list(self._sets.values()), {}
        for shared in sets:
            for server in shared.servers:
                _stop_and_tidy(server)


def _stop_and_tidy(server: ManagedServer) -> None:
    """Stop a server at the end of its use; its log goes too unless it had died on its own (then it is named)."""
    died = server.proc.poll()
    server.stop()
    if died is None:
        server.discard_log()
    else:
        err_console.print(f"forgegate: {server.spec.label} (pid {server.proc.pid}) had exited with status {died} "
                          f"before forgegate stopped it; its log is {server.log_path}", markup=False,
                          highlight=False)


SERVERS = ServerPool()
atexit.register(SERVERS.stop_all)


class ManagedBackend(ABC):
    """A backend whose servers forgegate runs; subclasses say how to launch them and what to request."""

    name = "managed"

    def __init__(self, config: BackendConfig) -> None:
        self.config = config
        specs = self.launch_specs(config)
        self._key: tuple[object, ...] = (self.name, *(s.argv for s in specs),
                                         *(tuple(sorted(s.env.items())) for s in specs))
        servers = SERVERS.acquire(self._key, specs, port=config.port, timeout_s=config.startup_timeout_s)
        self.servers = servers
        try:
            self._client = OpenAIBackend(BackendConfig(
                model=self.request_model(config), base_urls=tuple(s.url + "/v1" for s in servers),
                timeout_s=config.timeout_s, idle_timeout_s=config.idle_timeout_s))
        except BaseException:
            SERVERS.release(self._key)
            raise

    @abstractmethod
    def launch_specs(self, config: BackendConfig) -> list[LaunchSpec]:
        """The servers this arm needs (one per replica): argv, environment, health route."""

    @abstractmethod
    def request_model(self, config: BackendConfig) -> str:
        """The ``model`` every request names (an adapter's served name for an adapter arm)."""

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        return await self._client.generate(request, stop)

    @property
    def endpoint_notes(self) -> list[str]:
        """What the client changed about these servers (see ``OpenAIBackend.endpoint_notes``)."""
        return self._client.endpoint_notes

    async def model_digest(self) -> str | None:
        return None

    async def served_sampling(self) -> dict[str, ServedValue]:
        """The sampling the started server uses when a request sends none (``served_sampling``)."""
        return await self._client.served_sampling()

    async def aclose(self) -> None:
        try:
            await self._client.aclose()
        finally:
            SERVERS.release(self._key)
