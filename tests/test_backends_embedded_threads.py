"""The embedded backend's compute threads: a bounded OpenMP spin (the user's setting wins) and one thread
when other processes hold the second core, with the same text either way."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from forgegate.backends import BackendConfig
from forgegate.backends.embedded import EmbeddedBackend, LoadedModel, new_model_pool
from forgegate.backends.embedded_pool import (
    OPENMP_SPIN_COUNT,
    FreeCores,
    ModelPool,
    choose_openmp_wait,
    openmp_sleeps,
)
from forgegate.core.records import GenerationRequest


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Machine:
    """Fake /proc/stat: busy seconds of the whole machine and of this process, advanced by ``run``."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.busy = 0.0
        self.own = 0.0

    def read(self) -> tuple[float, float]:
        return self.busy, self.own

    def run(self, seconds: float, own_cores: float, other_cores: float) -> None:
        self.clock.now += seconds
        self.own += seconds * own_cores
        self.busy += seconds * (own_cores + other_cores)


def free_cores(cores: int = 2) -> tuple[FreeCores, Machine]:
    clock = Clock()
    machine = Machine(clock)
    return FreeCores(cores, machine.read, clock, first_window_s=0.0), machine


@pytest.fixture
def fresh_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delitem(sys.modules, "llama_cpp", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    return monkeypatch


def idle_or_busy(others: float) -> FreeCores:
    cores, machine = free_cores()
    cores.free()
    machine.run(1.0, own_cores=0.0, other_cores=others)
    return cores


def test_the_wait_at_barriers_is_a_bounded_spin_and_load_is_met_by_fewer_threads(
        fresh_env: pytest.MonkeyPatch) -> None:
    """Sleeping at barriers lost to one spinning thread with 1 and 2 busy processes (bench_embedded.py)."""
    choose_openmp_wait()
    assert os.environ["GOMP_SPINCOUNT"] == OPENMP_SPIN_COUNT
    assert "OMP_WAIT_POLICY" not in os.environ
    assert not openmp_sleeps()
    busy: ModelPool[object] = ModelPool(lambda key: object(), lambda model: None, cores=2,
                                        free_cores=idle_or_busy(1.0))
    assert busy.threads_for(2) == 1


@pytest.mark.parametrize("name", ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT"])
def test_a_users_wait_setting_wins(fresh_env: pytest.MonkeyPatch, name: str) -> None:
    value = "ACTIVE" if name == "OMP_WAIT_POLICY" else "5"
    fresh_env.setenv(name, value)
    choose_openmp_wait()
    assert os.environ[name] == value
    other = "GOMP_SPINCOUNT" if name == "OMP_WAIT_POLICY" else "OMP_WAIT_POLICY"
    assert other not in os.environ


def test_nothing_changes_once_llama_cpp_is_loaded(fresh_env: pytest.MonkeyPatch) -> None:
    fresh_env.setitem(sys.modules, "llama_cpp", object())
    choose_openmp_wait()
    assert "GOMP_SPINCOUNT" not in os.environ and "OMP_WAIT_POLICY" not in os.environ


def test_free_cores_are_the_cores_less_what_other_processes_used() -> None:
    cores, machine = free_cores()
    assert cores.free() == 2.0  # the first look: nothing ran in its window
    machine.run(1.0, own_cores=2.0, other_cores=0.0)  # this process alone on both cores: both free to it
    assert cores.free() == pytest.approx(2.0)
    machine.run(1.0, own_cores=1.0, other_cores=1.0)  # another process holds a core
    assert cores.free() == pytest.approx(1.0)
    machine.run(0.1, own_cores=0.0, other_cores=0.0)  # too short a window to say: the last figure stands
    assert cores.free() == pytest.approx(1.0)
    machine.run(1.0, own_cores=0.0, other_cores=3.0)  # more busy than cores (hyperthreads, rounding): none
    assert cores.free() == 0.0


def test_without_proc_stat_every_core_counts_as_free() -> None:
    assert FreeCores(4, lambda: None).free() == 4.0


@pytest.mark.parametrize(("others", "n_threads", "expected"), [
    (0.0, 2, 2), (0.3, 2, 2), (0.7, 2, 1), (1.0, 2, 1), (2.0, 2, 1), (0.0, 1, 1), (0.0, 8, 2),
])
def test_spinning_threads_get_the_cores_other_processes_left_free(fresh_env: pytest.MonkeyPatch, others: float,
                                                                   n_threads: int, expected: int) -> None:
    fresh_env.setenv("GOMP_SPINCOUNT", OPENMP_SPIN_COUNT)
    pool: ModelPool[object] = ModelPool(lambda key: object(), lambda model: None, cores=2,
                                        free_cores=idle_or_busy(others))
    assert pool.threads_for(n_threads) == expected


def test_sleeping_threads_keep_their_number_on_a_busy_machine(fresh_env: pytest.MonkeyPatch) -> None:
    fresh_env.setenv("OMP_WAIT_POLICY", "passive")
    pool: ModelPool[object] = ModelPool(lambda key: object(), lambda model: None, cores=2,
                                        free_cores=idle_or_busy(1.5))
    assert pool.threads_for(2) == 2


@pytest.mark.slow
def test_one_thread_or_two_the_text_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Greedy answers on the real model with one compute thread (another process holds a core) and two."""
    requests = [GenerationRequest(prompt=prompt, max_tokens=48, temperature=0.0, seed=3, chat=True)
                for prompt in ("Name three colours.", "Write a line about rivers.")]
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)  # threads_for adapts only for spinning threads
    monkeypatch.setenv("GOMP_SPINCOUNT", OPENMP_SPIN_COUNT)
    texts: dict[int, list[str]] = {}
    for others in (1.0, 0.0):
        pool = new_model_pool(cores=2)
        pool.free_cores = idle_or_busy(others)
        backend = EmbeddedBackend(BackendConfig(n_threads=2), pool=pool)
        used: list[int] = []
        original = LoadedModel.use_threads

        def spy(model: LoadedModel, threads: int, original=original, used=used) -> None:  # type: ignore[no-untyped-def]
            used.append(threads)
            original(model, threads)

        LoadedModel.use_threads = spy  # type: ignore[method-assign]
        try:
            done = [asyncio.run(backend.generate(request)) for request in requests]
        finally:
            LoadedModel.use_threads = original  # type: ignore[method-assign]
            asyncio.run(backend.aclose())
        assert used == [2 if others == 0.0 else 1] * len(requests)
        texts[used[0]] = [completion.text for completion in done]
    assert texts[1] == texts[2]
    assert all(texts[1])


class _StubLlama:
    """Just what ``LoadedModel`` wraps (the thread test needs no model)."""

    n_threads = 2

    def sample(self) -> int:
        return 0

    def generate(self, tokens: list[int]) -> None:
        return None

    def close(self) -> None:
        return None


def test_a_loaded_copy_runs_all_its_work_on_one_thread_whoever_calls() -> None:
    """libgomp keeps a team of threads per thread that starts parallel work: calls from four caller
    threads must all land on the copy's one thread (four teams ran the second generation at half speed)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    model = LoadedModel(_StubLlama())
    callers: set[int] = set()

    def call(_: int) -> int:
        callers.add(threading.get_ident())
        return model.on_own_thread(threading.get_ident)

    try:
        with ThreadPoolExecutor(4) as pool:
            ran_on = set(pool.map(call, range(16)))
    finally:
        model.close()
    assert len(ran_on) == 1
    assert not ran_on & callers and len(callers) > 1
