"""``forgegate.evaluate``'s keywords for type checkers (PEP 692): one key per session option.

GENERATED from ``forgegate.pipeline.session.fields.SessionFields`` by
``python -m forgegate.pipeline.session.keywords_render``: do not edit. tests/test_session_keywords.py
renders it again and fails when this file differs (an option added without regenerating).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict


class SessionKeywords(TypedDict, total=False):
    """The keywords ``forgegate.evaluate`` and ``evaluate_async`` take besides ``battery`` and ``live``;
    defaults, help and the checks are the session options' (``SessionOptions``)."""

    backend: str
    model: str | None
    base_urls: Sequence[str]
    adapter: str | None
    device: str
    dtype: str
    batch_size: int | None
    gate_config: str | Path | None
    concurrency: int
    seed: int
    samples: int
    temperature: float | None
    top_p: float | None
    system: str | None
    retries: int
    timeout: float
    idle_timeout: float | None
    wait: bool
    loop_cutoff: bool
    api_key_env: str | None
    store: str | Path | None
    quiet: bool
    check_failure_modes: bool
    training_corpus: str | Path | None
