"""The typed, versioned results: writers produce the models, readers validate through them, schemas committed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lineage_helpers import category, passes, result
from report_helpers import ADVERSARIAL, arm_payloads, gloss_payload, run_cli, semantic_payload

from forgegate.cli.schema import SCHEMA_NAMES, schema_text
from forgegate.errors import InputError
from forgegate.report import render_markdown
from forgegate.report.gloss_section import gloss_view
from forgegate.results import (
    KINDS,
    MODELS,
    SCHEMA_VERSION,
    EvalResult,
    LineageRecord,
    SemanticMetricsResult,
    json_schema,
    parse_as,
    parse_result,
    upgrade_legacy,
)
from forgegate.results.base import schema_version_of

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = ROOT / "docs" / "schema"
EXAMPLE_DIRS = ("examples", "docs", "tests/data")


@pytest.fixture(scope="module")
def eval_payload(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return gloss_payload(tmp_path_factory.mktemp("eval"), ADVERSARIAL)


@pytest.fixture(scope="module")
def arms() -> dict[str, Any]:
    return arm_payloads()


def test_every_kind_has_a_model_a_schema_name_and_a_cli_name() -> None:
    assert set(KINDS) == set(SCHEMA_NAMES) == set(MODELS) | {"live"}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_committed_schema_is_what_the_model_produces_now(name: str) -> None:
    committed = SCHEMA_DIR / f"{name}.json"
    assert committed.is_file(), f"{committed} missing: run `forgegate schema --write-dir docs/schema`"
    assert committed.read_text(encoding="utf-8") == schema_text(json_schema(name)), (
        f"{committed} is stale: run `forgegate schema --write-dir docs/schema` and commit it")


def test_schema_command_prints_a_kinds_schema_and_refuses_an_unknown_kind() -> None:
    code, out = run_cli("schema", "live")
    assert code == 0 and json.loads(out) == json_schema("eval")
    code, out = run_cli("schema", "evl")
    assert code == 2 and "did you mean 'eval'" in out


def _example_results() -> list[tuple[str, Any]]:
    """Every JSON object in the repo's example folders that is a forgegate result (a gate word or a lineage line)."""
    found: list[tuple[str, Any]] = []
    for folder in EXAMPLE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.json*")):
            if SCHEMA_DIR in path.parents:
                continue
            lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" else [path.read_text()]
            for number, text in enumerate(lines, start=1):
                if not text.strip():
                    continue
                obj = json.loads(text)
                if isinstance(obj, dict) and ({"gate", "lineage_format", "schema_version"} & set(obj)):
                    found.append((f"{path.relative_to(ROOT)}:{number}", obj))
    return found


def test_every_example_result_in_the_repo_validates_against_its_model() -> None:
    examples = _example_results()
    assert any(where.startswith("examples/lineage/lineage.jsonl") for where, _ in examples)
    for where, obj in examples:
        parse_result(obj, where)


def test_writers_produce_the_versioned_contract_and_it_round_trips(eval_payload: dict[str, Any], arms: dict[str, Any],
                                                                    tmp_path: Path) -> None:
    written = [eval_payload, arms["voice"].result().model_dump(mode="json"),
               arms["memorization"].result(["corpus.txt"], 0).model_dump(mode="json"),
               arms["damage"].result().model_dump(mode="json"),
               SemanticMetricsResult.of(semantic_payload(tmp_path)).model_dump(mode="json")]
    assert [w["kind"] for w in written] == ["eval", "voice", "memorization", "damage", "semantic"]
    for payload in written:
        assert payload["schema_version"] == schema_version_of(payload["kind"])
        assert parse_result(json.loads(json.dumps(payload))).model_dump(mode="json") == payload


