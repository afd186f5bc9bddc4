"""The texts the loop rule is measured on: public-domain prose, real model answers, real loops.

* prose: the public-domain novels and essays in ``data/texts`` (Project Gutenberg), body only, split
  into sentences; every ``step``-th sentence is kept so a test stays quick;
* normal answers: the responses people labelled ``no_loop`` in ``tests/data/loops`` (real SmolLM2
  answers and hand-written hard cases: numbers, ellipses, tables, code, counting);
* loops: the responses labelled ``loop`` there (the v9 pattern, runaway phrases, symbol runs).

The README's loop-rule table and ``test_loop_rule_rates.py`` both read these, so the figures and the
test measure the same thing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXTS = ROOT / "data" / "texts"
LABELLED = Path(__file__).resolve().parent / "data" / "loops"
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]*[A-Z])")
_PG_START = re.compile(r"^\*\*\* ?START OF.*$", re.MULTILINE)
_PG_END = re.compile(r"^\*\*\* ?END OF.*$", re.MULTILINE)

Detector = Callable[[str, str], bool]
"""(text, prompt) -> flagged as a loop."""


@dataclass(frozen=True)
class Labelled:
    prompt: str
    text: str
    is_loop: bool


def _body(text: str) -> str:
    start, end = _PG_START.search(text), _PG_END.search(text)
    return text[start.end() if start else 0 : end.start() if end else len(text)]


def prose_sentences(step: int = 1) -> Iterator[str]:
    """Every ``step``-th sentence of the bundled public-domain texts (paragraph breaks end a sentence too)."""
    index = 0
    for path in sorted(TEXTS.glob("*.txt")):
        for paragraph in re.split(r"\n\s*\n", _body(path.read_text(encoding="utf-8"))):
            flat = " ".join(paragraph.split())
            for sentence in _SENTENCE_END.split(flat):
                if len(sentence) < 2:
                    continue
                if index % step == 0:
                    yield sentence
                index += 1


def labelled() -> list[Labelled]:
    rows: list[Labelled] = []
    for name in ("smollm2_labelled.jsonl", "handwritten.jsonl"):
        for line in (LABELLED / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows.append(Labelled(str(row["prompt"]), str(row["text"]), row["label"] == "loop"))
    return rows


@dataclass(frozen=True)
class Rates:
    sentences: int
    sentences_flagged: int
    answers: int
    answers_flagged: int
    loops: int
    loops_found: int

    @property
    def sentence_false_alarms(self) -> float:
        return self.sentences_flagged / self.sentences

    @property
    def answer_false_alarms(self) -> float:
        return self.answers_flagged / self.answers

    @property
    def detection(self) -> float:
        return self.loops_found / self.loops


def measure(detector: Detector, sentences: list[str], rows: list[Labelled]) -> Rates:
    flagged = sum(detector(s, "") for s in sentences)
    normal = [r for r in rows if not r.is_loop]
    loops = [r for r in rows if r.is_loop]
    return Rates(len(sentences), flagged, len(normal), sum(detector(r.text, r.prompt) for r in normal),
                 len(loops), sum(detector(r.text, r.prompt) for r in loops))
