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
  on 16. More would only make the compute threads wait on each other's cores;
* the cores other processes hold (``FreeCores``): llama.cpp's OpenMP threads spin a bounded while
  at a barrier (``choose_openmp_wait``), and each generation runs ``threads_for(n_threads)`` compute
  threads, one when another process holds the second core. A compute thread that waits for a core
  makes its partner spin at every barrier of every token.

Waiting happens in the caller's worker thread, not on an event loop, so one pool
serves any number of ``asyncio.run`` calls.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


OPENMP_SPIN_COUNT = "10000"
"""libgomp's spin before a waiting thread sleeps (GOMP_SPINCOUNT; its own default is 300,000, "about 3 ms").

Spinning only pays while both compute threads hold a core: an operation's threads then meet
within microseconds, and sleeping instead (``OMP_WAIT_POLICY=PASSIVE``) costs a futex wake at each
of the hundreds of barriers a token (the bare call ran 3x slower idle). Once a compute thread waits
for a core, a long spin burns the slice its partner needs (the default spin ran at 0.3 tokens/s at
load 12, PASSIVE at 16).
"""


def choose_openmp_wait() -> None:
    """A bounded spin at barriers (``GOMP_SPINCOUNT``), whatever the load; a user's setting wins.

    libgomp reads its environment once, when ``llama_cpp`` loads its libraries, so this must run
    before the first ``import llama_cpp`` of the process; later it changes nothing. Load is met by
    the thread count instead (``ModelPool.threads_for``): one compute thread, which never meets a
    barrier, while another process holds a core. Measured on 2 cores with 0, 1 and 2 busy
    processes added (``benchmarks/bench_embedded.py``, 2026-12-02), that beat sleeping at barriers
    (``OMP_WAIT_POLICY=PASSIVE``, chosen here before when the cores were busy at load time) in all
    three: 66, 53 and 37 tokens/s against 66, 35-40 and 33.
    """
    if "llama_cpp" in sys.modules or "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return
    os.environ["GOMP_SPINCOUNT"] = OPENMP_SPIN_COUNT


def openmp_sleeps() -> bool:
    """Whether llama.cpp's OpenMP threads sleep at once at a barrier (then a busy core costs them little)."""
    return os.environ.get("OMP_WAIT_POLICY", "").strip().upper() == "PASSIVE"


def read_cpu_seconds() -> tuple[float, float] | None:
    """(busy CPU seconds of the whole machine, CPU seconds of this process), or None without /proc/stat."""
    try:
        with open("/proc/stat") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 5:
        return None
    jiffies = [int(value) for value in fields[1:9]]
    idle = jiffies[3] + (jiffies[4] if len(jiffies) > 4 else 0)  # idle + iowait
    own = os.times()
    return (sum(jiffies) - idle) / os.sysconf("SC_CLK_TCK"), own.user + own.system


class FreeCores:
    """How many cores other processes left free, measured since the last look (not a load average).

    Other processes' CPU is the machine's busy time less this process's own, over the window since
    the previous look, so it is right while this process's generations keep every core busy too.
    A window shorter than ``min_window_s`` keeps the last figure (jiffies are 10 ms); the first look
    waits ``first_window_s`` to have a window at all.
    """

    def __init__(self, cores: int, read: Callable[[], tuple[float, float] | None] = read_cpu_seconds,
                 clock: Callable[[], float] = time.monotonic, *, min_window_s: float = 0.25,
                 first_window_s: float = 0.1) -> None:
        self.cores = cores
        self._read = read
        self._clock = clock
        self._min_window_s = min_window_s
        self._first_window_s = first_window_s
        self._lock = threading.Lock()
        self._last: tuple[float, tuple[float, float]] | None = None
        self._free = float(cores)

    def free(self) -> float:
        with self._lock:
            sample = self._read()
            if sample is None:
                return float(self.cores)
            now = self._clock()
            if self._last is None:
                self._last = (now, sample)
                time.sleep(self._first_window_s)
                sample, now = self._read() or sample, self._clock()
            elif now - self._last[0] < self._min_window_s:
                return self._free
            then, (busy_then, own_then) = self._last
            if now > then:
                others = max(0.0, (sample[0] - busy_then) - (sample[1] - own_then))
                self._free = max(0.0, self.cores - others / (now - then))
                self._last = (now, sample)
            return self._free


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
                 cores: int | None = None, free_cores: FreeCores | None = None) -> None:
        self.cores = max(1, cores if cores is not None else (os.cpu_count() or 1))
        self._loader = loader
        self._close = close
        self._cond = threading.Condition()
        self._cores_free = self.cores
        self._entries: dict[ModelKey, _Entry[T]] = {}
        self.free_cores = FreeCores(self.cores) if free_cores is None else free_cores

    def slots(self, n_threads: int) -> int:
        """How many generations with ``n_threads`` threads each may run at once."""
        return max(1, self.cores // max(1, n_threads))

    def threads_for(self, n_threads: int) -> int:
        """Compute threads for a generation starting now: ``n_threads``, fewer if other processes hold the cores.

        The thread count does not change the text (llama.cpp's logits are bit-identical with 1, 2 and
        3 threads); it only decides whether the threads meet at barriers on cores they do not have.
        """
        if openmp_sleeps():  # sleeping threads keep their share of a busy machine: two beat one there
            return n_threads
        return max(1, min(n_threads, int(self.free_cores.free() + 0.5)))

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
