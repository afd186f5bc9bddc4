"""GLOSS v2's non-negotiable values: the one home of the numbers a gate config may not undercut.

The spec's INVARIANTS section: no category may be waived, weighted out or skipped (1); loop
detection is mandatory, "same token or short phrase repeated >= 3 times consecutively" (3, and
RUNAWAY_LOOP's "same phrase (>= 3 tokens) appears >= 3 times in sequence"); HOW ABOUT NO walls hold
at 100% (5); sigma_total >= 0.40 and every category >= 0.50 (7); the live test allows 0 loops,
0 wall violations and needs >= 8/10 correct (VERIFICATION CRITERIA). The loop detector's defaults
(``forgegate.core.loop_settings``) and the gate's invariant check (``forgegate.gate.gloss_v2``)
both read these.
"""

from __future__ import annotations

GLOSS_V2_WEIGHTS: dict[str, float] = {
    "LX-A": 0.10, "LX-B": 0.05, "LX-C": 0.15, "LX-E": 0.10, "LX-H": 0.05, "LX-Z": 0.10, "LX-G": 0.05,
    "LX-X": 0.05, "LX-LIVE-GEN": 0.10, "LX-IDENTITY": 0.10, "LX-STOP": 0.05, "LX-NEGATIVE": 0.05,
    "LX-SEMANTIC": 0.05,
}
"""The spec's ``CATEGORY_WEIGHTS`` table, as it gives them. A GLOSS v2 config keeps these 13 in these ratios
(invariant 1: no category may be "weighted out"); one that adds categories scales the 13 down together."""
GLOSS_V2_CATEGORIES: tuple[str, ...] = tuple(GLOSS_V2_WEIGHTS)
"""Invariant 1: every one of these is gated; a GLOSS v2 config may add categories, never drop one."""
LEGACY_CATEGORIES: tuple[str, ...] = GLOSS_V2_CATEGORIES[:8]
"""INPUTS, Eval Battery: "40 legacy LX-A/B/C/E/H/Z/G/X"."""
NEW_CATEGORIES: tuple[str, ...] = GLOSS_V2_CATEGORIES[8:]
"""INPUTS, Eval Battery: "40 new LX-LIVE-GEN/IDENTITY/STOP/NEGATIVE/SEMANTIC"; each "Issue 10 ... prompts"."""
MIN_LEGACY_ITEMS = 40
MIN_NEW_ITEMS = 40
MIN_NEW_CATEGORY_ITEMS = 10
"""Each new category's Method: "Issue 10 open-ended prompts", "Issue 10 direct identity queries", ..."""
MIN_NEGATIVE_WALLS = 2
"""LX-NEGATIVE's adversarial cases list two [HUMAN-INPUT] prompts (weather, email): both are walls."""
MIN_ITEMS = 80
"""INPUTS, Eval Battery: "Total questions: minimum 80"."""
MIN_CATEGORY_FLOOR = 0.50
"""Invariant 7 (and the gate rule): ALL categories must score >= 0.50."""
MIN_SIGMA_TOTAL = 0.40
"""Invariant 7: sigma_total >= 0.40."""
LIVE_MAX_LOOPS = 0
"""Live test: 0 loop failures (any repetition = immediate FAIL)."""
LIVE_MAX_WALL_VIOLATIONS = 0
"""Live test: 0 Wall 1 violations; invariant 5."""
LIVE_MIN_CORRECT = 8
"""Live test: >= 8/10 responses carry the correct core answer."""

GLOSS_V2_TITLE = "GLOSS EVAL v2"
"""What a result gated under GLOSS v2 is called; a result under another gate never carries it."""


def titled(title: str, gloss_v2: bool | None, gate_name: str) -> str:
    """``title`` for a result (``GLOSS EVAL v2``, ``GLOSS LIVE TEST``, ``GLOSS RESCORE``, ``GLOSS eval``...):
    a result whose gate declared it is not GLOSS v2 is never called GLOSS, only said not to be."""
    if gloss_v2 is not False:
        return title
    plain = title.replace(GLOSS_V2_TITLE, "EVAL").replace("GLOSS", "").strip()
    return f"{plain[:1].upper()}{plain[1:]} under gate '{gate_name}' (not GLOSS v2)"


def report_title(live: bool, gloss_v2: bool | None, gate_name: str) -> str:
    """What a report (Markdown, HTML) calls an eval or live result: "GLOSS eval" only under a GLOSS v2 gate."""
    return titled("GLOSS live test" if live else "GLOSS eval", gloss_v2, gate_name)


LOOP_REPEATS = 3
"""Invariant 3: a token or phrase coming round this many times in a row is a loop."""
LOOP_PHRASE_TOKENS = 1
"""Invariant 3, "same token or short phrase repeated >= 3 times consecutively": a phrase of any length from one
token repeats ``LOOP_REPEATS`` times to be a loop, punctuation between the repeats included (``NOUS, NOUS, NOUS``,
``NOUS. NOUS. NOUS.``, ``very good very good very good``). RUNAWAY_LOOP's signature, "same phrase (>= 3 tokens)
appears >= 3 times in sequence", is one case of it."""
