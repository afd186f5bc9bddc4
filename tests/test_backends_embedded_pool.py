"""Embedded backends share loaded models, never run more generations than the cores allow, and hash a GGUF once."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from backend_servers import greedy

from forgegate.backends import BackendConfig
from forgegate.backends import embedded as embedded_module
from forgegate.backends.embedded import EmbeddedBackend, bundled_gguf, file_sha256, new_model_pool
from forgegate.backends.embedded_pool import ModelKey, ModelPool


class FakeModel:
    def __init__(self, key: ModelKey) -> None:
        self.key = key
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Recorder:
    """Loads fake models and tracks how many pieces of work run at once."""

    def __init__(self) -> None:
        self.loaded: list[FakeModel] = []
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def load(self, key: ModelKey) -> FakeModel:
        model = FakeModel(key)
        self.loaded.append(model)
        return model

    def work(self, model: FakeModel) -> FakeModel:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.2)  # long enough for every thread to have started and queued
        with self.lock:
            self.running -= 1
        return model


def run_at_once(pool: ModelPool[FakeModel], keys: list[ModelKey], recorder: Recorder) -> None:
    leases = [pool.open(key) for key in keys]
    threads = [threading.Thread(target=lease.run, args=(recorder.work,)) for lease in leases for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for lease in leases:
        lease.close()


@pytest.mark.parametrize(("cores", "n_threads", "expected"), [(2, 2, 1), (4, 2, 2), (8, 2, 4), (3, 1, 3), (1, 4, 1)])
def test_generations_at_once_are_the_cores_divided_by_threads(cores: int, n_threads: int, expected: int) -> None:
    recorder = Recorder()
    pool = ModelPool(recorder.load, FakeModel.close, cores=cores)
    assert pool.slots(n_threads) == expected
    run_at_once(pool, [ModelKey("m.gguf", 2048, n_threads)], recorder)
    assert recorder.most == expected
    assert len(recorder.loaded) == expected  # a copy per generation that ran alongside another, no more


def test_the_core_budget_is_shared_by_different_models() -> None:
    recorder = Recorder()
    pool = ModelPool(recorder.load, FakeModel.close, cores=4)
    run_at_once(pool, [ModelKey(f"arm{n}.gguf", 2048, 2) for n in range(3)], recorder)
    assert recorder.most == 2  # three models, two threads each, four cores


def test_leases_on_one_file_share_a_copy_and_the_last_close_frees_it() -> None:
    recorder = Recorder()
    pool = ModelPool(recorder.load, FakeModel.close, cores=2)
    key = ModelKey("m.gguf", 2048, 2)
    arms = [pool.open(key) for _ in range(3)]
    used = {id(arm.run(recorder.work)) for arm in arms}
    assert len(used) == 1 and pool.loaded(key) == 1
    other = pool.open(ModelKey("m.gguf", 4096, 2))  # other load parameters are another model
    other.run(recorder.work)
    assert len(recorder.loaded) == 2
    for arm in arms[:2]:
        arm.close()
    arms[0].close()  # closing twice releases once
    assert pool.loaded(key) == 1 and not recorder.loaded[0].closed
    arms[2].close()
    other.close()
    assert recorder.loaded[0].closed and recorder.loaded[1].closed
    assert pool.keys() == [] and pool.loaded(key) == 0
    with pytest.raises(RuntimeError, match="closed"):
        arms[2].run(recorder.work)


def test_a_failed_load_gives_its_cores_back() -> None:
    def broken(key: ModelKey) -> FakeModel:
        raise ValueError("bad gguf")

    pool = ModelPool(broken, FakeModel.close, cores=2)
    lease = pool.open(ModelKey("m.gguf", 2048, 2))
    for _ in range(2):  # the second would wait forever if the first kept the cores
        with pytest.raises(ValueError, match="bad gguf"):
            lease.run(lambda model: model)
    lease.close()
    assert pool.keys() == []


def test_the_gguf_is_hashed_once_per_path_size_and_mtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    real = embedded_module.hash_file
    monkeypatch.setattr(embedded_module, "hash_file", lambda path: reads.append(path) or real(path))
    model = tmp_path / "m.gguf"
    model.write_bytes(b"one")
    first = [file_sha256(model) for _ in range(3)]
    assert len(reads) == 1 and len(set(first)) == 1
    model.write_bytes(b"other")  # a new size (and mtime): hashed again
    assert file_sha256(model) != first[0] and len(reads) == 2


@pytest.mark.slow
def test_embedded_arms_on_one_gguf_load_it_once_and_free_it_when_closed() -> None:
    pool = new_model_pool()
    config = BackendConfig(model=str(bundled_gguf()), n_threads=1)
    arms = [EmbeddedBackend(config, pool=pool) for _ in range(3)]
    request = greedy(prompt="Name a colour.", max_tokens=4, seed=1)

    async def go() -> list[str]:
        done = [await arm.generate(request) for arm in arms]
        return [d.text for d in done]

    texts = asyncio.run(go())
    (key,) = pool.keys()
    assert len(set(texts)) == 1 and pool.loaded(key) == 1
    for arm in arms:
        asyncio.run(arm.aclose())
    assert pool.keys() == []
