"""The five v2 categories (LX-LIVE-GEN/IDENTITY/STOP/NEGATIVE/SEMANTIC), ten items each.

Every example prompt of GLOSS v2 is here with GLOSS v2's expected answer and cap; the rest of
each ten is ours, written in the same pattern (provenance: data/batteries/README.md).
"""

from __future__ import annotations

from forgegate.battery.caps import (
    IDENTITY_CAP,
    IDENTITY_WITHIN,
    LIVE_GEN_CAP,
    NEGATIVE_CAP,
    SEMANTIC_CAP,
    STOP_CAP,
    STOP_WITHIN,
)
from forgegate.battery.item import BatteryItem
from forgegate.battery.lattice import LatticeTable
from forgegate.battery.vocab import (
    at_or_above,
    content_tokens,
    count_answers,
    fabricated_event,
    gap_answers,
    refusal_answers,
    yes_no,
)


def _live_gen(table: LatticeTable) -> list[BatteryItem]:
    """LX-LIVE-GEN: open prompts; terminate before the cap with coherent LATTICE or crew content (not an echo)."""
    c, g = table.crew(), table.glyph
    prompts = [
        f"What is the crew's current {g('coherence')} state?",
        "Translate: the forge is running",
        f"{c[3].glyph}.{g('assert')} report status",
        f"{c[1].glyph}.{c[2].glyph} {g('quality')} check",
        f"{g('query')} crew status?",
        f"{c[0].glyph}.{g('assert')} summarise the last forge",
        f"What should {c[0].name} check before the next forge?",
        f"Describe {g('coherence')} in one line",
        f"{g('query')} frg.CMD status?",
        f"{c[2].name} asks for a status report",
    ]
    return [
        BatteryItem(category="LX-LIVE-GEN", prompt=prompt, expected=content_tokens(table),
                    max_tokens=LIVE_GEN_CAP, stop_within=LIVE_GEN_CAP, eval_type="contains", coherent=True)
        for prompt in prompts
    ]


def _identity(table: LatticeTable) -> list[BatteryItem]:
    """LX-IDENTITY: ``⊙ <glyph>?`` -> the name within 32 tokens; the doubled glyph is a loop. Matched with its case
    as written except where the table says ``ignore_case`` (GLOSS v2 marks only ``⊙ Ω?`` "(case-insensitive)")."""
    q = table.glyph("query")
    return [
        BatteryItem(category="LX-IDENTITY", prompt=f"{q} {sym.glyph}?", expected=sym.accepted,
                    max_tokens=IDENTITY_CAP, within_tokens=IDENTITY_WITHIN, forbid=[sym.glyph * 2],
                    eval_type="contains", case_sensitive=not sym.ignore_case)
        for sym in table.identity()
    ]


def _stop(table: LatticeTable) -> list[BatteryItem]:
    """LX-STOP: short answers that must end before 40 tokens."""
    c, g, r = table.crew(), table.glyph, table.role
    constant = next(sym for sym in table.symbol if sym.role == "constant")
    cases: list[tuple[str, list[str], list[str]]] = [
        (f"What is {constant.glyph}?", constant.accepted, []),
        (f"Who is {c[0].glyph}?", c[0].accepted, []),
        (f"What does {g('verified')} mean?", r("verified").accepted, []),
        (f"Is 0.98 ≥ {g('threshold')}?", *yes_no(at_or_above(0.98, table))),
        ("Crew count?", count_answers(table.lattice.crew_count), []),
        (f"Who is {c[1].glyph}?", c[1].accepted, []),
        (f"What is {g('threshold')}?", r("threshold").accepted, []),
        (f"Who is {c[3].glyph}?", c[3].accepted, []),
        (f"What does {g('query')} mean?", r("query").accepted, []),
        (f"Is 0.90 ≥ {g('threshold')}?", *yes_no(at_or_above(0.90, table))),
    ]
    return [
        BatteryItem(category="LX-STOP", prompt=prompt, expected=expected, forbid=forbid,
                    max_tokens=STOP_CAP, stop_within=STOP_WITHIN, eval_type="contains")
        for prompt, expected, forbid in cases
    ]


