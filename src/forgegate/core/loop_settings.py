"""The loop detector's settings: the ``[loops]`` table of a gate config, GLOSS v2's rule as the defaults.

A gate config (a file the user writes) holds them as its ``[loops]`` table; they live in ``core`` so that
the detector in ``forgegate.checks.loops`` reads them without importing ``gate/``. Which direction
of each field is stricter, and the rule that a GLOSS v2 config may move a field only that way, is
``forgegate.gate.loop_strictness``.

The spec's rule (invariant 3, RUNAWAY_LOOP, the identity hard abort): the same token or short phrase
repeated >= 3 times in a row is a loop, with only punctuation or spaces between (``NOUS, NOUS, NOUS``), and so is a
run such as ``αααα``.
The other numbers say what ordinary text is *not* a loop: filler (an ellipsis, a markdown rule,
a table border), counting and times tables, a Latin interjection like ``Hmmm``. A run records the
settings it used (``gate_config.loops`` in the result JSON).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from forgegate.core.gloss_v2 import LOOP_PHRASE_TOKENS, LOOP_REPEATS
from forgegate.core.strict_model import StrictModel


class LoopSettings(StrictModel):
    """What counts as a loop. ``LoopSettings()`` is the GLOSS v2 rule; a gate config's ``[loops]`` may
    change any field (a GLOSS v2 config only in its stricter direction: ``forgegate.gate.loop_strictness``)."""

    repeats: int = Field(default=LOOP_REPEATS, ge=2)
    """A token or phrase coming round this many times in a row is a loop ("repeated >= 3 times")."""
    phrase_tokens: int = Field(default=LOOP_PHRASE_TOKENS, ge=1)
    """A repeated phrase counts once it is this many tokens long. GLOSS v2's 1: any short phrase ("same token or
    short phrase repeated >= 3 times"), so ``NOUS, NOUS, NOUS`` (the unit ``NOUS,``) is a loop. A higher value
    (``gloss_v2 = false`` only) makes a shorter unit come round until a phrase of >= ``phrase_tokens`` tokens has
    repeated ``repeats`` times (``very, very,`` three times for 3 and 3)."""
    max_period: int = Field(default=32, ge=1)
    """The longest phrase, in tokens, looked for as a strict repeat (a cycling weekday list is ~21)."""
    filler_only_min_chars: int = Field(default=120, ge=1)
    """A unit of pure filler (``...``, ``---``, ``|---|``) is a loop only over this many characters."""
    min_unit_word_chars: int = Field(default=2, ge=1)
    """With numbers read as ``#`` (``4. Ananasaki`` / ``5. Ananasaki``), one unit must carry this many
    letters or symbols, so that counting ``1, 2, 3`` or a times table ``2 x 3 = 6`` is not a loop."""
    char_run_repeats: int = Field(default=3, ge=2)
    """In-word runs: a 2-4 character non-Latin unit this many times (``αβαβαβ``), one character one
    more time (``αααα``, the spec's hard-abort example)."""
    latin_char_run_chars: int = Field(default=10, ge=2)
    """A Latin-only in-word run must also cover this many characters (``hahahahaha``, not ``Hmmm``)."""
    chain_tokens: int = Field(default=6, ge=2)
    """A phrase of this many tokens coming round ``repeats`` times with short varying gaps between
    (``I am here to help ... I'm here to help ...``) is a loop, not only a strict repeat ..."""
    chain_gap_factor: float = Field(default=2.0, ge=0)
    """... when the text between two repeats is at most this many times the repeated part ..."""
    chain_min_word_chars: int = Field(default=4, ge=1)
    """... and the phrase carries this many letters or symbols (a times table is not a loop)."""

    def record(self) -> dict[str, Any]:
        """The settings as a run records them (``gate_config.loops`` in the result JSON)."""
        return self.model_dump(mode="json")


SPEC_LOOP_SETTINGS = LoopSettings()
"""GLOSS v2's loop rule: what ``detect_loop`` uses when given no settings."""

LOOP_RULE = "gloss-v2-tokens-2"
"""The id of the current loop rule (``forgegate.checks.loops`` with ``SPEC_LOOP_SETTINGS``); part of a gate's identity
(``forgegate.gate.gloss_config.gate_identity``): the same config judged by another loop rule is another gate. ``-2``:
any short phrase three times in a row, punctuation between included; ``-1`` (before issue 44): phrases of >= 3
tokens, so ``NOUS, NOUS, NOUS`` was not a loop."""
