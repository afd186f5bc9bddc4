"""Exact token boundaries of a non-streamed answer, from the per-token log-probabilities a server returns.

A server whose streams carry no usage (llama-cpp-python's ``llama_cpp.server``) is asked
without streaming, and its answer then has no token boundaries of its own. Asked for
log-probabilities (``logprobs``), it lists one entry per generated token, which places them,
at a price: that server sorts the whole vocabulary for every token (about four times the
generation), so forgegate asks only for requests whose scoring needs boundaries
(``GenerationRequest.token_boundaries``).

The convention is that of every backend: token ``i``'s text is the characters its bytes
complete, so the text of the first ``n`` tokens holds exactly the characters whose every byte
lies within them (a character the model spelled in several byte tokens belongs to the last).

* Legacy ``/completions`` gives ``text_offset``: the length of the decoded text before each
  token (llama-cpp-python decodes the whole prefix, dropping an incomplete last character),
  which is exactly that convention.
* ``/chat/completions`` gives only each token's own text, decoded alone: a token holding part
  of a character's bytes shows none of it (``ι`` as two byte tokens lists ``""``, ``""``). The
  hidden characters are the gaps between the listed texts, and they are placed only where the
  bytes prove where they complete: a gap right after visible text and before the next, with no
  empty entry between, completed in the next token; a gap of ``b`` UTF-8 bytes after ``b`` empty
  entries was one byte per token, each character completing at its last byte; a character hidden at
  the very end completed in the last token. Anything else is ambiguous (a token may hold the last
  bytes of one character and the first of the next text: ``" "`` may be a space and the lead byte
  of ``∎``), and no boundary is better than a wrong one: the caller then cuts approximately.

The chat route assumes every generated token carries at least one byte of the text: a stray
invalid byte (which the server's text drops too) or a special token in mid-answer (which
decodes to nothing) would be counted as part of a hidden character.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

Pieces = tuple[tuple[str, ...], str]
"""(one text per token, how they were found) on success."""


def logprob_request(chat: bool) -> dict[str, Any]:
    """The body fields that ask for one log-probability entry per generated token, and no alternatives."""
    return {"logprobs": True, "top_logprobs": 0} if chat else {"logprobs": 0}


def token_texts_of(choice: dict[str, Any], text: str, count: int) -> Pieces | str:
    """The token texts of a non-streamed ``choice`` whose text is ``text`` and usage ``count`` tokens,
    or why there are none (the reason says what the server sent)."""
    logprobs = choice.get("logprobs")
    if not isinstance(logprobs, dict):
        return "the server sent no logprobs"
    offsets, tokens = logprobs.get("text_offset"), logprobs.get("tokens")
    if _strings(tokens) and isinstance(offsets, list) and all(isinstance(o, int) for o in offsets):
        found = from_offsets(offsets, tokens, text)
        source = "logprobs text_offset"
    else:
        entries = logprobs.get("content")
        if _strings(tokens):
            entries = [{"token": t} for t in tokens]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return "the server's logprobs list no tokens"
        pieces = [e.get("token") for e in entries]
        if not _strings(pieces):
            return "a logprobs entry has no token text"
        found = from_token_texts(pieces, text)
        source = "logprobs tokens"
    if found is None:
        return "the server's logprobs do not place every character of the text"
    if len(found) != count or "".join(found) != text:
        return f"the server's logprobs list {len(found)} tokens for a count of {count}"
    return found, source


def _strings(values: object) -> TypeGuard[list[str]]:
    return isinstance(values, list) and all(isinstance(v, str) for v in values)


def from_offsets(offsets: Sequence[int], tokens: Sequence[str], text: str) -> tuple[str, ...] | None:
    """Token texts from the character offset of each token (counted from the first token's).

    None unless the offsets rise from the start of the text, one per token, and each token's
    own visible text ends its piece (a piece may begin with a character the token completed).
    """
    if len(offsets) != len(tokens):
        return None
    starts = [o - offsets[0] for o in offsets] if offsets else []
    if any(b < a for a, b in zip(starts, starts[1:], strict=False)) or (starts and starts[-1] > len(text)):
        return None
    ends = [*starts[1:], len(text)]
    pieces = tuple(text[a:b] for a, b in zip(starts, ends, strict=True))
    if any(not piece.endswith(token) for piece, token in zip(pieces, tokens, strict=True)):
        return None
    return pieces


def from_token_texts(pieces: Sequence[str], text: str) -> tuple[str, ...] | None:
    """Token texts from each token's own decoded text, placing the characters none of them shows
    (see the module doc); None where their place is not certain."""
    out: list[str] = []
    pos, empties = 0, 0
    for piece in pieces:
        if not piece:
            out.append("")
            empties += 1
            continue
        at = _only_place(text, piece, pos)
        head = None if at is None else _place_gap(out, text[pos:at], empties, before_visible=True)
        if at is None or head is None:
            return None
        out.append(head + piece)
        pos, empties = at + len(piece), 0
    if _place_gap(out, text[pos:], empties, before_visible=False) is None:
        return None
    return tuple(out)


def _only_place(text: str, piece: str, pos: int) -> int | None:
    """Where ``piece`` starts after a gap of hidden characters from ``pos``, if that is the only place.

    A hidden character was split over byte tokens, so it is never ASCII: the gap is a run of
    non-ASCII characters, and two places in that run would leave the gap's extent unknown.
    """
    run_end = pos
    while run_end < len(text) and not text[run_end].isascii():
        run_end += 1
    places = [at for at in range(pos, run_end + 1) if text.startswith(piece, at)]
    return places[0] if len(places) == 1 else None


def _place_gap(out: list[str], gap: str, empties: int, *, before_visible: bool) -> str | None:
    """Give the hidden characters ``gap`` to the tokens that completed them: what the next visible
    token's text starts with, or None when their place is not certain.

    ``out`` ends with the ``empties`` empty entries between the last visible token and the gap's
    end. With none, the gap is one character split between the visible tokens around it, and the
    next one completes it. With one byte per empty entry, each character belongs to the entry
    holding its last byte. One character hidden at the end of the text belongs to the last token.
    """
    if not gap:
        return ""
    if empties == 0:
        return gap if before_visible and len(gap) == 1 and out else None
    sizes = [len(char.encode()) for char in gap]
    if not before_visible and len(gap) == 1 and empties < sizes[0]:
        out[-1] = gap  # the text's last byte is the last token's: its last character completes there
        return ""
    if sum(sizes) != empties:
        return None
    first, done = len(out) - empties, 0
    for char, size in zip(gap, sizes, strict=True):
        done += size
        out[first + done - 1] += char
    return ""
