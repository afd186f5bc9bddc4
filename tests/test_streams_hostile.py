"""Issue 46, items 1-4: what a server did not say, or could not have said, is never scored.

A stream that starts with a byte-order mark keeps its first event; the client cap is a cap on tokens, not on
stream pieces; a token count the text cannot hold is not trusted; ``"text": null`` beside ``delta.content``
keeps the content. Stand-in servers (``stream_servers.OddEndingOpenAI`` / ``OddEndingOllama``) send the exact
bytes, as a real server cannot be made to."""

from __future__ import annotations

import json

import pytest
from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, run_requests
from stream_servers import DONE, OddEndingOllama, OddEndingOpenAI, sse

from forgegate.backends import BackendConfig, BackendError
from forgegate.backends.openai import from_choice
from forgegate.battery import BatteryItem
from forgegate.checks.score import score_item
from forgegate.core.records import ENDED_BY, Completion, GenerationRequest

REQUEST = GenerationRequest(prompt="q", max_tokens=10, chat=False)
BOM = b"\xef\xbb\xbf"
WORDS_121 = " ".join(f"w{i}" for i in range(121))


def _config(url: str) -> BackendConfig:
    return BackendConfig(model="gloss:latest", base_urls=(url,), timeout_s=10)


def _text(text: object) -> dict[str, object]:
    return {"choices": [{"index": 0, "text": text, "finish_reason": None}]}


def _finish(reason: str) -> bytes:
    return sse({"choices": [{"index": 0, "text": "", "finish_reason": reason}]})


