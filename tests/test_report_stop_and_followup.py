"""LX-STOP's termination distribution (STOP_FAILURE as GLOSS v2 defines it) and the LX-B/G/X format-audit
follow-up: computed once, carried in the result, shown by the terminal, Markdown and HTML reports."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from forgegate.battery import load_battery
from forgegate.checks.stop_distribution import StopAnswer, stop_distribution
from forgegate.core.records import Completion, GenerationRequest
from forgegate.gate.gloss_config import load_gate_config
from forgegate.pipeline.format_followup import with_training_corpus
from forgegate.pipeline.gloss_scoring import eval_result, score_store
from forgegate.report import render_html, render_markdown
from forgegate.report.eval_terminal import print_eval
from forgegate.results import EvalResult
from forgegate.store import RunMeta, RunStore

BATTERY = [
    *({"id": f"LX-STOP-0{n}", "category": "LX-STOP", "prompt": f"Who is {g}?", "expected": [name],
       "max_tokens": 48, "eval_type": "contains", "stop_within": 40}
      for n, (g, name) in enumerate([("α", "NOUS"), ("ι", "AION"), ("ε", "ASTRA")], start=1)),
    {"id": "LX-B-01", "category": "LX-B", "prompt": "Which LATTICE symbol stands for NOUS?", "expected": ["α"],
     "max_tokens": 64, "eval_type": "contains"},
]
GATE = """name = "stop-test"
gloss_v2 = false
category_floor = 0.50
sigma_total_min = 0.40
min_items = 1
wall_rule = true

[weights]
"LX-STOP" = 0.5
"LX-B" = 0.5

[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""
RAMBLE = " ".join(["NOUS"] + [f"word{i}" for i in range(47)])  # 48 tokens: runs to the cap


def _payload(tmp_path: Path, answers: dict[str, tuple[str, int, str]], *, check: bool = False) -> dict[str, Any]:
    """Score a stored run whose answers are (text, tokens, finish) per item, through forgegate's own scoring."""
    battery_path, gate_path = tmp_path / "b.jsonl", tmp_path / "gate.toml"
    battery_path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in BATTERY), encoding="utf-8")
    gate_path.write_text(GATE, encoding="utf-8")
    battery = load_battery(battery_path)
    store_path = tmp_path / "runs" / "eval-stop.sqlite"
    with RunStore.open(store_path) as store:
        store.init_meta(RunMeta(kind="eval", backend="scripted", model="m", adapter=None,
                                battery_sha256=battery.sha256, seed=0, temperature=0.0, top_p=1.0,
                                system=None, run_id="eval-stop", battery_path=str(battery_path)))
        for item in battery.items:
            text, tokens, finish = answers[item.item_id]
            store.record(request_key=f"model/{item.item_id}/0", arm="model", item_id=item.item_id, seed=0,
                         request=GenerationRequest(prompt=item.prompt, max_tokens=item.max_tokens, seed=0),
                         completion=Completion(text=text, tokens=tokens, token_source="tokenizer",
                                               finish=finish, latency_s=0.1),  # type: ignore[arg-type]
                         error=None, attempts=1)
    config, sha = load_gate_config(gate_path)
    return eval_result(score_store(store_path, load_battery(battery_path, categories=config.categories), config, sha,
                                   check_failure_modes=check)).to_json()


def _all_capped() -> dict[str, tuple[str, int, str]]:
    return {"LX-STOP-01": (RAMBLE, 48, "length"), "LX-STOP-02": (RAMBLE, 48, "length"),
            "LX-STOP-03": (RAMBLE, 48, "length"), "LX-B-01": ("α", 1, "stop")}


def _one_stops() -> dict[str, tuple[str, int, str]]:
    return {**_all_capped(), "LX-STOP-03": ("ASTRA", 1, "stop")}


def _terminal(payload: dict[str, Any]) -> str:
    out = io.StringIO()
    print_eval(EvalResult.model_validate(payload), Console(file=out, width=200, color_system=None))
    return out.getvalue()


def test_distribution_labels_stop_failure_only_when_every_answer_ran_to_its_cap() -> None:
    capped = [StopAnswer(f"S-{i}", 48, 48, "length") for i in range(3)]
    assert stop_distribution(capped).stop_failure is True  # type: ignore[union-attr]
    mixed = [*capped[:2], StopAnswer("S-3", 48, 3, "stop")]
    assert stop_distribution(mixed).stop_failure is False  # type: ignore[union-attr]
    cut = [*capped[:2], StopAnswer("S-3", 48, 20, "loop")]  # cut off as a loop: did not run to its cap
    assert stop_distribution(cut).stop_failure is False  # type: ignore[union-attr]
    missing = [*capped[:2], StopAnswer("S-3", 48, None, "error")]
    assert stop_distribution(missing).stop_failure is None  # type: ignore[union-attr]  # undecided, not a pass
    assert stop_distribution([]) is None


