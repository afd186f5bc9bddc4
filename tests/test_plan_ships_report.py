"""The ship choice and the leak audit in a plan run's result, HTML report and Markdown summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_helpers import arm_payloads, parse, plan_payload
from view_helpers import client

from forgegate.core.verdict import Gate
from forgegate.gate.ship import Contender, ship_choice
from forgegate.pipeline.plan.score import ScoredComparison, contender
from forgegate.report import render_html
from forgegate.report.markdown import render_markdown
from forgegate.results import PlanRunResult, ReasonModel, parse_result

WHEN = "2026-01-02T03:04:05+00:00"


@pytest.fixture(scope="module")
def reports() -> dict:
    return arm_payloads()


def with_ships(payload: dict) -> dict:
    decision = ship_choice([Contender("tuned", Gate.PASS, (0.0, 0), 0.05, ship_candidate=True),
                            Contender("ckpt850", Gate.PASS, (0.0, 0), 0.001)],
                           ["memorization", "seed_spread"], "ckpt850", 2.0)
    return {**payload, "ships": {"arm": decision.arm, "outcome": decision.outcome.value,
                                 "candidates": ["tuned", "ckpt850"], "axes": ["memorization", "seed_spread"],
                                 "prior": "ckpt850",
                                 "reasons": [ReasonModel.of(r).to_json() for r in decision.reasons]},
            "leak_audit": {"sha256": "f" * 64, "gate": "PASS", "finding": "CLEAN", "origin": "leak.json",
                           "detail": "finding CLEAN, controls green: on the record"}}


def test_the_contender_reads_the_candidates_excess_copying_and_seed_variance(reports: dict) -> None:
    import statistics

    from forgegate.gate.arms import arms_verdict
    from forgegate.plan.plan_file import PlanComparison

    verdict = arms_verdict(reports["voice"].verdict, reports["memorization"].verdict, reports["damage"].verdict)
    scored = ScoredComparison(PlanComparison(control="base", candidate="tuned", primary="voice.delta_gap"),
                              reports["voice"], reports["memorization"], reports["damage"], verdict)
    entry = scored.model()
    got = contender(scored)
    mem = entry.memorization
    assert mem is not None and entry.voice is not None
    assert got.name == "tuned" and got.gate is verdict.gate
    assert got.copy_excess == (mem.arms["tuned"].hit_rate - mem.arms["base"].hit_rate,
                               mem.arms["tuned"].max - mem.arms["base"].max)
    by_seed = list(entry.voice.arms["tuned"].delta_by_seed.values())
    assert len(by_seed) >= 2 and got.seed_variance == statistics.variance(by_seed)  # the variance, not the range
    assert got.seed_variance != entry.voice.arms["tuned"].spread


def test_a_result_without_ships_still_parses_and_one_with_it_round_trips(reports: dict) -> None:
    plain = plan_payload(reports)
    assert parse_result({**plain, "kind": "plan", "schema_version": 1}, "r").ships is None  # type: ignore[union-attr]
    full = {**with_ships(plain), "kind": "plan", "schema_version": 1}
    parsed = parse_result(full, "r")
    assert isinstance(parsed, PlanRunResult) and parsed.ships is not None
    assert parsed.ships.arm == "ckpt850" and parsed.ships.reasons[-1].rule == "ship"
    assert parsed.leak_audit is not None and parsed.leak_audit.gate == "PASS"


def test_the_html_report_and_the_summary_show_which_candidate_ships_and_why(reports: dict) -> None:
    payload = {**with_ships(plan_payload(reports)), "kind": "plan", "schema_version": 1}
    page = render_html(payload, rendered_at=WHEN)
    section = "".join(parse(page.split('id="ships"')[1].split("</section>")[0]).text)
    assert "SHIPS: ckpt850" in section
    assert "does not resolve" in section and "resolves for a tied candidate on the seed_spread axis" in section
    assert "memorization, seed_spread" in section
    text = "".join(parse(page).text)
    assert "leak audit (on the lock)" in text and "gate PASS, finding CLEAN, leak.json" in text
    summary = render_markdown(payload)
    assert "**Ships: ckpt850**" in summary and "resolves for a tied candidate" in summary
    no_ships = render_html({**plan_payload(reports), "kind": "plan", "schema_version": 1}, rendered_at=WHEN)
    assert 'id="ships"' not in no_ships


def test_forgegate_view_shows_the_ship_choice_of_a_plan_result(reports: dict, tmp_path: Path) -> None:
    result = tmp_path / "plan-result.json"
    result.write_text(json.dumps({**with_ships(plan_payload(reports)), "kind": "plan", "schema_version": 1}))
    (tmp_path / "store").mkdir()
    page = client(tmp_path / "store", results=(result,)).get("/results/0")
    assert page.status_code == 200
    assert 'id="ships-arm">SHIPS: ckpt850</span>' in page.text and "resolves for a tied candidate" in page.text
