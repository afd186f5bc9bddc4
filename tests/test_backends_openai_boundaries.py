"""Token boundaries on the non-streamed route: asked for (as log-probabilities) only by requests whose
scoring needs them, placed exactly or not at all, and without changing what an existing run holds.

The real llama-cpp-python server is covered in test_backends_openai_llamacpp_boundaries.py.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOpenAIServer, tokenize
from eval_helpers import run_cli_in_process, script_for
from store_helpers import LIVE
from test_backends_openai_unstreamed import config, one_by_one

from forgegate.backends._boundaries import from_offsets, from_token_texts
from forgegate.core.records import Completion, GenerationRequest

MODEL = "gloss:latest"


def whole_bodies(server: FakeOpenAIServer) -> list[dict[str, object]]:
    return [r.body for r in server.generation_requests() if r.path.endswith("completions") and not r.body.get("stream")]


def test_only_a_request_that_needs_boundaries_asks_for_logprobs() -> None:
    behaviour = Behaviour(script={"q": "a b c", "r": "x y"}, send_usage=False)
    requests = [GenerationRequest(prompt="q", max_tokens=50), GenerationRequest(prompt="q", max_tokens=50),
                GenerationRequest(prompt="r", max_tokens=50, token_boundaries=True),
                GenerationRequest(prompt="r", max_tokens=50, chat=False, token_boundaries=True)]
    with FakeOpenAIServer(behaviour) as server:
        plain, again, chat, raw = one_by_one(config(server.url), requests)
        bodies = whole_bodies(server)
    assert [{k: b[k] for k in ("logprobs", "top_logprobs") if k in b} for b in bodies] == [
        {}, {}, {"logprobs": True, "top_logprobs": 0}, {"logprobs": 0}]
    assert isinstance(plain, Completion) and isinstance(again, Completion)
    assert plain.token_texts is None and again.token_texts is None and "token_boundaries" not in plain.extra
    for done in (chat, raw):
        assert isinstance(done, Completion) and done.extra["streamed"] == "false"
        assert done.token_texts == tuple(tokenize("x y")) and done.tokens == 2
    assert isinstance(chat, Completion) and isinstance(raw, Completion)
    assert (chat.extra["token_boundaries"], raw.extra["token_boundaries"]) == ("logprobs tokens",
                                                                              "logprobs text_offset")


def test_a_server_that_streams_usage_is_never_asked_for_logprobs() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "a b c"})) as server:
        (done,) = one_by_one(config(server.url), [GenerationRequest(prompt="q", max_tokens=50, token_boundaries=True)])
        bodies = [r.body for r in server.generation_requests()]
    assert isinstance(done, Completion) and done.token_texts == ("a ", "b ", "c") and "streamed" not in done.extra
    assert len(bodies) == 1 and bodies[0]["stream"] is True and "logprobs" not in bodies[0]


def test_logprobs_that_do_not_place_the_text_give_no_boundaries_and_say_why() -> None:
    behaviour = Behaviour(script={"q": "a b c"}, send_usage=False, logprob_tokens={"a b c": ["a ", "z ", "c"]})
    with FakeOpenAIServer(behaviour) as server:
        (done,) = one_by_one(config(server.url), [GenerationRequest(prompt="q", max_tokens=50, token_boundaries=True)])
    assert isinstance(done, Completion) and done.token_texts is None and done.tokens == 3
    assert done.extra["token_boundaries"] == "none: the server's logprobs do not place every character of the text"


def test_logprobs_listing_another_count_than_usage_give_no_boundaries() -> None:
    behaviour = Behaviour(script={"q": "a b c"}, send_usage=False, logprob_tokens={"a b c": ["a ", "b c"]})
    with FakeOpenAIServer(behaviour) as server:
        (done,) = one_by_one(config(server.url), [GenerationRequest(prompt="q", max_tokens=50, token_boundaries=True)])
    assert isinstance(done, Completion) and done.token_texts is None and done.tokens == 3
    assert done.extra["token_boundaries"] == "none: the server's logprobs list 2 tokens for a count of 3"


def test_boundaries_cut_a_whole_answer_past_the_cap_at_the_cap() -> None:
    # without boundaries this overrun is an error (test_backends_openai_unstreamed); with them, an exact cut
    behaviour = Behaviour(script={"q": "a b c d e f"}, send_usage=False, honour_cap=False)
    with FakeOpenAIServer(behaviour) as server:
        _, done = one_by_one(config(server.url), [GenerationRequest(prompt="q", max_tokens=50),
                                                  GenerationRequest(prompt="q", max_tokens=3, token_boundaries=True)])
    assert isinstance(done, Completion)
    assert (done.text, done.tokens, done.finish, done.token_texts) == ("a b c ", 3, "length", ("a ", "b ", "c "))
    assert done.extra["server_exceeded_cap"] == "true" and done.extra["server_completion_tokens"] == "6"


@pytest.mark.parametrize(("listed", "text", "tokens"), [
    # llama-cpp-python decodes each token alone: a byte token of a split character lists ""
    (["", "", " is", " an"], "ι is an", ("", "ι", " is", " an")),  # ι as two byte tokens (SmolLM2)
    (["", "", "", " α", " is"], "⊙ α is", ("", "", "⊙", " α", " is")),  # ⊙ as three
    (["", "", "", "", "."], "ιι.", ("", "ι", "", "ι", ".")),  # two split characters in a row
    (["a", "cris"], "aÉcris", ("a", "Écris")),  # É split between two visible tokens: the second completes it
    (["x", "", ""], "x", ("x", "", "")),  # tokens that complete no character
    (["\n", "", "", ""], "\n🌟", ("\n", "", "", "🌟")),  # 4 bytes at the very end: the last token completes it
])
def test_split_characters_go_to_the_token_that_completes_them(listed: list[str], text: str,
                                                              tokens: tuple[str, ...]) -> None:
    assert from_token_texts(listed, text) == tokens


@pytest.mark.parametrize(("listed", "text"), [
    (["a", "", "cris"], "aÉcris"),  # 2 bytes, one empty entry: É completes in the empty one or in "cris"
    (["", "", "ι"], "ιι"),  # is the listed ι the first or the second?
    (["", "", "x"], "⊙x"),  # 3 bytes over two empty entries: "x" may hold the last
    (["", "", " ", "", "?"], "⊙ ⊹?"),  # " " may hold ⊹'s first byte, or "?" its last
    (["", "", "", "", "", "."], "ιι."),  # 4 bytes of two characters over five tokens
    (["a", "b"], "a c"),  # not the text at all
])
def test_an_uncertain_place_gives_no_boundaries(listed: list[str], text: str) -> None:
    assert from_token_texts(listed, text) is None


def test_offsets_place_split_characters_as_the_server_counted_them() -> None:
    # llama-cpp-python's text_offset: the prompt's length plus the decoded text before each token
    assert from_offsets([17, 17, 18, 21], ["", "", " is", " an"], "ι is an") == ("", "ι", " is", " an")
    assert from_offsets([5, 4], ["a", "b"], "ab") is None  # offsets that go back
    assert from_offsets([0, 1], ["a", "x"], "ab") is None  # a token whose own text is not its piece's end


def test_a_run_stored_before_the_boundary_flag_resumes_with_nothing_sent(tmp_path: Path) -> None:
    within = [i for i in LIVE.items if i.within_tokens is not None]
    assert within and len(within) < len(LIVE.items)
    behaviour = Behaviour(script=script_for(LIVE), models={MODEL: "f" * 64}, send_usage=False)
    store = tmp_path / "store"
    with FakeOpenAIServer(behaviour) as server:
        args = ["live", "--backend", "openai", "--model", MODEL, "--base-url", server.url, "--store", str(store),
                "--quiet"]
        made = run_cli_in_process(*args)
        asked = [b for b in whole_bodies(server) if "logprobs" in b]
        (run,) = store.glob("*.sqlite")
        with sqlite3.connect(run) as db:
            rows = db.execute("SELECT seq, item_id, request_json FROM responses").fetchall()
            flagged = {item for _, item, raw in rows if json.loads(raw).get("token_boundaries") is True}
            for seq, _, raw in rows:  # as a store written before the field existed holds them
                old = {k: v for k, v in json.loads(raw).items() if k != "token_boundaries"}
                db.execute("UPDATE responses SET request_json = ? WHERE seq = ?", (json.dumps(old), seq))
        sent = len(server.generation_requests())
        resumed = run_cli_in_process(*args)
        sent_again = len(server.generation_requests()) - sent
    assert made.returncode == 0, made.stderr
    assert len(asked) == len(within) and flagged == {i.item_id for i in within}
    assert resumed.returncode == 0, resumed.stderr
    assert sent_again == 0 and f"generated 0, resumed {len(LIVE.items)}" in resumed.stderr
