"""``@starts_something``: the mark for a fixture that starts a model, a server, a browser or a training run; and the
guard that holds the fast lane to that rule.

Every test using such a fixture is marked ``slow`` at collection (tests/conftest.py), so the fast lane
(``pytest -m "not slow"``) never waits for one. Put it under ``@pytest.fixture``.

The guard (:func:`forbidding_starts`, switched on by tests/conftest.py around every test not marked ``slow``) makes
the few entry points that start something raise :class:`StartsSomethingInFastLane`, naming the mark to add: a
llama.cpp ``Llama``, a transformers model's ``from_pretrained`` (which sentence-transformers and the entailment
judge go through too), a ``SentenceTransformer``, a uvicorn server, a Playwright browser, and a subprocess that
runs Chromium, a llama.cpp server, ``forgegate view`` or a training script. The libraries are patched when they
are first imported (an import hook), so the fast lane imports nothing it would not import anyway. A model loaded
inside some other subprocess (``forgegate eval --backend embedded`` in a child) is not caught.
"""

from __future__ import annotations

import functools
import importlib.machinery
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., object])

STARTS_SOMETHING = "_forgegate_starts_something"


def starts_something(fixture: F) -> F:
    """Mark ``fixture`` as one that starts a model, a server, a browser or a training run."""
    setattr(fixture, STARTS_SOMETHING, True)
    return fixture


class StartsSomethingInFastLane(RuntimeError):
    """A test the fast lane runs tried to start a model, a server, a browser or a training run."""


# module imported -> (class it exports, method that starts something, what it starts)
GUARDED: dict[str, tuple[str, str, str]] = {
    "llama_cpp": ("Llama", "__new__", "loads a llama.cpp model"),  # __new__: no half-made Llama to delete
    "transformers.modeling_utils": ("PreTrainedModel", "from_pretrained", "loads a transformers model"),
    "sentence_transformers": ("SentenceTransformer", "__init__", "loads a sentence-transformers model"),
    "uvicorn": ("Server", "serve", "starts a uvicorn server"),
    "playwright.sync_api": ("BrowserType", "launch", "starts a browser"),
}

_running: list[str] = []  # the node id of the fast-lane test now running, if any


def _refuse(what: str) -> None:
    if _running:
        raise StartsSomethingInFastLane(
            f"{_running[-1]} {what}, but it is not marked slow: the fast lane (pytest -m \"not slow\") must not "
            "start a model, a server, a browser or a training run. Add @pytest.mark.slow to the test, or "
            "@starts_something (tests/slow.py) to the fixture that starts it.")


def _guard_method(owner: type, name: str, what: str) -> None:
    if name == "__new__" and "__new__" not in owner.__dict__:
        def guarded_new(cls: type, *args: Any, **kwargs: Any) -> Any:
            _refuse(what)
            return object.__new__(cls)

        owner.__new__ = staticmethod(guarded_new)  # type: ignore[assignment]
        return
    original = owner.__dict__[name]
    if isinstance(original, classmethod):
        function = original.__func__

        @functools.wraps(function)
        def guarded_class(cls: type, *args: Any, **kwargs: Any) -> Any:
            _refuse(what)
            return function(cls, *args, **kwargs)

        setattr(owner, name, classmethod(guarded_class))
        return

    @functools.wraps(original)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _refuse(what)
        return original(*args, **kwargs)

    setattr(owner, name, guarded)


def _patch(module: ModuleType) -> None:
    owner_name, method, what = GUARDED[module.__name__]
    owner = getattr(module, owner_name, None)
    if isinstance(owner, type) and not getattr(owner, "_forgegate_guarded", False):
        _guard_method(owner, method, what)
        owner._forgegate_guarded = True  # type: ignore[attr-defined]


class _PatchOnImport:
    """A meta-path finder that lets the ordinary finder load a guarded module, then patches it."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if name not in GUARDED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module

        def exec_then_patch(module: ModuleType) -> None:
            execute(module)
            _patch(module)

        spec.loader.exec_module = exec_then_patch  # type: ignore[method-assign]
        return spec


def _subprocess_starts(args: Any) -> str | None:
    """What a command line starts that the fast lane must not (None: nothing of the kind)."""
    words = [os.fspath(a) for a in args] if isinstance(args, (list, tuple)) else str(args).split()
    program = os.path.basename(words[0]) if words else ""
    if "chrom" in program:
        return "starts a browser (Chromium)"
    if program.startswith("llama-server") or "llama_cpp.server" in words:
        return "starts a llama.cpp server"
    if any("forgegate" in w for w in words) and "view" in words and "--help" not in words:
        return "starts the `forgegate view` server"
    if any(os.path.basename(w).startswith("train_") and w.endswith(".py") for w in words):
        return "starts a training run"
    return None


_popen_init = subprocess.Popen.__init__


def _guarded_popen_init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
    what = _subprocess_starts(args) if _running else None
    if what is not None:
        _refuse(f"{what} in a subprocess")
    _popen_init(self, args, *rest, **kwargs)


def install_guard() -> None:
    """Patch the entry points (now for modules already imported, on import for the rest); once per session."""
    if any(isinstance(finder, _PatchOnImport) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _PatchOnImport())
    for name in GUARDED:
        if name in sys.modules:
            _patch(sys.modules[name])
    subprocess.Popen.__init__ = _guarded_popen_init  # type: ignore[method-assign]


@contextmanager
def forbidding_starts(nodeid: str) -> Iterator[None]:
    """While inside, every guarded entry point raises, naming ``nodeid`` and the mark to add."""
    _running.append(nodeid)
    try:
        yield
    finally:
        _running.pop()
