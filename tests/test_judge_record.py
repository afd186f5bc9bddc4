"""A codebook judge's record is a strict model (``results.JudgeRecord``, issue 34 item 3): a plan run's codebook
block keeps the record byte for byte as the judge wrote it, a record with a key no judge writes is refused at its
field before any judge is built, and the terminal reads the record's attributes."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from rich.console import Console

from forgegate.core.records import GenerationRequest
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.pipeline.semantic.judge import EmbeddingJudge, frozen_judge
from forgegate.report.plan_terminal_parts import print_semantic
from forgegate.results.judge_record import JudgeRecord
from forgegate.results.plan_cost import PlanCost
from forgegate.results.plan_run import PlanSemantic
from forgegate.results.semantic_blocks import CodebookInfo
from forgegate.semantic.entailment import LlmJudge

EXAMPLE_CODEBOOK = Path(__file__).resolve().parents[1] / "examples" / "tgpt" / "codebook.json"


class Transport:
    """What the pipeline's store-backed asker says of itself (no request is sent here)."""

    generated = reused = 0

    def answer(self, requests: Sequence[GenerationRequest]) -> list[str | None]:
        raise AssertionError("no request is sent to describe a judge")

    def describe(self) -> dict[str, Any]:
        return {"backend": "ollama", "model": "judge:1b", "base_urls": ["http://127.0.0.1:11434"]}

    def close(self) -> None:
        return None


def records() -> dict[str, dict[str, Any]]:
    """Every form a judge record takes: as the embedding and llm judges write it today, the bundled example's,
    an llm record frozen before ``base_urls`` was kept, and a partial nli record (the tests' stand-in)."""
    llm = LlmJudge(Transport()).describe()
    return {"embedding": EmbeddingJudge(embedder=None, threshold=0.8).describe(), "llm": llm,
            "example": json.loads(EXAMPLE_CODEBOOK.read_text(encoding="utf-8"))["rule"]["judge"],
            "llm-before-base-urls": {k: v for k, v in llm.items() if k != "base_urls"},
            "nli-partial": {"judge": "nli", "model": "oracle-stub"},
            "whole-threshold": {"judge": "embedding", "model": "m", "threshold": 1, "meaning": "cosine"}}


@pytest.mark.parametrize("name", list(records()))
def test_the_codebook_block_keeps_the_judge_record_byte_for_byte(name: str) -> None:
    record = records()[name]
    info = CodebookInfo.model_validate({"mode": "frozen", "judge": record})
    assert isinstance(info.judge, JudgeRecord)
    assert json.dumps(info.to_json()["judge"]) == json.dumps(record)  # same keys, order and number forms


def test_a_key_no_judge_writes_is_refused_by_the_model_and_by_the_plan_at_its_field(tmp_path: Path) -> None:
    record = {**records()["embedding"], "nearest": True}
    with pytest.raises(ValidationError, match="nearest"):
        JudgeRecord.model_validate(record)
    with pytest.raises(InputError) as caught:  # before the embedder loads: no judge is built on a bad record
        frozen_judge(record, tmp_path / "codebook.json")
    assert caught.value.field == "rule.judge.nearest" and "unknown field" in caught.value.message


def semantic_block(judge: dict[str, Any] | None) -> PlanSemantic:
    codebook = {"mode": "frozen", "frozen": True, "path": "book.json", "content_hash": "ab" * 32, "judge": judge}
    return PlanSemantic(gate=Gate.PASS, reasons=[], codebook=CodebookInfo.model_validate(codebook),
                        cost=PlanCost(note="n"), out_dir="out", experiment_note=None, metrics=None)


def shown(block: PlanSemantic) -> str:
    out = io.StringIO()
    print_semantic(block, Console(file=out, width=200, color_system=None))
    return out.getvalue()


def test_the_terminal_names_the_judge_its_model_and_threshold_from_the_record() -> None:
    record = records()["embedding"]
    assert f"book.json; judge embedding {record['model']} threshold {record['threshold']}; content hash" \
        in shown(semantic_block(record))
    llm = records()["llm"]
    line = next(line for line in shown(semantic_block(llm)).splitlines() if "book.json" in line)
    assert f"judge llm {llm['model']}; content hash" in line and "threshold" not in line
    assert "judge None None; content hash" in shown(semantic_block(None))
