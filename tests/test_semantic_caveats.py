"""Every semantic table, terminal, HTML and Markdown, carries T_GPT's caveats once, from one place (issue 36)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from report_helpers import parse, semantic_payload
from rich.console import Console

from forgegate.core.tgpt_caveats import SEMANTIC_CAVEATS
from forgegate.report import render_html
from forgegate.report.markdown import render_markdown
from forgegate.report.semantic_terminal import render_metrics
from forgegate.results import SemanticMetricsResult, parse_result

SPEC_WORDS = ("not latent-space loss", "never interpreted as irreversibility of model weights or cognition")


@pytest.fixture(scope="module")
def semantic(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return semantic_payload(tmp_path_factory.mktemp("sem"))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_caveats_quote_the_spec() -> None:
    joined = " ".join(SEMANTIC_CAVEATS)
    assert all(words in joined for words in SPEC_WORDS)


def test_terminal_html_and_markdown_each_carry_every_caveat_once(semantic: dict) -> None:
    typed = parse_result(semantic, "r")
    assert isinstance(typed, SemanticMetricsResult)
    buffer = io.StringIO()
    render_metrics(typed, Console(file=buffer, width=200))
    html = flat(" ".join(parse(render_html(semantic, rendered_at="2026-01-02T03:04:05+00:00")).text))
    markdown = flat(render_markdown(semantic)).replace("\\_", "_")  # Markdown escapes "_"
    outputs = {"terminal": flat(buffer.getvalue()), "html": html, "markdown": markdown}
    for name, text in outputs.items():
        for caveat in SEMANTIC_CAVEATS:
            assert text.count(flat(caveat)) == 1, (name, caveat)


def test_a_plan_without_semantics_prints_no_caveat(tmp_path: Path) -> None:
    from report_helpers import arm_payloads, plan_payload

    page = render_html(plan_payload(arm_payloads()), rendered_at="2026-01-02T03:04:05+00:00")
    assert SPEC_WORDS[0] not in page
