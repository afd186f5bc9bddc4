"""The loop detector as a stream's stop predicate: a loop is cut off as it starts (GLOSS v2's hard abort).

The spec's identity check is a "hard abort ... in the eval script": an answer that loops scores 0 at
once, so generating it to its cap only spends tokens. The pipeline builds one predicate per request here
and hands it to the engine (``run/`` never imports an instrument); a backend calls it while streaming and,
when it fires, stores the answer as it stood with finish ``loop``.

One place calls the detector for the cut-off and for scoring (``checks.score.score_item``), with the same
arguments: the item's prompt gives the query symbol, the model's token texts the units, the gate config's
``[loops]`` the settings. So the stored cut-off answer scores as a loop with the label the stream saw.
"""

from __future__ import annotations

from collections.abc import Sequence

from forgegate.checks.loops import LoopFinding, detect_loop, query_symbol_of
from forgegate.core.loop_settings import LoopSettings
from forgegate.core.records import StreamStop


def loop_finding(prompt: str, text: str, tokens: Sequence[str] | None,
                 settings: LoopSettings | None = None) -> LoopFinding | None:
    """The loop scoring finds in ``text`` answering ``prompt`` under ``settings`` (None: GLOSS v2's rule)."""
    return detect_loop(text, tokens, query_symbol=query_symbol_of(prompt), settings=settings)


def loop_stop(prompt: str, settings: LoopSettings | None = None) -> StreamStop:
    """A fresh stop predicate for one answer to ``prompt``: fires once the answer so far loops under ``settings``."""

    def loops(text: str, tokens: Sequence[str] | None) -> bool:
        return bool(text.strip()) and loop_finding(prompt, text, tokens, settings) is not None

    return StreamStop(loops)
