"""Arm comparisons and T_GPT in the report: strip plots with both floors, three-axis table, controls, lost clusters."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_helpers import arm_payloads, parse, plan_payload, semantic_payload

from forgegate.report import render_html
from forgegate.results import parse_result

WHEN = "2026-01-02T03:04:05+00:00"


@pytest.fixture(scope="module")
def reports() -> dict:
    return arm_payloads()


@pytest.fixture(scope="module")
def semantic(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return semantic_payload(tmp_path_factory.mktemp("sem"))


def test_plan_report_has_the_three_axis_row_and_its_verdict(reports: dict) -> None:
    payload = plan_payload(reports)
    page = render_html(payload, rendered_at=WHEN)
    table = page.split('id="three-axis"')[1].split("</table>")[0]
    row = "".join(parse(table).text)
    voice = payload["comparisons"][0]["voice"]
    assert "tuned vs base" in row and "voice.delta_gap" in row
    assert f"gap {voice['gap']:.3f} / pairwise floor {voice['floor_pairwise']:.3f}" in row
    assert "positive control saturated" in row
    assert payload["label"] in row
    text = "".join(parse(page).text)
    assert "a" * 64 in text and "e" * 64 in text  # plan hash and a model digest in the provenance


def test_voice_strip_plot_draws_each_seed_and_both_floors(reports: dict) -> None:
    voice = reports["voice"].axis().to_json()  # unversioned, as 0.1.0 wrote it
    page = render_html(voice, rendered_at=WHEN)
    svgs = [s.split("</svg>")[0] for s in page.split("<svg")[1:]]
    assert len(svgs) == 1
    chart = svgs[0]
    assert f"pairwise floor {voice['floor_pairwise']:.3f}" in chart
    assert f"all-arms floor {voice['floor_all_arms']:.3f}" in chart
    assert "held-out author text (positive control, max)" in chart
    for arm, row in voice["arms"].items():
        assert f">{arm}<" in chart
        for seed in row["delta_by_seed"]:
            assert f">{seed}<" in chart  # every seed is a labelled point
    assert "Austen &lt;b&gt;&amp;amp;&lt;/b&gt;" in page  # the author name, escaped wherever it appears


def test_memorisation_table_puts_the_positive_control_beside_the_arms(reports: dict) -> None:
    memo = reports["memorization"].axis().to_json()
    page = render_html(memo, rendered_at=WHEN)
    rows = page.split("verbatim n-gram hits")[1].split("</table>")[0]
    cells = "".join(parse(rows).text)
    assert "positive control: corpus passages" in cells and "negative control: shuffled passages" in cells
    assert "100.0%" in cells and f"saturated: {memo['positive_control']['saturated']}" in cells
    for arm in memo["arms"]:
        assert arm in cells


def test_damage_axis_draws_one_strip_plot_per_metric(reports: dict) -> None:
    damage = reports["damage"].axis().to_json()
    page = render_html(damage, rendered_at=WHEN)
    assert page.count("<svg") == len(damage["metrics"]) == 2
    for metric in ("out-of-band", "ran-on"):
        assert f"{metric} rate per arm and seed" in page


def test_single_axis_jsons_are_recognised(reports: dict) -> None:
    """Unversioned axis JSON (what 0.1.0 wrote) is upgraded to its model; the versioned one says its kind."""

    unversioned = [reports["voice"].axis(), reports["memorization"].axis(),
                   reports["damage"].axis()]
    assert [parse_result(r.to_json()).kind for r in unversioned] == ["voice", "memorization", "damage"]
    typed = [reports["voice"].result(), reports["memorization"].result(),
             reports["damage"].result()]
    assert [parse_result(t.model_dump(mode="json")).kind for t in typed] == ["voice", "memorization", "damage"]


def test_semantic_report_marks_the_lost_cluster_and_shows_metrics_with_cis(semantic: dict) -> None:
    page = render_html(semantic, rendered_at=WHEN)
    charts = [s.split("</svg>")[0] for s in page.split("<svg")[1:]]
    assert len(charts) == 2  # one per task
    t1 = next(c for c in charts if "task t1" in c)
    assert "lost in B: c3" in t1 and "(lost)" in t1
    t2 = next(c for c in charts if "task t2" in c)
    assert "lost in B: none" in t2 and "(lost)" not in t2
    text = "".join(parse(page).text)
    es = semantic["across_tasks"]["ES_LOSS"]
    assert f"{es['value']:.3f} [{es['ci'][0]:.3f}, {es['ci'][1]:.3f}]" in text


def test_semantic_report_has_the_sensitivity_and_unmapped_tables(semantic: dict) -> None:
    page = render_html(semantic, rendered_at=WHEN)
    sens = "".join(parse(page.split("Support-threshold sensitivity")[1].split("</table>")[0]).text)
    for tau in semantic["sensitivity"]:
        assert tau in sens
    assert "(primary)" in sens
    unmapped = "".join(parse(page.split("UNMAPPED rate</h3>")[1].split("</table>")[0]).text)
    assert "3.1% (2 of 64)" in unmapped  # t1: 2 of A's 64 samples are UNMAPPED


def test_exploratory_results_carry_a_visible_label(tmp_path: Path, semantic: dict) -> None:
    exploratory = {**semantic, "mode": "exploratory", "exploratory_reasons": ["t1/B has N=40 < 64"]}
    text = "".join(parse(render_html(exploratory, rendered_at=WHEN)).text)
    assert "EXPLORATORY" in text and "t1/B has N=40 < 64" in text
