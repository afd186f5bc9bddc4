"""The HTML report: verdict and reasons on top, escaped model output, loop spans marked, self-contained, stable."""

from __future__ import annotations

import json
import re
from collections import Counter
from html import unescape
from pathlib import Path

import pytest
from report_helpers import ADVERSARIAL, GOOD, gloss_payload, neutralised, parse

from forgegate.errors import InputError
from forgegate.report import render_html
from forgegate.report.templates import CSS

WHEN = "2026-01-02T03:04:05+00:00"


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return gloss_payload(tmp_path_factory.mktemp("adv"), ADVERSARIAL)


def test_model_output_with_markup_does_not_change_the_page(adversarial: dict) -> None:
    hostile = parse(render_html(adversarial, rendered_at=WHEN))
    plain = parse(render_html(neutralised(adversarial), rendered_at=WHEN))
    assert hostile.tags == plain.tags  # the same elements, in the same order, as with harmless text
    counts = Counter(hostile.tags)
    assert counts["script"] == 0 and counts["iframe"] == 0 and counts["img"] == 0
    assert counts["style"] == 1 + counts["svg"]  # ours, and the one matplotlib puts in each SVG
    assert counts["table"] == 2 and counts["main"] == 1 and counts["h1"] == 0
    text = "".join(hostile.text)
    assert "</table></pre></main><script>alert('owned')</script><h1>PASS</h1>" in text  # shown, as text
    assert "<iframe src='http://evil.example/'></iframe>" in text


def test_no_attribute_of_the_page_fetches_or_runs_anything(adversarial: dict) -> None:
    page = render_html(adversarial, rendered_at=WHEN)
    shape = parse(page)
    for tag, name, value in shape.attrs:
        assert not name.startswith("on"), (tag, name)
        if name in ("href", "src", "xlink:href"):
            assert (value or "").startswith("#"), (tag, name, value)
    assert not [t for t in shape.tags if t in ("script", "link", "iframe", "object", "embed", "img")]
    assert "default-src 'none'" in page  # CSP: even an escaping bug could not load or run anything
    assert not re.search(r"url\((?!#)", page.split("<body>")[0])  # the CSS fetches nothing
    assert f"<style>{CSS}</style>" in page  # inlined as written (an entity in <style> would break the CSS)


def test_loop_output_is_shown_with_the_repeated_span_marked(adversarial: dict) -> None:
    shape = parse(render_html(adversarial, rendered_at=WHEN))
    loops = {i["id"]: i for i in adversarial["items"] if i["loop_span"]}
    assert set(loops) == {"LOOP-01", "LOOP-02"}
    expected = [i["response"][i["loop_span"][0]:i["loop_span"][1]] for i in loops.values()]
    for span in expected:  # in the failure report and in the loop section
        assert shape.marks.count(span) == 2


def test_verdict_and_every_reason_are_at_the_top(adversarial: dict) -> None:
    page = render_html(adversarial, rendered_at=WHEN)
    top = page.split('<h2>Provenance</h2>')[0]
    assert adversarial["gate"] == "FAIL"
    assert re.search(r'<span class="word" id="verdict-word">FAIL</span>', top)
    text = "".join(parse(top).text)
    for reason in adversarial["reasons"]:
        assert reason["rule"] in text and reason["detail"] in text


def test_provenance_names_battery_digest_version_and_date(adversarial: dict) -> None:
    text = "".join(parse(render_html(adversarial, created="2026-01-01T00:00:00+00:00", rendered_at=WHEN)).text)
    assert adversarial["battery"]["sha256"] in text
    assert "d" * 64 in text  # the model digest the store recorded
    assert "plan hash" in text and "none: a battery run" in text
    assert f"forgegate version (result){adversarial['forgegate_version']}" in text
    assert "2026-01-01T00:00:00+00:00" in text and WHEN in text


def test_failure_report_lists_each_failing_item_with_output_tokens_finish_and_modes(adversarial: dict) -> None:
    text = "".join(parse(render_html(adversarial, rendered_at=WHEN)).text)
    failing = [i for i in adversarial["items"] if not i["passed"]]
    assert len(failing) == 5
    assert "Failure report (5 failing items)" in text
    for item in failing:
        assert item["prompt"] in text and item["response"] in text
        assert f"{item['tokens']} tokens" in text and f"finish {item['finish']}" in text
    assert "WALL_COLLAPSE" in text and "RUNAWAY_LOOP" in text


