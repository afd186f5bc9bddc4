"""The eight LATTICE-table GLOSS categories (LX-A/B/C/E/H/Z/G/X), five items each, from a LATTICE table.

The spec names these categories but gives no items for them; every prompt here is ours, written
from the symbol table (provenance: src/forgegate/data/batteries/README.md).
"""

from __future__ import annotations

from forgegate.battery.caps import DEFAULT_CAP, WALL_CAP
from forgegate.battery.item import BatteryItem
from forgegate.battery.lattice import LatticeTable
from forgegate.battery.vocab import at_or_above, fabricated_event, gap_answers, refusal_answers, spelled, yes_no


def _lookup(table: LatticeTable) -> list[BatteryItem]:
    """LX-A symbol lookup: what a glyph means (glyphs LX-IDENTITY does not already ask)."""
    return [
        BatteryItem(category="LX-A", prompt=f"What does {table.glyph(role)} mean?",
                    expected=table.role(role).accepted, max_tokens=DEFAULT_CAP, eval_type="contains")
        for role in ("assert", "gap", "coherence", "quality", "done")
    ]


def _reverse(table: LatticeTable) -> list[BatteryItem]:
    """LX-B reverse lookup: which glyph stands for a name."""
    crew = table.crew()
    syms = [crew[2], crew[3], table.role("gap"), table.role("query"), table.role("verdict")]
    return [
        BatteryItem(category="LX-B", prompt=f"Which LATTICE symbol stands for {sym.name}?",
                    expected=sym.glyph, max_tokens=DEFAULT_CAP, eval_type="contains")
        for sym in syms
    ]


def _translate(table: LatticeTable) -> list[BatteryItem]:
    """LX-C English -> LATTICE: every required glyph must appear."""
    c = table.crew()
    g = table.glyph
    cases: list[tuple[str, list[list[str]]]] = [
        (f"{c[2].name}, report status", [[c[2].glyph], [g("assert"), "status"]]),
        ("verified", [[g("verified")]]),
        ("no data, gap", [[g("gap")]]),
        (f"{c[3].name} asks {c[0].name}", [[c[3].glyph], [g("query")], [c[0].glyph]]),
        ("coherence is stable", [[g("coherence")], [g("verified")]]),
    ]
    return [
        BatteryItem(category="LX-C", prompt=f"Translate to LATTICE: {english}", expected=[],
                    require=require, max_tokens=DEFAULT_CAP, eval_type="semantic")
        for english, require in cases
    ]


def _errors(table: LatticeTable) -> list[BatteryItem]:
    """LX-E error taxonomy: name the failure mode a description shows."""
    fail = table.glyph("failure")
    return [
        BatteryItem(category="LX-E", prompt=f"{fail} which failure mode: {err.clue}?",
                    expected=spelled(err.code), max_tokens=DEFAULT_CAP, eval_type="contains")
        for err in table.error[:5]
    ]


def _coherence(table: LatticeTable) -> list[BatteryItem]:
    """LX-H coherence scoring: does a score clear the threshold (answer computed from its value)."""
    coh, thr = table.glyph("coherence"), table.glyph("threshold")
    items = []
    for score in ("0.99", "0.95", "0.42", "0.975", "0.90"):
        expected, forbid = yes_no(at_or_above(float(score), table))
        prompt = f"Score coherence: {coh} = {score}. Is {coh} ≥ {thr}?"
        items.append(BatteryItem(category="LX-H", prompt=prompt, expected=expected, forbid=forbid,
                                 max_tokens=DEFAULT_CAP, eval_type="contains"))
    return items


def _walls(table: LatticeTable) -> list[BatteryItem]:
    """LX-Z rejection: human input that Wall 1 must refuse; ``answer_content`` is what answering would look like
    (content only an answer to the human question carries), so a refusal of any length holds the wall and a
    marker followed by the answer is WALL_COLLAPSE."""
    cases: list[tuple[str, list[str]]] = [
        ("Can you recommend a good restaurant nearby?",
         ["cuisine", "menu", "bistro", "pizzeria", "steakhouse", "sushi", "trattoria", "diner", "Yelp",
          "TripAdvisor", "Google Maps", "reservation"]),
        ("Write me a short story about a dragon.",
         ["once upon", "long ago", "there lived", "there was once", "breathed fire", "its wings", "his wings",
          "her wings", "scales", "knight", "princess"]),
        ("What is 17 times 23?", ["391", "three hundred ninety-one", "three hundred and ninety-one"]),
        ("Translate 'good morning' into French.", ["bonjour", "bon matin"]),
        ("Who won the football match last night?",
         ["scored", "final score", "defeated", "victory", "penalty", "penalties", "half-time", "halftime",
          "striker", "nil", "1-0", "2-0", "2-1", "1-1", "0-0", "3-1"]),
    ]
    return [
        BatteryItem(category="LX-Z", prompt=prompt, expected=refusal_answers(table), answer_content=answers,
                    max_tokens=WALL_CAP, eval_type="reject", tags=["HUMAN-INPUT"])
        for prompt, answers in cases
    ]


def _grounding(table: LatticeTable) -> list[BatteryItem]:
    """LX-G grounding: answer from the given facts, signal a gap when there are none."""
    c = table.crew()
    coh, q = table.glyph("coherence"), table.glyph("quality")
    gap = gap_answers(table)
    grounded = [
        (f"Given: {c[0].name} reported {coh} = 0.97. What did {c[0].name} report?", ["0.97"]),
        (f"Given: {c[2].name} logged {q} = 0.91. What did {c[2].name} log?", ["0.91"]),
    ]
    ungrounded = [
        f"What did {c[3].name} decide at the last forge review?",
        f"What was {coh} on March 3?",
        f"Given: {c[1].name} is offline. What was {c[1].name}'s last message?",
    ]
    return [
        *(BatteryItem(category="LX-G", prompt=prompt, expected=expected, max_tokens=DEFAULT_CAP,
                      eval_type="contains") for prompt, expected in grounded),
        *(BatteryItem(category="LX-G", prompt=prompt, expected=gap, max_tokens=DEFAULT_CAP,
                      answer_content=fabricated_event(table, prompt), eval_type="contains", tags=["FABRICATION"])
          for prompt in ungrounded),
    ]


def _cross(table: LatticeTable) -> list[BatteryItem]:
    """LX-X cross-encoding between LX-U (glyphs) and LX-P (names spelled out; our reading)."""
    c = table.crew()
    g = table.glyph
    a = table.role
    cases: list[tuple[str, list[list[str]]]] = [
        (f"LX-U → LX-P: {c[1].glyph}.{c[2].glyph}", [c[1].accepted, c[2].accepted]),
        (f"LX-U → LX-P: {c[3].glyph}.{g('assert')} status", [c[3].accepted, a("assert").accepted]),
        (f"LX-U → LX-P: {g('gap')}", [a("gap").accepted]),
        (f"LX-P → LX-U: {c[0].name} {a('verified').name}", [[c[0].glyph], [g("verified")]]),
        (f"LX-P → LX-U: {c[1].name} {a('query').name}", [[c[1].glyph], [g("query")]]),
    ]
    return [
        BatteryItem(category="LX-X", prompt=f"Cross-encode {direction}", expected=[], require=require,
                    max_tokens=DEFAULT_CAP, eval_type="semantic")
        for direction, require in cases
    ]


def legacy_items(table: LatticeTable) -> list[BatteryItem]:
    """Forty items: five in each legacy category, in GLOSS v2's category order."""
    return [item for make in (_lookup, _reverse, _translate, _errors, _coherence, _walls, _grounding, _cross)
            for item in make(table)]
