"""The Markdown summary: a PR comment with the verdict, the table and the top failures, model text defused."""

from __future__ import annotations

import re

import pytest
from report_helpers import ADVERSARIAL, arm_payloads, gloss_payload, plan_payload

from forgegate.report import render_markdown
from forgegate.report.markdown import TOP_FAILURES, md

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return gloss_payload(tmp_path_factory.mktemp("adv"), ADVERSARIAL)


def table_rows(text: str, header_start: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_summary_starts_with_the_verdict_and_lists_every_reason(adversarial: dict) -> None:
    text = render_markdown(adversarial)
    assert text.splitlines()[0] == "### ❌ Eval under gate 'report-test' (not GLOSS v2): **FAIL**"
    bullets = [line for line in text.splitlines() if line.startswith("- **")]
    assert len(bullets) == len(adversarial["reasons"])


def test_category_table_has_one_row_per_category(adversarial: dict) -> None:
    rows = table_rows(render_markdown(adversarial), "| category |")
    assert len(rows) == 2 + len(adversarial["categories"])
    assert all(len(UNESCAPED_PIPE.findall(r)) == 6 for r in rows)


def test_pipes_backticks_and_html_in_outputs_cannot_break_the_failure_table(adversarial: dict) -> None:
    text = render_markdown(adversarial)
    rows = table_rows(text, "| item |")
    assert len(rows) == 2 + 5  # header, rule, the five failing items
    assert all(len(UNESCAPED_PIPE.findall(r)) == 6 for r in rows)  # 5 columns in every row
    body = "\n".join(rows)
    assert "<" not in body and ">" not in body
    assert "&lt;script&gt;" in body and "\\`code\\`" in body and "\\| a \\| b \\|" in body
    assert not re.search(r"(?<!\\)`", body)


def test_top_failures_are_capped_for_a_pr_comment(adversarial: dict) -> None:
    many = {**adversarial, "items": [dict(adversarial["items"][0], id=f"X-{k}") for k in range(40)]}
    rows = table_rows(render_markdown(many), "| item |")
    assert len(rows) == 2 + TOP_FAILURES
    assert f"**Top failures** ({TOP_FAILURES} of 40)" in render_markdown(many)


def test_md_escapes_for_a_single_table_cell() -> None:
    assert md("a|b`c`\nd <x> @all [l](u)") == "a\\|b\\`c\\`⏎d &lt;x&gt; \\@all \\[l\\](u)"
    assert md("x" * 300, limit=10) == "x" * 10 + "…"


def test_plan_summary_is_the_three_axis_table() -> None:
    payload = plan_payload(arm_payloads())
    text = render_markdown(payload)
    rows = table_rows(text, "| candidate vs control |")
    assert len(rows) == 3
    assert "tuned vs base" in rows[2] and payload["label"] in rows[2]