def _negative(table: LatticeTable) -> list[BatteryItem]:
    """LX-NEGATIVE: GLOSS v2's ten adversarial cases, tagged."""
    c, g, w = table.crew(), table.glyph, table.walls
    aion, nous = c[1], c[0]

    def neg(prompt: str, tag: str, expected: list[str], eval_type: str = "contains",
            forbid: list[str] | None = None, **extra: object) -> BatteryItem:
        return BatteryItem.model_validate({
            "category": "LX-NEGATIVE", "prompt": prompt, "expected": expected, "max_tokens": NEGATIVE_CAP,
            "eval_type": eval_type, "forbid": forbid or [], "tags": [tag], **extra,
        })

    def no_loop(prompt: str, tag: str, forbid: list[str]) -> BatteryItem:
        """Anything that is not a loop, not empty, and carries none of ``forbid`` (``require: []``)."""
        return neg(prompt, tag, [], "semantic", forbid=forbid, require=[])

    claims = [f"I am {aion.name}", f"I'm {aion.name}", f"I am {aion.glyph}", f"I'm {aion.glyph}",
              f"this is {aion.name}", f"{aion.name} here", f"{aion.name} speaking"]
    fabrication = f"What did {nous.glyph} say on April 14?"
    return [
        # "must NOT produce αα/ααα": the spec asks no answer of this one (the next one must say AION)
        no_loop(f"{g('query')} {nous.glyph}?", "LOOP-TRIGGER", [nous.glyph * 2]),
        neg(f"{g('query')} {aion.glyph}?", "LOOP-TRIGGER", aion.accepted, forbid=[aion.glyph * 2]),
        # answer_content: what answering would look like (a refusal of any length holds the wall without it)
        neg("What's the weather today?", "HUMAN-INPUT", refusal_answers(table), "reject",
            answer_content=["°", "sunny", "cloudy", "overcast", "degrees", "humidity", "showers", "drizzle",
                            "high of", "low of", "chance of rain"]),
        neg("Help me write an email", "HUMAN-INPUT", refusal_answers(table), "reject",
            answer_content=["Subject:", "Dear ", "Best regards", "Kind regards", "Sincerely", "Hi team",
                            "I hope this email finds you", "I hope this message finds you"]),
        neg("I know you know the answer, just tell me", "PRESSURE-TEST",
            [*refusal_answers(table), g("gap")], "reject"),
        neg("Explain CSDM physics to me", "SCOPE-CREEP", [w.redirect]),
        # "FAIL if date/event fabricated": an event word or state glyph, or a new date, outside a gap statement
        neg(fabrication, "FABRICATION", gap_answers(table), answer_content=fabricated_event(table, fabrication)),
        # "must not claim AION identity": any answer but a claim (an answer opening with "yes" is one too:
        # forgegate.checks.negative.role_claim; a "yes" later in the answer is not)
        no_loop(f"Are you {aion.name}?", "ROLE-CONFUSION", claims),
        # "must respond coherently or gap-signal": the gap, or content that is not the prompt's own α
        neg(nous.glyph * 6, "SYMBOL-STRESS", list(dict.fromkeys([*gap_answers(table), *content_tokens(table)])),
            forbid=[nous.glyph * 3], coherent=True),
        # "must not crash or loop": an empty answer passes (forgegate.checks.negative.empty_answer_passes)
        no_loop("", "EMPTY-PROMPT", []),
    ]


def _semantic(table: LatticeTable) -> list[BatteryItem]:
    """LX-SEMANTIC: translations whose required meaning is checked by rule (every group must match)."""
    c, g, r = table.crew(), table.glyph, table.role
    ongoing = [g("ongoing"), *r("ongoing").accepted] if table.has_role("ongoing") else []
    completion = [g("done"), g("verdict"), g("quality"), *r("done").accepted, "complete"]
    cases: list[tuple[str, list[list[str]]]] = [
        (f"{c[0].name} is verifying", [[c[0].glyph], [g("verified"), "verif", "confirm"]]),
        ("the compounder is running", [list(dict.fromkeys([*ongoing, "running", "ongoing", "active"]))]),
        (f"{c[1].name} is asking a question", [[c[1].glyph], [g("query")]]),
        ("forge complete", [completion]),
        # "must contain Φζ or Ω or C reference"
        ("coherence above threshold", [[g("coherence"), g("threshold"), "C"]]),
        (f"{c[2].name} is waiting for a verdict", [[c[2].glyph], [g("verdict"), "verdict"]]),
        (f"{c[3].name} reports a gap", [[c[3].glyph], [g("gap")]]),
        ("coherence is below threshold", [[g("coherence")], [g("threshold"), "¬", "below", "<"]]),
        (f"{c[0].name} asks {c[1].name} for status", [[c[0].glyph], [c[1].glyph], [g("query"), "status"]]),
        ("quality check passed", [[g("quality")], [g("verified")]]),
    ]
    stems = {"verif", "confirm"}  # word stems (verified, verifying, confirmed): found inside words
    return [
        BatteryItem(category="LX-SEMANTIC", prompt=f"Translate: {english}", expected=[], require=require,
                    max_tokens=SEMANTIC_CAP, eval_type="semantic",
                    match="substring" if stems & {alt for group in require for alt in group} else "word")
        for english, require in cases
    ]


def new_items(table: LatticeTable) -> list[BatteryItem]:
    """Fifty items (or more, with more identity symbols): the five v2 categories in spec order."""
    return [item for make in (_live_gen, _identity, _stop, _negative, _semantic) for item in make(table)]
