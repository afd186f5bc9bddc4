"""Reading a training corpus: JSONL prompt/completion rows or chat ``messages`` rows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgegate.audit.wordmatch import nfc
from forgegate.errors import InputError
from forgegate.jsonio import (
    MAX_CORPUS_FILE_BYTES,
    iter_jsonl_lines,
    read_bytes_or_input_error,
    validation_to_input_error,
)

_SHAPES = ('each line is {"prompt": ..., "completion": ...} or '
           '{"messages": [{"role": "user", "content": ...}, {"role": "assistant", "content": ...}]}')


class CompletionRow(BaseModel):
    """A raw prompt/completion training row."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str
    completion: str


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class ChatRow(BaseModel):
    """A chat training row: the messages a chat template renders."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: list[ChatMessage] = Field(min_length=1)


@dataclass(frozen=True)
class CorpusRow:
    """One training row, flattened: for chat rows the prompt is the last user message before
    the final assistant message and the completion is that assistant message; ``earlier``
    holds the (user, assistant) exchanges before it in a multi-turn row."""

    line: int
    prompt: str
    completion: str
    chat: bool
    system: str | None = None
    earlier: tuple[tuple[str, str], ...] = ()

    @property
    def exchanges(self) -> tuple[tuple[str, str], ...]:
        """Every (prompt, completion) exchange the row trains on, the final one last."""
        return (*self.earlier, (self.prompt, self.completion))


def read_corpus(path: Path) -> list[CorpusRow]:
    """Every row of a corpus file with its line number; an empty corpus is an error."""
    path = Path(path)
    rows: list[CorpusRow] = []
    raw = read_bytes_or_input_error(path, what="corpus file", limit=MAX_CORPUS_FILE_BYTES)
    for number, obj in iter_jsonl_lines(path, raw):
        rows.append(_parse_row(path, number, obj))
    if not rows:
        raise InputError(path, "the corpus has no rows", hint=_SHAPES)
    return rows


def _parse_row(path: Path, number: int, obj: dict[str, object]) -> CorpusRow:
    try:
        if "messages" in obj:
            chat = ChatRow.model_validate(obj)
        elif "prompt" in obj or "completion" in obj:
            raw = CompletionRow.model_validate(obj)
            return CorpusRow(number, nfc(raw.prompt), nfc(raw.completion), chat=False)
        else:
            raise InputError(path, f"row has neither 'messages' nor 'prompt'/'completion' "
                             f"(fields: {', '.join(sorted(obj)) or 'none'})", line=number, hint=_SHAPES)
    except ValidationError as exc:
        error = validation_to_input_error(path, number, exc)
        error.hint = _SHAPES
        raise error from None
    messages = chat.messages
    last_assistant = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=None)
    if last_assistant is None:
        raise InputError(path, "chat row has no assistant message", line=number, field="messages",
                         hint="a training row needs the assistant turn the model learns")
    exchanges: list[tuple[str, str]] = []
    last_user = ""
    for message in messages[: last_assistant + 1]:
        if message.role == "user":
            last_user = nfc(message.content)
        elif message.role == "assistant":
            exchanges.append((last_user, nfc(message.content)))
    systems = [m.content for m in messages if m.role == "system"]
    prompt, completion = exchanges[-1]
    return CorpusRow(number, prompt, completion, chat=True,
                     system=nfc("\n".join(systems)) if systems else None, earlier=tuple(exchanges[:-1]))
