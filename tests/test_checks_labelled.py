"""The loop detector against hand-labelled outputs: real SmolLM2-135M responses and hard cases.

tests/data/loops/smollm2_labelled.jsonl holds real outputs of the embedded model (collected by
collect_smollm2.py, with the model's own token texts) that a person read and labelled
loop / no_loop; handwritten.jsonl holds hard negatives (1000, ..., very, very, very, tables, code, bullets,
counting) and hard positives (the v9 pattern, incrementing lists, cycling weekdays, sentence
loops). Thresholds: recall >= 0.90 and false alarms <= 0.05 on each set. A loop the gate
misses graduates a looping model, and a false alarm fails a good one; the spec treats both as
defects, so neither may pass one in ten, and false alarms, which hit every healthy response,
are held to one in twenty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgegate.checks import detect_loop, query_symbol_of

DATA = Path(__file__).parent / "data" / "loops"
MIN_RECALL = 0.90
MAX_FALSE_ALARMS = 0.05


def _rows(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _measure(rows: list[dict[str, object]]) -> tuple[float, float, list[str]]:
    tp = fn = fp = tn = 0
    wrong: list[str] = []
    for row in rows:
        text, tokens, prompt = str(row["text"]), row["tokens"], str(row["prompt"])
        assert row["label"] in ("loop", "no_loop")
        pieces = [str(t) for t in tokens] if isinstance(tokens, list) else None
        found = detect_loop(text, pieces, query_symbol=query_symbol_of(prompt)) is not None
        is_loop = row["label"] == "loop"
        tp += found and is_loop
        fn += (not found) and is_loop
        fp += found and not is_loop
        tn += (not found) and not is_loop
        if found != is_loop:
            wrong.append(f"{'missed' if is_loop else 'false alarm'}: {prompt!r}: {text[:70]!r}")
    recall, false_alarms = tp / (tp + fn), fp / (fp + tn)
    print(
        f"loops {tp + fn}, found {tp}, recall {recall:.3f}; clean {fp + tn}, flagged {fp}, "
        f"false-alarm rate {false_alarms:.3f}"
    )
    for line in wrong:
        print("  " + line)
    return recall, false_alarms, wrong


@pytest.mark.parametrize("name", ["smollm2_labelled.jsonl", "handwritten.jsonl"])
def test_detector_recall_and_false_alarms_on_labelled_outputs(name: str) -> None:
    rows = _rows(name)
    loops = sum(r["label"] == "loop" for r in rows)
    assert loops >= 15 and len(rows) - loops >= 15, "too few labelled rows of one class to measure"
    recall, false_alarms, _ = _measure(rows)
    assert recall >= MIN_RECALL
    assert false_alarms <= MAX_FALSE_ALARMS


def test_real_outputs_carry_the_models_own_token_boundaries() -> None:
    rows = _rows("smollm2_labelled.jsonl")
    assert all(isinstance(r["tokens"], list) and "".join(r["tokens"]) == r["text"] for r in rows)
    assert any(r["finish"] == "length" for r in rows) and any(r["finish"] == "stop" for r in rows)


def test_detector_rarely_flags_human_prose() -> None:
    """Paragraphs of public-domain novels (data/texts) are clean text with the repetition real
    writing has (anaphora, refrains, dialogue); almost none may be flagged."""
    import re

    texts = sorted((Path(__file__).parents[1] / "data" / "texts").glob("*.txt"))
    assert texts, "data/texts is part of the repository"
    paragraphs = []
    for path in texts:
        body = path.read_text(encoding="utf-8")
        paragraphs += [p.strip() for p in re.split(r"\n\s*\n", body) if len(p.strip()) > 200][200:230]
    flagged = [p[:60] for p in paragraphs if detect_loop(p) is not None]
    rate = len(flagged) / len(paragraphs)
    print(f"novel paragraphs {len(paragraphs)}, flagged {len(flagged)}, rate {rate:.4f}: {flagged}")
    assert len(paragraphs) >= 300
    assert rate <= 0.01
