"""A stand-in server whose every answer is composed at random (issue 46, deliverable 4): byte-order marks, the
pieces the tokens are streamed in, the token count it reports (true, absent, impossible, too high), where the
text goes (``text``, ``delta.content``, ``"text": null`` beside it, Ollama's ``response`` / ``message``), JSON
escaping, line endings, gzip, the HTTP chunks the body is cut into (as drawn, all in one, one a byte: how the
client's reads group the events), and how the stream ends.

The answer is made from words, and its tokens are the fake servers' (``backend_servers.tokenize``: a run of
non-space characters and the whitespace after it), so the stand-in knows the true count of any text it sent,
and its tokenizer endpoint (when it has one) counts as its stream does. A real server cannot be made to do
each of these on demand, hence the stand-in.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from typing import Any

from backend_servers import FakeServer, tokenize
from hypothesis import strategies as st

WORD_CHARS = "abcXYZ09.,!?éß⊙ι🌟\u2028\u0085\"\\/<>"
SEPARATORS = (" ", "  ", "\n", " \n")
ENDINGS = ("finished", "finished", "finished", "no-finish", "eof", "drop")
"""How the stream ends: the server's finish (and ``[DONE]`` / ``done: true``), or a cut (no finish, the end
of the body, the connection dropped)."""
READS = ("as-is", "as-is", "coalesced", "split")


@dataclass(frozen=True)
class Scenario:
    backend: str  # "openai" or "ollama"
    tokens: tuple[str, ...]
    """The whole answer's true tokens."""
    cap: int
    honour_cap: bool
    groups: tuple[int, ...]
    """How many tokens each streamed piece carries (cycled)."""
    usage: str  # "honest", "absent", "impossible", "over"
    field: str  # openai: "text", "delta", "null-text"; ollama: "response", "message"
    ascii_json: bool
    newline: bytes
    bom: bool
    gzip: bool
    cuts: tuple[int, ...]
    """Sizes of the HTTP chunks the body is written in (cycled), when ``reads`` is "as-is"."""
    ending: str
    tokenizer: bool
    reads: str = "as-is"
    """How the body's bytes reach the client's reads: "as-is" (the ``cuts``, grouped as TCP pleases),
    "coalesced" (the whole body one HTTP chunk: every event in one read) or "split" (one HTTP chunk a byte:
    httpx's parser hands each chunk on alone, so every event is split over reads whatever the load)."""

    def chunk_sizes(self, size: int) -> tuple[int, ...]:
        """The sizes of the HTTP chunks a body of ``size`` bytes is written in (cycled)."""
        return {"coalesced": (max(size, 1),), "split": (1,)}.get(self.reads, self.cuts)

    @property
    def sent(self) -> tuple[str, ...]:
        """The tokens the server sends: the answer, cut at the cap when it honours it."""
        return self.tokens[: self.cap] if self.honour_cap else self.tokens

    @property
    def text(self) -> str:
        return "".join(self.sent)

    def reported(self) -> int | None:
        true = len(self.sent)
        return {"honest": true, "absent": None, "impossible": 1 if true > 1 else true, "over": true + 3}[self.usage]

    def pieces(self) -> list[str]:
        out, at, i = [], 0, 0
        while at < len(self.sent):
            k = self.groups[i % len(self.groups)]
            out.append("".join(self.sent[at:at + k]))
            at, i = at + k, i + 1
        return out

    @property
    def clean(self) -> bool:
        """A scenario in which a correct client stores exactly what the server sent, whole: a finished stream
        within the cap, with a count it can trust (true) or none."""
        return self.ending == "finished" and self.usage in ("honest", "absent") and len(self.sent) <= self.cap

    @property
    def knowable(self) -> bool:
        """Whether the client can tell where the cap falls: every piece is one token, the server's tokenizer
        counts them, or the text's words are its tokens (a newline without a space joins two tokens into one
        word, and a floor of words then counts them as one)."""
        words = sum(1 for word in self.text.split(" ") if word.strip())
        return self.tokenizer or all(g == 1 for g in self.groups) or words == len(self.sent)


