"""A plan comparison's ``primary_value`` is a typed model (issue 34, item 3): the block each endpoint's pipeline
writes validates into its model, dumps back to the same JSON, and the terminal reads it by attribute."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from forgegate.report.plan_terminal_parts import primary_text
from forgegate.results.primary import GlossPrimaryValue, SemanticPrimaryValue, primary_value_of

BLOCKS = {
    "pair metric": {"endpoint": "ES_LOSS", "value": 0.25, "ci": [0.1, 0.4], "n_tasks": 2, "pass_rule": None},
    "per condition": {"endpoint": "D_sem", "control": {"value": 0.5, "ci": None, "n_tasks": 2},
                      "candidate": {"value": 0.75, "ci": [0.6, 0.9], "n_tasks": 2}, "pass_rule": None},
    "not filled": {"endpoint": "R_META", "value": None, "ci": None, "comparison": "B - S (blinded recurrence rate)",
                   "note": "the blinded recurrence sheet is not filled yet", "pass_rule": None},
    "gloss": {"endpoint": "gate", "candidate": {"gate": "PASS", "sigma_total": 0.5},
              "control": {"gate": "FAIL", "sigma_total": None}},
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_each_endpoints_block_round_trips_through_its_model(name: str) -> None:
    typed = primary_value_of(BLOCKS[name])
    assert isinstance(typed, GlossPrimaryValue if name == "gloss" else SemanticPrimaryValue)
    assert json.dumps(typed.to_json()) == json.dumps(BLOCKS[name])


def test_the_terminal_cell_reads_the_model() -> None:
    cells = {name: primary_text(primary_value_of(block)) for name, block in BLOCKS.items()}
    assert cells["pair metric"] == "ES_LOSS 0.250 [0.100, 0.400]; no rule"
    assert cells["per condition"] == "D_sem candidate 0.750 [0.600, 0.900] vs control 0.500; no rule"
    assert cells["not filled"] == "R_META: the blinded recurrence sheet is not filled yet"
    assert cells["gloss"] == "GLOSS PASS (sigma_total 0.500) vs control FAIL (sigma_total n/a)"


def test_a_block_of_neither_shape_is_refused() -> None:
    with pytest.raises(ValidationError):
        primary_value_of({"endpoint": "gate", "candidate": {"gate": "PASS"}, "extra": 1})