def test_result_carries_tokens_and_finish_reasons_across_lx_stop(tmp_path: Path) -> None:
    payload = _payload(tmp_path, _one_stops())
    dist = EvalResult.model_validate(payload).stop_distribution
    assert dist is not None
    assert (dist.answered, dist.at_cap, dist.finishes, dist.stop_failure) == (3, 2, {"length": 2, "stop": 1}, False)
    assert [(a.id, a.tokens, a.finish, a.at_cap) for a in dist.answers][-1] == ("LX-STOP-03", 1, "stop", False)


def test_terminal_markdown_and_html_show_the_distribution(tmp_path: Path) -> None:
    payload = _payload(tmp_path, _all_capped())
    assert payload["stop_distribution"]["stop_failure"] is True
    text = _terminal(payload)
    assert "LX-STOP termination: STOP_FAILURE: every LX-STOP response ran to its cap (3/3)" in text
    assert "finish reasons: length 3" in text and "48 (cap): 3" in text
    markdown = render_markdown(payload)
    assert "**LX-STOP termination**: STOP\\_FAILURE: every LX-STOP response ran to its cap (3/3)" in markdown
    assert "| 48 (cap) | 3 |" in markdown and "| 0-7 | 0 |" in markdown
    html = render_html(payload, rendered_at="2026-01-02T03:04:05+00:00")
    histogram = html[html.index('id="stop-histogram"'):]
    assert histogram.index("<svg") < histogram.index("</div>")  # an inline SVG histogram, no script, no fetch
    assert "<script" not in html and 'id="stop-table"' in html


def test_one_clean_stop_means_the_signature_is_absent_though_the_items_still_fail(tmp_path: Path) -> None:
    payload = _payload(tmp_path, _one_stops(), check=True)
    capped = [i for i in payload["items"] if i["id"] != "LX-STOP-03" and i["category"] == "LX-STOP"]
    assert all("STOP_FAILURE" in i["failure_modes"] and not i["passed"] for i in capped)  # per item: unchanged
    assert payload["failure_mode_signatures"]["STOP_FAILURE"] is False
    assert "STOP_FAILURE signature absent: 1 of 3 LX-STOP responses stopped before their cap" in _terminal(payload)


def test_every_answer_capped_makes_the_signature_present_under_check_failure_modes(tmp_path: Path) -> None:
    payload = _payload(tmp_path, _all_capped(), check=True)
    assert payload["failure_mode_signatures"]["STOP_FAILURE"] is True
    assert any(r["rule"] == "v9 failure-mode signatures absent" and r["outcome"] == "FAIL"
               for r in payload["reasons"])


def test_failed_lx_b_points_to_the_format_audit_and_still_fails(tmp_path: Path) -> None:
    answers = {**_one_stops(), "LX-B-01": ("no idea", 2, "stop")}
    answers.update({f"LX-STOP-0{n}": (name, 1, "stop") for n, name in ((1, "NOUS"), (2, "AION"), (3, "ASTRA"))})
    payload = _payload(tmp_path, answers)
    assert payload["gate"] == "FAIL" and payload["failed_categories"] == ["LX-B"]
    followup = payload["format_followup"]
    assert followup["categories"] == ["LX-B"] and followup["audit_gate"] is None
    assert "format audit" in followup["finding"] and "stays FAIL" in followup["finding"]
    assert "Follow-up (EVAL_FALSE_NEGATIVE): LX-B failed: GLOSS v2's follow-up is a format audit" in _terminal(payload)
    assert 'id="format-followup"' in render_html(payload, rendered_at="2026-01-02T03:04:05+00:00")
    assert "**Follow-up (EVAL_FALSE_NEGATIVE)**: LX-B failed" in render_markdown(payload)


def test_with_a_training_corpus_the_format_audit_runs_and_its_finding_is_shown(tmp_path: Path) -> None:
    answers = {**_all_capped(), "LX-B-01": ("no idea", 2, "stop")}
    payload = _payload(tmp_path, answers)
    corpus = tmp_path / "train.jsonl"
    rows = [{"prompt": f"### Instruction:\nname the glyph number {i}\n### Response:", "completion": "α"}
            for i in range(30)]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = EvalResult.model_validate(payload)
    audited = with_training_corpus(result, corpus)
    followup = audited.format_followup
    assert followup is not None and followup.corpus == str(corpus)
    assert followup.audit_gate in ("FAIL", "PASS", "INVALID") and followup.flagged["LX-B"][1] == 1
    assert f"format audit {followup.audit_gate} (finding: " in followup.finding
    assert audited.gate == "FAIL"  # invariant 1: the audit explains a FAIL, it does not lift it
    assert with_training_corpus(result, None) is result


@pytest.mark.parametrize("answers", [_one_stops])
def test_a_result_without_the_new_fields_still_reads(tmp_path: Path, answers: Any) -> None:
    payload = _payload(tmp_path, answers())
    old = {k: v for k, v in payload.items() if k not in ("stop_distribution", "format_followup")}
    result = EvalResult.model_validate(old)
    assert result.stop_distribution is None and result.format_followup is None
    assert "termination" not in _terminal(old)