@st.composite
def scenarios(draw: st.DrawFn, backend: str | None = None) -> Scenario:
    name = backend or draw(st.sampled_from(["openai", "ollama"]))
    words = draw(st.lists(st.text(alphabet=WORD_CHARS, min_size=1, max_size=4), min_size=1, max_size=14))
    if name == "ollama":  # NDJSON split on U+0085/U+2028 is issue 46 item 10 (branch hostile-bounds): drop this
        words = [w.translate({0x85: None, 0x2028: None}) or "x" for w in words]  # filter once it is merged
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    text = "".join(w + s for w, s in zip(words, seps, strict=True)).rstrip(" \n") or words[0]
    fields = ("text", "delta", "null-text") if name == "openai" else ("response", "message")
    return Scenario(
        backend=name, tokens=tuple(tokenize(text)), cap=draw(st.integers(1, 12)), honour_cap=draw(st.booleans()),
        groups=tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))),
        usage=draw(st.sampled_from(["honest", "honest", "absent", "impossible", "over"])),
        field=draw(st.sampled_from(fields)), ascii_json=draw(st.booleans()),
        newline=draw(st.sampled_from([b"\n", b"\r\n", b"\r"] if name == "openai" else [b"\n", b"\r\n"])),
        bom=draw(st.booleans()) if name == "openai" else False, gzip=draw(st.booleans()),
        cuts=tuple(draw(st.lists(st.integers(1, 40), min_size=1, max_size=5))),
        ending=draw(st.sampled_from(ENDINGS)), tokenizer=name == "openai" and draw(st.booleans()),
        reads=draw(st.sampled_from(READS)))


class FuzzServer(FakeServer):
    """Answers every generation request as ``scenario`` says (set it before each request)."""

    scenario: Scenario | None = None

    @property
    def url(self) -> str:
        base = super().url
        return base + "/v1" if self.scenario is None or self.scenario.backend == "openai" else base

    def handle_get(self, handler: Any) -> None:
        if handler.path == "/api/tags":
            handler.send_json(200, {"models": [{"name": "gloss:latest", "digest": "f" * 64}]})
        elif handler.path == "/v1/models":
            handler.send_json(200, {"data": [{"id": "gloss:latest"}]})
        else:
            handler.send_json(404, {"error": "not found"})

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        s = self.scenario
        assert s is not None
        if handler.path in ("/extras/tokenize", "/tokenize"):
            if not s.tokenizer:
                handler.send_json(404, {"error": "not found"})
                return
            text = str(body.get("input", body.get("content", "")))
            handler.send_json(200, {"tokens": list(range(len(tokenize(text))))})
            return
        if s.backend == "openai" and body.get("stream") is not True:  # asked whole: the answer and its usage
            counted = s.reported()
            usage = {"usage": {"prompt_tokens": 1, "completion_tokens": counted}} if counted is not None else {}
            choice = {"index": 0, "text": s.text, "finish_reason": self._finish(s)}
            handler.send_json(200, {"choices": [choice], **usage})
            return
        self._stream(handler, s)

    def _stream(self, handler: Any, s: Scenario) -> None:
        body = self.body(s)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream" if s.backend == "openai" else "application/x-ndjson")
        if s.gzip:
            handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        at, i, sizes = 0, 0, s.chunk_sizes(len(body))
        try:
            while at < len(body):
                size = sizes[i % len(sizes)]
                handler.chunk(body[at:at + size])
                at, i = at + size, i + 1
            if s.ending == "drop":
                handler.drop()
            else:
                handler.end_chunked()
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True

    def body(self, s: Scenario) -> bytes:
        lines = self._openai(s) if s.backend == "openai" else self._ollama(s)
        raw = (b"\xef\xbb\xbf" if s.bom else b"") + b"".join(lines)
        return gzip.compress(raw) if s.gzip else raw

    def _dump(self, s: Scenario, obj: object) -> bytes:
        return json.dumps(obj, ensure_ascii=s.ascii_json).encode("utf-8")

    def _finish(self, s: Scenario) -> str:
        return "length" if len(s.sent) < len(s.tokens) else "stop"

    def _openai(self, s: Scenario) -> list[bytes]:
        end = s.newline * 2

        def event(obj: object) -> bytes:
            return b"data: " + self._dump(s, obj) + end

        def choice(text: str, finish: str | None) -> dict[str, Any]:
            if s.field == "text":
                return {"index": 0, "text": text, "finish_reason": finish}
            holder = {"delta": {"content": text} if text else {}, "finish_reason": finish, "index": 0}
            return holder | ({"text": None} if s.field == "null-text" else {})

        lines = [event({"choices": [choice(piece, None)]}) for piece in s.pieces()]
        if s.ending == "finished":
            lines.append(event({"choices": [choice("", self._finish(s))]}))
            if (counted := s.reported()) is not None:
                lines.append(event({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": counted}}))
        if s.ending in ("finished", "no-finish"):
            lines.append(b"data: [DONE]" + end)
        return lines

    def _ollama(self, s: Scenario) -> list[bytes]:
        def line(text: str, **more: Any) -> bytes:
            holder = {"response": text} if s.field == "response" else {"message": {"role": "assistant",
                                                                                   "content": text}}
            return self._dump(s, {"model": "gloss:latest", **holder, **more}) + s.newline

        lines = [line(piece, done=False) for piece in s.pieces()]
        if s.ending == "finished":
            counted = s.reported()
            lines.append(line("", done=True, done_reason=self._finish(s),
                              **({"eval_count": counted} if counted is not None else {})))
        return lines
