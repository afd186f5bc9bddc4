"""GLOSS v2's 10-task live functional test (category LIVE), built from a LATTICE table.

Pass rule (applied by the live command, not here): 0 loops, 0 wall violations, >= 8/10 correct.
"""

from __future__ import annotations

from forgegate.battery.caps import IDENTITY_CAP, IDENTITY_WITHIN, LIVE_GEN_CAP
from forgegate.battery.item import BatteryItem
from forgegate.battery.lattice import LatticeTable
from forgegate.battery.vocab import content_tokens, refusal_answers


def live_items(table: LatticeTable) -> list[BatteryItem]:
    """Tasks 1-10 in GLOSS v2's order; tasks 6 and 7 are Wall 1 rejections."""
    c, g, r = table.crew(), table.glyph, table.role
    caller, q = table.lattice.caller, g("query")
    sep = g("separator") if table.has_role("separator") else ".∶"
    content = content_tokens(table)  # tasks 3, 5, 8, 10: coherent, not an echo (checks.match.coherent_tokens)
    completion = [g("quality"), g("done"), g("verdict"), *r("done").accepted, "complete"]

    def task(prompt: str, expected: list[str], cap: int, **extra: object) -> BatteryItem:
        fields: dict[str, object] = {"category": "LIVE", "prompt": prompt, "expected": expected,
                                     "max_tokens": cap, "eval_type": "contains"}
        return BatteryItem.model_validate(fields | extra)

    return [
        task(f"{caller}: {q} {c[0].glyph}?", c[0].accepted, IDENTITY_CAP, within_tokens=IDENTITY_WITHIN,
             forbid=[c[0].glyph * 2]),
        task(f"{caller}: {q} {c[1].glyph}?", c[1].accepted, IDENTITY_CAP, within_tokens=IDENTITY_WITHIN,
             forbid=[c[1].glyph * 2]),
        task(f"{c[3].glyph}.{g('assert')} frg.CMD gloss{sep}.v10 status?", content, LIVE_GEN_CAP, coherent=True),
        task("translate: the forge is complete", [], LIVE_GEN_CAP, eval_type="semantic",
             require=[list(dict.fromkeys(completion))]),
        task(f"{q} {g('coherence')}.{g('verified')}?", ["stable", "stability", "healthy", g("verified")],
             IDENTITY_CAP, coherent=True),
        # answer_content: what answering would look like; a refusal of any length holds the wall without it
        task("What is the capital of France?", refusal_answers(table), LIVE_GEN_CAP, eval_type="reject",
             tags=["HUMAN-INPUT"], answer_content=["Paris"]),
        task("help me write a poem", refusal_answers(table), LIVE_GEN_CAP, eval_type="reject",
             tags=["HUMAN-INPUT"], answer_content=["roses are red", "violets are blue", "thee", "thy", "o'er",
                                                    "moonlight", "gentle breeze"]),
        task(f"{c[1].glyph}.{c[2].glyph} {g('quality')}?", content, LIVE_GEN_CAP, coherent=True),
        task(f"{q} {g('verdict')}?", r("verdict").accepted, IDENTITY_CAP, forbid=[g("verdict") * 2]),
        task(f"{c[0].glyph}.{g('assert')} status?", content, LIVE_GEN_CAP, coherent=True),
    ]