def _kept(old: Any, new: Any) -> bool:
    """Every key and value of ``old`` is in ``new`` (which may add keys)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and _kept(v, new[k]) for k, v in old.items())
    if isinstance(old, list):
        return isinstance(new, list) and len(old) == len(new) and all(map(_kept, old, new))
    return bool(old == new and type(old) is type(new))


def test_every_field_of_the_unversioned_contract_is_kept(eval_payload: dict[str, Any], arms: dict[str, Any]) -> None:
    """Version 1 adds kind and schema_version (and nulls for optional provenance); nothing is renamed or lost."""
    for old, new in ((arms["voice"].axis().to_json(), arms["voice"].result().to_json()),
                     (arms["damage"].axis().to_json(), arms["damage"].result().to_json())):
        assert set(new) - set(old) == {"kind", "schema_version"}
        assert _kept(old, new)
    expected = {"forgegate_version", "run_id", "kind", "model", "backend", "model_digest", "seed", "sampling",
                "store", "battery", "created", "gate_config", "gate", "reasons", "sigma_total", "categories",
                "failed_categories", "failure_modes", "token_sources", "items", "failure_mode_signatures"}
    added = {"stop_distribution", "format_followup", "loop_cutoff", "served_model",  # optional, added later
             "margin", "samples"}
    assert set(eval_payload) == expected | {"schema_version", "regated_from"} | added


def test_a_result_without_schema_version_is_upgraded_by_the_legacy_function(eval_payload: dict[str, Any]) -> None:
    old = {k: v for k, v in eval_payload.items() if k not in ("schema_version", "regated_from", "loop_cutoff")}
    assert upgrade_legacy(old, "old.json")["schema_version"] == SCHEMA_VERSION
    assert isinstance(parse_result(old, "old.json"), EvalResult) and eval_payload["schema_version"] == 2
    record = json.loads((ROOT / "examples" / "lineage" / "lineage.jsonl").read_text().splitlines()[0])
    assert "schema_version" not in record and isinstance(parse_result(record), LineageRecord)


def test_unknown_version_kind_or_field_is_refused_with_how_to_regenerate(eval_payload: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="regenerate") as info:
        parse_result(eval_payload | {"schema_version": 3}, "r.json")
    assert info.value.field == "schema_version"
    with pytest.raises(InputError, match="not one of"):
        parse_result(eval_payload | {"kind": "evaluation"}, "r.json")
    with pytest.raises(InputError, match="unknown field") as info:
        parse_result(eval_payload | {"sigma": 0.5}, "r.json")
    assert info.value.field == "sigma" and "regenerate" in str(info.value)
    with pytest.raises(InputError, match="no known result shape"):
        parse_result({"gate": "PASS"}, "r.json")


def test_a_reader_expecting_one_kind_refuses_another(arms: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="a voice result"):
        parse_as(EvalResult, arms["voice"].result().model_dump(mode="json"), "v.json")


def test_gloss_reasons_carry_their_numbers_and_the_report_reads_the_models_fields(
        eval_payload: dict[str, Any]) -> None:
    typed = parse_as(EvalResult, eval_payload)
    for name, cat in typed.categories.items():
        reason = typed.reason(f"category {name} >= {typed.gate_config.category_floor:.2f}")
        assert reason is not None
        assert reason.numbers == {"category": name, "floor": typed.gate_config.category_floor, "score": cat.score,
                                  "n": cat.n, "passed": cat.passed, "missing": cat.missing}
    sigma = next(r for r in typed.reasons if r.rule.startswith("sigma_total"))
    assert sigma.numbers["sigma_total_min"] == typed.gate_config.sigma_total_min
    # the view takes thresholds from the model, not from rule text: rewording every rule changes nothing
    reworded = typed.model_copy(update={"reasons": [r.model_copy(update={"rule": "reworded"}) for r in typed.reasons]})
    view = gloss_view(reworded)
    assert view.floor == typed.gate_config.category_floor and view.sigma_min == typed.gate_config.sigma_total_min


def test_a_comparison_result_is_typed_and_a_report_refuses_it_by_kind() -> None:
    from forgegate.lineage import compare_runs
    from forgegate.lineage import parse_run_scores as run_scores

    old = result(category("LX-A", passes(9, 1)), run_id="a")
    new = result(category("LX-A", passes(9, 1)), run_id="b")
    payload = compare_runs(run_scores(old, "a"), run_scores(new, "b"), seed=0, n_resamples=200).model().to_json()
    assert payload["kind"] == "comparison" and parse_result(payload).kind == "comparison"
    with pytest.raises(InputError, match="a comparison result"):
        render_markdown(payload)


def test_a_version_1_gloss_result_keeps_its_review_word_as_a_decision_of_unknown_provenance(
        eval_payload: dict[str, Any]) -> None:
    """Version 2 turned an item's review into an object; a version-1 file (the bare word) still reads."""
    old = json.loads(json.dumps(eval_payload)) | {"schema_version": 1}
    old["items"][0] |= {"needs_review": True, "review": "fail"}
    item = parse_as(EvalResult, old, "v1.json").items[0]
    assert item.review is not None and (item.review.decision, item.review.reviewer, item.review.history) == (
        "fail", None, [])
    with pytest.raises(InputError, match="version 1 of a 'voice'|reads version 1"):
        parse_result(arm_payloads()["voice"].result().model_dump(mode="json") | {"schema_version": 2})
