"""Suite-wide settings: never reach a model hub; keep every run store inside the test's tmp dir; mark slow tests;
train the LoRA adapters and the plain LoRA run several test files read once per session.

The fast lane (``pytest -m "not slow"``, CONTRIBUTING.md) leaves out every test that starts a model, a server,
a browser or a training run. A test is slow when it says so (``@pytest.mark.slow``) or when it uses a fixture
decorated with :func:`starts_something`, directly or through another fixture: marking the fixture once marks
every test that will ever use it. A test not marked slow that starts one anyway fails, naming the mark to add
(the guard in tests/slow.py, switched on around each such test's set-up, call and tear-down).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest
from slow import STARTS_SOMETHING, forbidding_starts, install_guard, starts_something
from training_run import PlainRun, plain_run

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# pytest imports readline, which exports its idea of the terminal (COLUMNS=80, LINES=24 without one) into the
# process environment; the workers of `pytest -n 3` start with it, and a console made under it keeps 80 columns
# whatever width a test then sets. Every process of the suite starts without them, as a plain `pytest` does.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)


@pytest.fixture(autouse=True)
def _isolated_forgegate_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FORGEGATE_HOME", str(tmp_path / "forgegate-home"))
    yield


@pytest.fixture(autouse=True)
def _quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's backoff between retries, a fiftieth as long in this process: the retries a test counts, their
    order and their outcome are the engine's own, only the waits between them shrink (the policy's delays are
    forgegate's to choose, not a verdict). A forgegate the test starts as a subprocess waits the real delays."""
    from forgegate.run.engine import RetryPolicy

    real = RetryPolicy.delay
    monkeypatch.setattr(RetryPolicy, "delay", lambda self, attempt, rng: real(self, attempt, rng) / 50)


@pytest.fixture(scope="session")
@starts_something
def smol_adapters(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real PEFT LoRA adapters over the bundled SmolLM2 (tests/smol_lora.py: ``a``, ``b``, and ``other``, which
    names another base), trained once for the session: loading the GGUF through transformers is the slow part.
    Every test that uses them only reads them (copy one before changing it)."""
    pytest.importorskip("peft")
    pytest.importorskip("gguf")
    from smol_lora import trained_adapters

    return trained_adapters(tmp_path_factory.mktemp("smol-adapters"))


@pytest.fixture(scope="session")
@starts_something
def lora_run(tmp_path_factory: pytest.TempPathFactory) -> PlainRun:
    """The plain LoRA run on SmolLM2 (tests/training_run.py), trained once for the session; only read."""
    return plain_run(tmp_path_factory.mktemp("plain") / "run")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test whose fixtures (all of them, through fixtures of fixtures) start something."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        if any(getattr(definition.func, STARTS_SOMETHING, False)
               for name in info.names_closure for definition in info.name2fixturedefs.get(name, ())):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    install_guard()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Around a fast-lane test's whole protocol (so a module or session fixture it sets up is held too), starting
    a model, a server, a browser or a training run raises."""
    slow = item.get_closest_marker("slow") is not None
    with nullcontext() if slow else forbidding_starts(item.nodeid):
        yield
