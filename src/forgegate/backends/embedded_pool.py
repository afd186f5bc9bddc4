"""Loaded llama.cpp models shared by every embedded backend, and the core budget their generations run under.

A plan whose arms all name the same GGUF used to load one copy per arm and run them all
at once, each with its own compute threads, on the same few cores. Here the backends of
one process share a ``ModelPool``:

* one entry per (GGUF path, n_ctx, n_threads); every backend on it holds a reference
  (a ``ModelLease``), and when the last one closes the loaded copies are freed, so
  nothing outlives the backends that use it;
* a llama.cpp context runs one generation at a time, so an entry keeps a small stack
  of loaded copies and only loads another when every copy is busy *and* the core
  budget allows another generation;
* the core budget: a generation with ``n_threads`` compute threads takes that many of
  the machine's ``os.cpu_count()`` cores (all of them if it wants more) and waits until
  they are free. So at most ``max(1, cores // n_threads)`` generations run at once
  across every model in the process: one on 2 cores with the default 2 threads, eight
  on 16. More would only make the compute threads wait on each other's cores.

Waiting happens in the caller's worker thread, not on an event loop, so one pool
serves any number of ``asyncio.run`` calls.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def prefer_passive_openmp() -> None:
    """Make llama.cpp's OpenMP threads sleep at a barrier instead of spinning, unless the user chose.

    libgomp reads ``OMP_WAIT_POLICY`` once, when ``llama_cpp`` loads its libraries, so
    this must run before the first ``import llama_cpp`` of the process; later it
    changes nothing. Why it matters is told in ``forgegate.backends.embedded``.
    """
    if "llama_cpp" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@dataclass(frozen=True)
class ModelKey:
    """What makes two loaded copies interchangeable: the file and the load parameters."""

    path: str
    n_ctx: int
    n_threads: int


@dataclass
class _Entry(Generic[T]):
    refs: int = 0
    busy: int = 0
    loaded: int = 0
    idle: list[T] = field(default_factory=list)


class ModelPool(Generic[T]):
    """Loaded models by key, reference-counted by their leases, and the cores generations may use."""

    def __init__(self, loader: Callable[[ModelKey], T], close: Callable[[T], None], *,
                 cores: int | None = None) -> None:
        self.cores = max(1, cores if cores is not None else (os.cpu_count() or 1))
        self._loader = loader
        self._close = close
        self._cond = threading.Condition()
        self._cores_free = self.cores
        self._entries: dict[ModelKey, _Entry[T]] = {}

    def slots(self, n_threads: int) -> int:
        """How many generations with ``n_threads`` threads each may run at once."""
        return max(1, self.cores // max(1, n_threads))

    def open(self, key: ModelKey) -> ModelLease[T]:
        """A reference to ``key``'s models; nothing loads until the first generation."""
        with self._cond:
            self._entries.setdefault(key, _Entry()).refs += 1
        return ModelLease(self, key)

    def loaded(self, key: ModelKey) -> int:
        """Copies of ``key`` in memory now (0 once every lease on it is closed)."""
        with self._cond:
            entry = self._entries.get(key)
            return entry.loaded if entry is not None else 0

    def keys(self) -> list[ModelKey]:
        with self._cond:
            return list(self._entries)

    def run(self, key: ModelKey, work: Callable[[T], R]) -> R:
        """Wait for cores and a free copy (loading one if none is free), then ``work(copy)``; blocks."""
        need = min(max(1, key.n_threads), self.cores)
        with self._cond:
            while self._cores_free < need:
                self._cond.wait()
            entry = self._entries.get(key)
            if entry is None:
                raise RuntimeError(f"no open lease on {key.path}")
            self._cores_free -= need
            model = entry.idle.pop() if entry.idle else None
            entry.busy += 1
        try:
            if model is None:
                model = self._loader(key)
                with self._cond:
                    entry.loaded += 1
            return work(model)
        finally:
            self._give_back(key, entry, model, need)

    def _give_back(self, key: ModelKey, entry: _Entry[T], model: T | None, cores: int) -> None:
        to_close: list[T] = []
        with self._cond:
            self._cores_free += cores
            entry.busy -= 1
            if model is not None:
                entry.idle.append(model)
            to_close = self._drop_if_unused(key, entry)
            self._cond.notify_all()
        self._close_all(to_close)

    def _release(self, key: ModelKey) -> None:
        with self._cond:
            entry = self._entries[key]
            entry.refs -= 1
            to_close = self._drop_if_unused(key, entry)
        self._close_all(to_close)

    def _drop_if_unused(self, key: ModelKey, entry: _Entry[T]) -> list[T]:
        """Called under the lock: when no lease and no generation holds ``entry``, forget it."""
        if entry.refs > 0 or entry.busy > 0:
            return []
        if self._entries.get(key) is entry:
            del self._entries[key]
        models, entry.idle, entry.loaded = entry.idle, [], 0
        return models

    def _close_all(self, models: list[T]) -> None:
        for model in models:
            self._close(model)


class ModelLease(Generic[T]):
    """One backend's hold on a pooled model; ``close`` is idempotent."""

    def __init__(self, pool: ModelPool[T], key: ModelKey) -> None:
        self.pool = pool
        self.key = key
        self._closed = False
        self._lock = threading.Lock()

    def run(self, work: Callable[[T], R]) -> R:
        if self._closed:
            raise RuntimeError("this model lease is closed")
        return self.pool.run(self.key, work)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.pool._release(self.key)
