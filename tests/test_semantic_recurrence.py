"""E4_R_META: the blinded structural-recurrence sheet, and the rate difference between the two declared arms."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from semantic_helpers import metrics_args, run_cli, standard_files

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.errors import InputError
from forgegate.pipeline.plan.semantic import SemanticOutcome, endpoint_value
from forgegate.pipeline.semantic.recurrence_sheet import recurrence_outcome
from forgegate.plan.instruments import SemanticParams
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.codebook import TextSample
from forgegate.semantic.recurrence import recurrence_sheet, score_recurrence
from forgegate.semantic.sheets import read_sheet, sheet_csv, write_filled_sheet

# S recurs in 6 of 8 answers, C in 2 of 8 (the answer's text says so; the annotator "reads" it)
SAMPLES = ([TextSample(task=t, condition="S", sample=i, text=f"{'again the frame' if i < 3 else 'fresh'} {t}{i}")
            for t in ("t1", "t2") for i in range(4)]
           + [TextSample(task=t, condition="C", sample=i, text=f"{'again the frame' if i < 1 else 'plain'} {t}{i}")
              for t in ("t1", "t2") for i in range(4)]
           + [TextSample(task="t1", condition="other", sample=0, text="not on the sheet")])
QUESTIONS = {"t1": "Critique the story.", "t2": "Critique the poem."}
SETTINGS = BootstrapSettings(seed=3, n_resamples=1000)


def fill(folder: Path, blank_rows: int = 0) -> tuple[Path, Path]:
    sheet, key = folder / "recurrence_sheet.csv", folder / "recurrence_key.csv"
    assert recurrence_sheet(SAMPLES, QUESTIONS, ("S", "C"), sheet, key, seed=7) == 16
    _, rows = read_sheet(sheet)
    labels: dict[str, int | None] = {r["row"]: int(r["answer"].startswith("again")) for r in rows}
    for r in rows[:blank_rows]:
        labels[r["row"]] = None
    filled = folder / "filled.csv"
    write_filled_sheet(sheet, filled, "row", "recurs", labels)
    return filled, key


def test_the_sheet_is_blinded_and_the_difference_and_ratio_have_intervals(tmp_path: Path) -> None:
    filled, key = fill(tmp_path)
    header, rows = read_sheet(tmp_path / "recurrence_sheet.csv")
    assert header == ["row", "task", "question", "answer", "recurs"]
    assert [r["answer"] for r in rows] != sorted(r["answer"] for r in rows)  # shuffled
    assert "not on the sheet" not in (tmp_path / "recurrence_sheet.csv").read_text()  # only the declared arms
    score = score_recurrence(filled, key, "S", "C", SETTINGS)
    assert score["complete"] is True and score["rows"] == 16
    assert score["rates"]["S"] | {"ci": None} == {"value": 0.75, "ci": None, "n": 8, "recurring": 6}
    assert score["rates"]["C"]["value"] == 0.25
    diff = score["difference"]
    assert diff["value"] == pytest.approx(0.5) and diff["ci"][0] <= 0.5 <= diff["ci"][1] and diff["ci"][0] > -1
    assert score["ratio"]["value"] == pytest.approx(3.0)
    again = score_recurrence(filled, key, "S", "C", SETTINGS)
    assert again["difference"] == diff  # seeded


def test_blank_rows_leave_it_incomplete_and_an_edited_answer_is_refused_at_its_line(tmp_path: Path) -> None:
    filled, key = fill(tmp_path, blank_rows=2)
    score = score_recurrence(filled, key, "S", "C", SETTINGS)
    assert score["complete"] is False and len(score["unlabelled_rows"]) == 2 and score["difference"] is None
    base = Verdict.combine([Reason("semantic: metrics-computed", Gate.HOLD, "estimate")])
    from forgegate.gate.semantic import recurrence_reason

    verdict = recurrence_reason(base, score)
    assert verdict.gate is Gate.INCOMPLETE and "2 of 16 rows" in verdict.reasons[-1].detail
    header, rows = read_sheet(filled)
    rows[0]["answer"] += " (edited)"
    filled.write_bytes(sheet_csv(header, rows))
    with pytest.raises(InputError) as err:
        score_recurrence(filled, key, "S", "C", SETTINGS)
    assert err.value.line == 2 and err.value.field == "answer"


def params(**extra: Any) -> SemanticParams:
    return SemanticParams.model_validate({
        "reference": "A", "contracted": "B", "recovery": "R", "confirmatory": False, "experiment": "E4_R_META",
        "primary_endpoint": "STRUCTURAL_RECURRENCE", "bootstrap_seed": 7, "bootstrap_resamples": 500,
        "recurrence": {"structural": "S", "style_control": "C", "sheet": "filled.csv"}} | extra)


def test_a_plan_writes_the_sheet_is_incomplete_until_it_is_filled_then_gives_the_difference(tmp_path: Path) -> None:
    loaded = SimpleNamespace(resolve=lambda written: tmp_path / written)
    base = Verdict.combine([Reason("semantic: metrics-computed", Gate.HOLD, "estimate")])
    out_dir = tmp_path / "run.semantic"
    block, verdict = recurrence_outcome(loaded, params(), SAMPLES, QUESTIONS, out_dir, base)  # type: ignore[arg-type]
    assert verdict.gate is Gate.INCOMPLETE and block is not None and block["scored"] is False
    assert (out_dir / "recurrence_sheet.csv").is_file() and "label the 16 answers" in block["note"]
    outcome = SemanticOutcome({"across_tasks": {}}, {}, {}, out_dir, None, verdict, recurrence=block)
    assert endpoint_value(outcome, "STRUCTURAL_RECURRENCE", "A", "B")["note"]
    _, rows = read_sheet(out_dir / "recurrence_sheet.csv")
    write_filled_sheet(out_dir / "recurrence_sheet.csv", tmp_path / "filled.csv", "row", "recurs",
                       {r["row"]: int(r["answer"].startswith("again")) for r in rows})
    block, verdict = recurrence_outcome(loaded, params(), SAMPLES, QUESTIONS, out_dir, base)  # type: ignore[arg-type]
    assert verdict.gate is Gate.HOLD and block is not None and block["scored"] is True
    assert block["difference"]["value"] == pytest.approx(0.5)
    outcome = SemanticOutcome({"across_tasks": {}}, {}, {}, out_dir, None, verdict, recurrence=block)
    value = endpoint_value(outcome, "STRUCTURAL_RECURRENCE", "A", "B")
    assert value["value"] == pytest.approx(0.5) and value["comparison"].startswith("S - C")


def test_structural_recurrence_is_declared_with_its_sheet_and_refused_from_cluster_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="goes with \\[instruments.semantic.recurrence\\]"):
        params(recurrence=None)
    with pytest.raises(ValueError, match="goes with"):
        params(primary_endpoint="REC_GAIN")
    with pytest.raises(ValueError, match="two different arms"):
        params(recurrence={"structural": "S", "style_control": "S", "sheet": "f.csv"})
    samples, relevance = standard_files(tmp_path)
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--experiment", "E4_R_META",
                                        "--primary-endpoint", "STRUCTURAL_RECURRENCE"), capsys, monkeypatch)
    assert code == 2 and "blinded annotation sheet" in err


@pytest.mark.slow  # loads MiniLM (the draft codebook's embedding judge)
def test_forgegate_run_writes_the_blinded_sheet_then_scores_e4_without_regenerating(tmp_path: Path) -> None:
    import json

    from test_run_semantic import DEV_T1, DEV_T2, X1, SeededOllamaServer, answers_for, plan_text, run, write_plan

    from forgegate.plan import lock_plan

    seeds = list(range(1, 9))
    e4 = '[instruments.semantic.recurrence]\nstructural = "B"\nstyle_control = "A"\nsheet = "filled.csv"\n'
    text = plan_text("tgpt-e4", seeds, "URL").replace('experiment = "E2_RECOVERY"', 'experiment = "E4_R_META"\n'
                                                      'primary_endpoint = "STRUCTURAL_RECURRENCE"')
    text = text.replace("semantic.REC_GAIN", "semantic.STRUCTURAL_RECURRENCE")
    text = text.replace("\n[[comparisons]]", e4 + "\n[[comparisons]]")
    with SeededOllamaServer(answers_for(seeds, DEV_T1, DEV_T2)) as server:
        plan = write_plan(tmp_path / "p", text.replace("URL", server.url))
        lock_plan(plan)
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "first.json")
        first = json.loads((tmp_path / "first.json").read_text())["semantic"]
        assert code == 3 and first["recurrence"]["scored"] is False, output
        blank = Path(first["recurrence"]["blank_sheet"])
        _, rows = read_sheet(blank)
        assert len(rows) == 2 * 2 * 8  # tasks x the two arms x seeds
        # the "annotator" marks X1 (the bananas answer) as the recurring structure
        write_filled_sheet(blank, tmp_path / "p" / "filled.csv", "row", "recurs",
                           {r["row"]: int(r["answer"] == X1) for r in rows})
        posts = len(server.generation_requests())
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "second.json")
        assert len(server.generation_requests()) == posts  # nothing regenerated
    second = json.loads((tmp_path / "second.json").read_text())
    rec = second["semantic"]["recurrence"]
    # B answers X1 in all 16 generations; A in 2 of 8 (t1) and 6 of 8 (t2)
    assert rec["rates"]["B"]["value"] == 1.0 and rec["rates"]["A"]["value"] == pytest.approx(8 / 16)
    assert rec["difference"]["value"] == pytest.approx(0.5) and rec["difference"]["ci"] is not None
    comp = second["comparisons"][0]
    assert comp["primary_value"]["value"] == pytest.approx(0.5) and comp["gate"] == "HOLD" and code == 1, output
    assert "E4_R_META blinded structural-recurrence rate" in output
