"""``@starts_something``: the mark for a fixture that starts a model, a server, a browser or a training run.

Every test using such a fixture is marked ``slow`` at collection (tests/conftest.py), so the fast lane
(``pytest -m "not slow"``) never waits for one. Put it under ``@pytest.fixture``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

STARTS_SOMETHING = "_forgegate_starts_something"


def starts_something(fixture: F) -> F:
    """Mark ``fixture`` as one that starts a model, a server, a browser or a training run."""
    setattr(fixture, STARTS_SOMETHING, True)
    return fixture