def _usage(tokens: int) -> bytes:
    return sse({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": tokens}})


def _openai(events: list[bytes], request: GenerationRequest = REQUEST) -> Completion | BackendError:
    server = OddEndingOpenAI(Behaviour(script={"q": "unused"}))
    server.ending, server.odd_first = (events, False), None
    with server:
        return run_requests("openai", _config(server.url), [request])[0]


def _ollama(lines: list[bytes], request: GenerationRequest = REQUEST) -> Completion | BackendError:
    server = OddEndingOllama(Behaviour(script={"q": "unused"}))
    server.ending, server.odd_first = (lines, False), None
    with server:
        return run_requests("ollama", _config(server.url), [request])[0]


def _ndjson(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


# -- item 1: a byte-order mark before the first event ------------------------------------------------------

@pytest.mark.parametrize("split", [False, True], ids=["whole", "bom-over-three-chunks"])
def test_a_stream_starting_with_a_bom_keeps_its_first_event(split: bool) -> None:
    first = sse(_text("Paris. "))
    head = [BOM[:1], BOM[1:2], BOM[2:] + first] if split else [BOM + first]
    done = _openai([*head, sse(_text("HOW ABOUT NO.")), _finish("stop"), _usage(4), DONE])
    assert isinstance(done, Completion), done
    assert done.text == "Paris. HOW ABOUT NO."


def test_a_line_that_is_not_utf8_is_a_transient_error_not_a_replaced_answer() -> None:
    bad = b'data: {"choices": [{"index": 0, "text": "caf\xe9", "finish_reason": null}]}\n\n'
    done = _openai([bad, _finish("stop"), _usage(1), DONE])
    assert isinstance(done, BackendError) and done.transient and "not UTF-8" in str(done)


# -- item 2: the cap counts tokens, not stream pieces --------------------------------------------------------

CAPITAL = "HOW ABOUT NO . Paris is the capital"  # 8 tokens of the stand-in's tokenizer; "Paris" is the 5th


@pytest.mark.parametrize("tokens_per_chunk", [1, 3, 8])
def test_text_past_the_cap_is_never_kept_whatever_the_chunking(tokens_per_chunk: int) -> None:
    """A server that ignores max_tokens: one token a chunk is cut at the cap; several a chunk are cut at the cap
    too where the server's tokenizer places the tokens, and without it the answer is refused, never kept whole."""
    request = GenerationRequest(prompt="q", max_tokens=4, chat=False)
    for tokenizer in (None, "/extras/tokenize"):
        behaviour = Behaviour(script={"q": CAPITAL}, honour_cap=False, tokens_per_chunk=tokens_per_chunk,
                              tokenize_path=tokenizer)
        with FakeOpenAIServer(behaviour) as server:
            (done,) = run_requests("openai", _config(server.url), [request])
        if isinstance(done, BackendError):
            assert tokens_per_chunk > 1 and tokenizer is None and not done.transient, done
            assert "ignored the cap" in str(done)
            continue
        # a delta's text comes with its last token: the kept text is the first 4 tokens' or less, never more
        assert "HOW ABOUT NO . ".startswith(done.text), (done, tokenizer)
        assert done.tokens == 4 and done.finish == "length" and done.extra[ENDED_BY] == "forgegate-cap"
        assert done.text == "HOW ABOUT NO . " or tokens_per_chunk > 1


def test_an_ollama_stream_of_several_tokens_a_chunk_past_num_predict_is_not_kept_whole() -> None:
    behaviour = Behaviour(script={"q": CAPITAL}, honour_cap=False, tokens_per_chunk=3,
                          models={"gloss:latest": "d" * 64})
    with FakeOllamaServer(behaviour) as server:
        (done,) = run_requests("ollama", _config(server.url), [GenerationRequest(prompt="q", max_tokens=4,
                                                                                   chat=False)])
    assert isinstance(done, BackendError) and not done.transient and "ignored the cap" in str(done)


# -- item 3: a count the text cannot hold ---------------------------------------------------------------------

def test_the_floor_counts_words_and_pieces() -> None:
    from forgegate.backends._tokencount import token_floor

    assert token_floor("a b  c") == 3 and token_floor("abc", pieces=2) == 2 and token_floor("") == 0
    assert token_floor(WORDS_121) == 121 and token_floor("0 \n 0 \u2028") == 2  # whitespace alone is no word


def test_121_words_reported_as_one_token_are_counted_as_121_and_flagged() -> None:
    request = GenerationRequest(prompt="q", max_tokens=200, chat=False)
    done = _openai([sse(_text(WORDS_121)), _finish("stop"), _usage(1), DONE], request)
    assert isinstance(done, Completion), done
    assert done.tokens == 121 and done.token_source == "text-floor" and done.text == WORDS_121
    assert "reported 1 completion tokens" in done.extra["token_count_disagreement"]
    ollama = _ollama([_ndjson({"response": WORDS_121, "done": False}),
                      _ndjson({"response": "", "done": True, "done_reason": "stop", "eval_count": 1})], request)
    assert isinstance(ollama, Completion) and ollama.tokens == 121 and ollama.token_source == "text-floor"


def test_a_stop_within_item_does_not_pass_on_an_impossible_count() -> None:
    request = GenerationRequest(prompt="q", max_tokens=200, chat=False)
    done = _openai([sse(_text("Paris. " + WORDS_121)), _finish("stop"), _usage(1), DONE], request)
    assert isinstance(done, Completion)
    item = BatteryItem(category="stop", prompt="q", expected=["Paris"], max_tokens=200, eval_type="contains",
                       stop_within=8)
    scored = score_item(item, done)
    assert not scored.passed and "did not stop before 8 tokens" in scored.detail


def test_an_impossible_count_past_the_cap_is_refused_not_cut_blind() -> None:
    done = _openai([sse(_text(WORDS_121)), _finish("stop"), _usage(1), DONE])  # cap 10
    assert isinstance(done, BackendError) and not done.transient and "ignored the cap" in str(done)


def test_an_unstreamed_answer_with_an_impossible_count_is_counted_from_its_words() -> None:
    behaviour = Behaviour(script={"q": WORDS_121}, send_usage=False)

    class Lying(FakeOpenAIServer):
        def handle_post(self, handler: object, body: dict[str, object]) -> None:
            if body.get("stream") is not True and getattr(handler, "path", "") == "/v1/completions":
                self.next_generation()
                handler.send_json(200, {"choices": [{"index": 0, "text": WORDS_121,  # type: ignore[attr-defined]
                                                     "finish_reason": "stop"}],
                                        "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
                return
            super().handle_post(handler, body)

    with Lying(behaviour) as server:
        first, second = run_requests("openai", _config(server.url), [
            GenerationRequest(prompt="q", max_tokens=200, chat=False),
            GenerationRequest(prompt="q", max_tokens=200, chat=False)])
    for done in (first, second):
        assert isinstance(done, Completion), done
        assert done.tokens >= 121 and done.token_source in ("text-floor", "stream-chunks")


# -- item 4: "text": null beside delta.content ------------------------------------------------------------------

def test_a_null_text_beside_delta_content_keeps_the_content() -> None:
    event = from_choice({"index": 0, "text": None, "delta": {"content": "Paris"}, "finish_reason": None})
    assert event.token == "Paris"
    done = _openai([sse({"choices": [{"index": 0, "text": None, "delta": {"content": "HOW ABOUT NO. "}}]}),
                    sse({"choices": [{"index": 0, "text": None, "delta": {"content": "Paris is the capital."}}]}),
                    _finish("stop"), _usage(7), DONE])
    assert isinstance(done, Completion) and done.text == "HOW ABOUT NO. Paris is the capital."


def test_two_different_texts_in_one_choice_are_a_malformed_answer() -> None:
    with pytest.raises(BackendError) as raised:
        from_choice({"index": 0, "text": "Paris", "delta": {"content": "Rome"}, "finish_reason": None})
    assert raised.value.transient
    assert from_choice({"index": 0, "text": "Paris", "delta": {"content": "Paris"}}).token == "Paris"
