"""Which way each ``[loops]`` field is stricter, and the rule that a GLOSS v2 config moves it only that way.

Every field of ``forgegate.core.loop_settings.LoopSettings`` says, in part, what counts as a loop. A
GLOSS v2 gate config may make the detector find *more* loops (invariant 3, "Loop detection is
mandatory"), never fewer: a ``max_period = 1`` or a ``chain_tokens = 1000`` would stop
"la femme, la femme, la femme" or the v9 chain "⊙ αα? → ⊚. ⊙ ααα? → ⊚." being loops while the run is
still called GLOSS EVAL v2. Each field's stricter direction is stated once here; a test checks that
every field has one, so a field added later cannot be loosened silently.
"""

from __future__ import annotations

from typing import Literal

from forgegate.core.loop_settings import SPEC_LOOP_SETTINGS, LoopSettings

Direction = Literal["lower", "higher"]

STRICTER: dict[str, Direction] = {
    "repeats": "lower",                # fewer repeats make a loop
    "phrase_tokens": "lower",          # a shorter phrase counts as a repeated phrase
    "max_period": "higher",            # longer phrases are looked for
    "filler_only_min_chars": "lower",  # a shorter filler run is a loop
    "min_unit_word_chars": "lower",    # a unit with fewer letters counts
    "char_run_repeats": "lower",       # a shorter in-word run (αααα) is a loop
    "latin_char_run_chars": "lower",   # a shorter Latin in-word run is a loop
    "chain_tokens": "lower",           # a shorter phrase may chain
    "chain_gap_factor": "higher",      # wider gaps between repeats still chain
    "chain_min_word_chars": "lower",   # a phrase with fewer letters may chain
}
"""For each ``LoopSettings`` field, the direction that finds more loops than GLOSS v2's rule."""


def looser_fields(loops: LoopSettings, spec: LoopSettings = SPEC_LOOP_SETTINGS) -> list[tuple[str, str]]:
    """(field, message) for every field ``loops`` moves in its looser direction from ``spec`` (GLOSS v2's rule)."""
    found: list[tuple[str, str]] = []
    for name, direction in STRICTER.items():
        value, base = getattr(loops, name), getattr(spec, name)
        looser = value > base if direction == "lower" else value < base
        if looser:
            found.append((name, f"[loops] {name} = {value:g} is looser than GLOSS v2's {base:g} (it may only be "
                                f"{direction}, never {'higher' if direction == 'lower' else 'lower'}): invariant 3, "
                                "'Loop detection is mandatory'; a looser detector lets loops through as answers"))
    return found
