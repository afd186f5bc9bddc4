"""Issue 39: a result is called GLOSS only under a GLOSS v2 gate, and the live test's σ_total is shown honestly.

The small gate of tests/report_helpers.py declares ``gloss_v2 = false``: before, ``rescore`` printed "GLOSS RESCORE"
and ``--markdown`` "GLOSS eval" for it, and ``live`` printed "σ_total: n/a (answers missing)" with none missing.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from report_helpers import ADVERSARIAL, gloss_payload, run_cli, stored_run
from rich.console import Console

from forgegate.report.eval_terminal import print_eval
from forgegate.report.markdown import render_markdown
from forgegate.results import EvalResult


@pytest.fixture(scope="module")
def payload(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return gloss_payload(tmp_path_factory.mktemp("labels"), ADVERSARIAL)


def under_gloss_v2(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "gate_config": {**payload["gate_config"], "gloss_v2": True}}


def printed(payload: dict[str, Any]) -> str:
    out = io.StringIO()
    print_eval(EvalResult.model_validate(payload), Console(file=out, width=200, no_color=True))
    return out.getvalue()


def test_the_markdown_title_says_gloss_only_under_a_gloss_v2_gate(payload: dict[str, Any]) -> None:
    assert payload["gate_config"]["gloss_v2"] is False
    title = render_markdown(payload).splitlines()[0]
    assert "GLOSS eval" not in title and "Eval under gate 'report-test' (not GLOSS v2)" in title
    assert render_markdown(under_gloss_v2(payload)).splitlines()[0] == "### ❌ GLOSS eval: **FAIL**"


def test_rescore_under_a_gate_that_is_not_gloss_v2_is_not_titled_gloss(tmp_path: Path) -> None:
    store_path, _battery, gate = stored_run(tmp_path, ADVERSARIAL)
    code, out = run_cli("rescore", store_path, "--gate-config", gate)
    assert code == 1, out
    assert "GLOSS RESCORE" not in out and "RESCORE under gate 'report-test' (not GLOSS v2)" in out


def test_live_prints_that_sigma_total_is_not_used_rather_than_answers_missing(payload: dict[str, Any]) -> None:
    live = {**payload, "kind": "live", "sigma_total": None}
    assert all(item["error"] is None for item in live["items"])  # nothing is missing
    text = printed(live)
    assert "σ_total: not used by the live test" in text and "answers missing" not in text
    assert "σ_total: 0." in printed(payload) or "σ_total: 1." in printed(payload)  # an eval still shows its number
