"""Fuzzing what an Ollama-compatible server may answer: any /api/tags body and any stream line is read into
text or refused as a backend error (retried, then INCOMPLETE), never another exception that ends the eval."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forgegate.backends import BackendError
from forgegate.backends._http import load_object
from forgegate.backends.ollama import _chunk_text, _tag_entries

FUZZ = settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
                   st.floats(allow_nan=False), st.text(max_size=8))
JSON: st.SearchStrategy[Any] = st.recursive(
    LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12)
KEYS = st.sampled_from(["response", "message", "content", "done", "models", "name", "digest", "model", "error"])
SHAPED: st.SearchStrategy[Any] = st.recursive(
    LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)
RAW = st.one_of(
    st.builds(json.dumps, st.one_of(JSON, SHAPED)),
    st.text(max_size=40),
    st.integers(min_value=1, max_value=200_000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=4000, max_value=6000).map(lambda n: '{"response": ' + "9" * n + "}"),
)


@FUZZ
@given(text=RAW)
def test_any_stream_line_is_text_or_a_transient_backend_error(text: str) -> None:
    try:
        chunk = _chunk_text(load_object(text))
    except BackendError as exc:
        assert exc.transient
        return
    assert chunk is None or isinstance(chunk, str)


@FUZZ
@given(text=RAW)
def test_any_tags_answer_is_a_list_of_models_or_a_backend_error(text: str) -> None:
    try:
        models = _tag_entries("http://fake/api/tags", text)
    except BackendError:
        return
    assert isinstance(models, list) and all(isinstance(m, dict) for m in models)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=RAW)
def test_a_server_sending_any_line_gives_a_completion_or_a_backend_error(line: str) -> None:
    from backend_servers import Behaviour, run_requests
    from test_backends_ollama_malformed import OddLines

    from forgegate.backends import BackendConfig
    from forgegate.core.records import Completion, GenerationRequest

    server = OddLines(Behaviour())
    server.line = line.replace("\n", " ").encode("utf-8", "surrogatepass") + b"\n"
    with server:
        outcome = run_requests("ollama", BackendConfig(model="gloss", base_urls=(server.url,)),
                               [GenerationRequest(prompt="q", max_tokens=3)])[0]
    assert isinstance(outcome, Completion | BackendError)
