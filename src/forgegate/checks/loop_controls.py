"""The loop detector's controls, run with every eval: planted loops it must find, clean texts it must not flag.

A blind detector would let a looping model through as clean; the gate turns a failed control
into INVALID (``forgegate.gate.controls``). This module only runs the detector and counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.checks.loops import detect_loop

POSITIVE_CONTROLS: tuple[tuple[str, str | None], ...] = (
    ("⊙ αα? → ⊚. ⊙ ααα? → ⊚. ⊙ αααα? → ⊚. ⊙ ααααα? → ⊚. ⊙ αααααα? → ⊚.", "α"),
    ("α = NOUS NOUS NOUS", None),  # GLOSS v2, invariant 3: the same token three times in a row
    ("α = NOUS, NOUS, NOUS.", None),  # ... with punctuation between (issue 44)
    ("Here is the list: la Femme, la Femme, la Femme, la Femme, la Femme, la Femme, la Femme", None),
    ("1. Monday 2. Tuesday 3. Wednesday 4. Thursday 5. Friday 6. Saturday 7. Sunday 8. Monday "
     "9. Tuesday 10. Wednesday 11. Thursday 12. Friday 13. Saturday 14. Sunday 15. Monday 16. Tuesday "
     "17. Wednesday 18. Thursday 19. Friday 20. Saturday 21. Sunday", None),
)
# The same loop as a model streams it: token pieces, as the token path of the detector sees real answers.
TOKEN_PIECES_CONTROL: tuple[str, ...] = ("Here", " is", " the", " list", ":") + (" la", " Fem", "me", ",") * 6
NEGATIVE_CONTROLS: tuple[str, ...] = (
    "α = NOUS. The crew verifies the forge at Φ 0.042 and the threshold Ω is 97.4.",
    "The ship carried 1000 crates... ha ha, said the captain, and then the crew went home.",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "- NOUS\n- AION\n- ASTRA\n\n---\n\nIt was very, very quiet.",
)


@dataclass(frozen=True)
class ControlOutcome:
    """How an instrument did on its controls: planted cases found, clean cases wrongly flagged."""

    instrument: str
    planted: int
    found: int
    clean: int
    flagged: int

    @property
    def passed(self) -> bool:
        return self.found == self.planted and self.flagged == 0


def run_loop_detector_controls() -> ControlOutcome:
    """Plant known loops (must be found) and clean text (must not be flagged)."""
    found = sum(detect_loop(text, query_symbol=symbol) is not None for text, symbol in POSITIVE_CONTROLS)
    found += detect_loop("".join(TOKEN_PIECES_CONTROL), TOKEN_PIECES_CONTROL) is not None
    flagged = sum(detect_loop(text) is not None for text in NEGATIVE_CONTROLS)
    return ControlOutcome("loop detector", planted=len(POSITIVE_CONTROLS) + 1, found=found,
                          clean=len(NEGATIVE_CONTROLS), flagged=flagged)