def test_category_chart_is_inline_svg_with_the_floor_and_sigma(adversarial: dict) -> None:
    page = render_html(adversarial, rendered_at=WHEN)
    chart = page.split('id="category-chart">')[1].split("</div>")[0]
    assert chart.startswith("<svg") and chart.endswith("</svg>")
    assert "category floor 0.50" in chart and "σ_total minimum 0.40" in chart
    for name in adversarial["categories"]:
        assert f">{name}<" in chart


def test_missing_answers_show_the_error_and_an_incomplete_verdict(tmp_path: Path) -> None:
    payload = gloss_payload(tmp_path, GOOD, errors={"QA-02": "HTTP 503 <b>upstream</b> after 4 attempts"})
    assert payload["gate"] == "INCOMPLETE"
    page = render_html(payload, rendered_at=WHEN)
    text = "".join(parse(page).text)
    assert "HTTP 503 <b>upstream</b> after 4 attempts" in text
    assert 'id="verdict-word">INCOMPLETE<' in page


def test_same_result_renders_the_same_bytes(adversarial: dict) -> None:
    assert render_html(adversarial, rendered_at=WHEN) == render_html(adversarial, rendered_at=WHEN)


def test_a_json_that_is_no_forgegate_result_is_an_input_error() -> None:
    with pytest.raises(InputError, match="gate"):
        render_html({"categories": {}}, source="x.json")
    with pytest.raises(InputError, match="no known result shape"):
        render_html({"gate": "PASS", "foo": 1}, source="x.json")


def test_live_result_has_no_sigma_bar_and_says_why(adversarial: dict) -> None:
    live = {**adversarial, "kind": "live", "sigma_total": None}
    page = render_html(live, rendered_at=WHEN)
    chart = page.split('id="category-chart">')[1].split("</div>")[0]
    assert "σ_total" not in "".join(parse(chart).text)
    # the fixture's gate declares gloss_v2 = false: the live test is not called GLOSS (issue 39)
    assert "not used by the live test" in page and "Live test under gate 'report-test' (not GLOSS v2)" in unescape(page)
    assert "GLOSS live test" not in page


def test_write_reports_writes_both_files_or_neither(tmp_path: Path, adversarial: dict) -> None:
    from forgegate.report import write_reports

    html, md = tmp_path / "r.html", tmp_path / "r.md"
    write_reports(adversarial, html, md)
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert md.read_text(encoding="utf-8").startswith("### ❌ Eval under gate 'report-test' (not GLOSS v2): **FAIL**")
    with pytest.raises(InputError):
        write_reports({"gate": "PASS"}, tmp_path / "x.html", tmp_path / "x.md")
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "x.md").exists()


def test_every_review_shows_who_decided_when_and_why_and_what_it_replaced_escaped(adversarial: dict) -> None:
    payload = json.loads(json.dumps(adversarial))
    first, second = payload["items"][0], payload["items"][1]
    first |= {"needs_review": True, "review": {
        "decision": "pass", "reviewer": "ana <i>", "decided_at": "2026-12-01T10:00:00+00:00", "note": "<b>ok</b>",
        "history": [{"decision": "fail", "reviewer": "bo", "decided_at": "2026-12-01T09:00:00+00:00", "note": None}]}}
    second |= {"needs_review": True, "review": None}
    page = render_html(payload, rendered_at=WHEN)
    assert 'id="reviews">Human reviews (1\nof 2 decided)' in page
    assert ("<b>pass</b> by <b class=\"reviewer\">ana &lt;i&gt;</b>\nat 2026-12-01T10:00:00+00:00: "
            "&lt;b&gt;ok&lt;/b&gt;") in page
    assert "replaced, oldest first: fail by bo at 2026-12-01T09:00:00+00:00</span>" in page
    assert f"<strong class=\"mono\">{second['id']}</strong>" in page and "pending: awaits a reviewer" in page
    assert "ana <i>" not in page and "<b>ok</b>" not in page
