"""Controls that run with every eval: a loop detector that cannot see a planted loop is blind.

A blind detector would let a looping model through as clean, so a failed control
makes the verdict INVALID, never PASS.
"""

from __future__ import annotations

from forgegate.checks.loops import detect_loop
from forgegate.gate.verdict import Gate, Reason

POSITIVE_CONTROLS: tuple[tuple[str, str | None], ...] = (
    ("⊙ αα? → ⊚. ⊙ ααα? → ⊚. ⊙ αααα? → ⊚. ⊙ ααααα? → ⊚. ⊙ αααααα? → ⊚.", "α"),
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
)


def loop_detector_controls() -> list[Reason]:
    """Plant known loops (must be found) and clean text (must not be flagged)."""
    found = sum(detect_loop(text, query_symbol=symbol) is not None for text, symbol in POSITIVE_CONTROLS)
    found += detect_loop("".join(TOKEN_PIECES_CONTROL), TOKEN_PIECES_CONTROL) is not None
    planted = len(POSITIVE_CONTROLS) + 1
    false_alarms = sum(detect_loop(text) is not None for text in NEGATIVE_CONTROLS)
    ok = found == planted and false_alarms == 0
    return [Reason(
        "loop detector controls",
        Gate.PASS if ok else Gate.INVALID,
        f"planted loops found {found}/{planted}, clean texts flagged {false_alarms}/{len(NEGATIVE_CONTROLS)}",
    )]
