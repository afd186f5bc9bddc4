"""Read once on the plan road (issue 34, item 6): ``forgegate run`` reads the battery and gate config once, at
its lock check, and scores from those bytes; files rewritten while the run generates are not read again.

The arm talks to the fake Ollama server answering the example battery perfectly (what is checked is which bytes
are scored, not the model).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import one_arm_gloss_plan, script_for
from typer.testing import CliRunner

import forgegate.pipeline.plan.generate as plan_generate
from forgegate.battery import load_battery
from forgegate.cli.main import app
from forgegate.errors import ForgegateError
from forgegate.plan import lock_plan

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"
MODEL = "gloss:v10"


def _plan(folder: Path, url: str) -> Path:
    folder.mkdir()
    shutil.copy(EXAMPLES / "tiny.jsonl", folder / "battery.jsonl")
    shutil.copy(EXAMPLES / "tiny-gate.toml", folder / "gate.toml")
    plan = folder / "plan.toml"
    plan.write_text(one_arm_gloss_plan(url, MODEL, name="read-once", seed=0, max_tokens=64,
                                       battery="battery.jsonl", gate_config="gate.toml"), encoding="utf-8")
    return plan


def test_a_battery_and_gate_config_rewritten_after_the_lock_check_are_not_what_the_run_scores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    battery = load_battery(EXAMPLES / "tiny.jsonl")
    original_sha = hashlib.sha256((EXAMPLES / "tiny.jsonl").read_bytes()).hexdigest()
    real_check_lock = plan_generate.check_lock
    folder = tmp_path / "plan"

    def check_then_rewrite(*args: object, **kwargs: object) -> object:
        locked = real_check_lock(*args, **kwargs)  # type: ignore[arg-type]
        rows = [json.loads(line) for line in (folder / "battery.jsonl").read_text(encoding="utf-8").splitlines()]
        rows[0]["expected"] = ["an answer nobody gives"]
        (folder / "battery.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                              encoding="utf-8")
        (folder / "gate.toml").write_text("not = [valid toml", encoding="utf-8")
        return locked

    monkeypatch.setattr(plan_generate, "check_lock", check_then_rewrite)
    with FakeOllamaServer(Behaviour(script=script_for(battery), models={MODEL: "a" * 64})) as server:
        plan = _plan(folder, server.url)
        lock_plan(plan)
        out = tmp_path / "result.json"
        done = CliRunner().invoke(app, ["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    result = json.loads(out.read_text(encoding="utf-8"))
    arm = result["gloss"]["arms"]["model"]
    assert arm["battery"]["sha256"] == original_sha  # the bytes the plan hash covers
    assert (result["gate"], done.exit_code) == ("PASS", 0)  # scored against the locked battery and gate
    assert "nobody" in (folder / "battery.jsonl").read_text(encoding="utf-8")  # the rewrite did happen


def test_a_codebook_and_relevance_file_rewritten_after_the_lock_check_are_not_what_the_run_scores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The semantic instrument's frozen codebook, R(c) file and validation key come from the lock check's bytes:
    the codebook and key broken and every cluster made relevant right after it, the run still scores the locked
    ones (issue 34, item 6).
    An exploratory plan (a confirmatory one's own checks, pipeline/plan/confirmatory.py, read the files again)."""
    from semantic_helpers import run_cli
    from test_run_semantic import SeededOllamaServer, answers_for, plan_text, write_plan
    from test_run_semantic_relevance import LABELS_1, TEXTS, FrozenOracle, folder_with_codebook

    seeds = list(range(1, 9))  # exploratory: 8 samples per task and condition keep the test cheap
    counts = {"A": {"m1": 4, "m2": 2, "m3": 2}, "B": {"m1": 8}, "R": {"m1": 6, "m2": 2}}
    table = {cond: [TEXTS[m] for m, n in c.items() for _ in range(n)] for cond, c in counts.items()}

    monkeypatch.setattr("forgegate.pipeline.plan.semantic.frozen_judge",
                        lambda record, path, store=None: FrozenOracle())
    folder = tmp_path / "sem"
    book_hash = folder_with_codebook(folder)
    (folder / "relevance.jsonl").write_text("".join(json.dumps({"cluster": c, "relevant": v}) + "\n"
                                                    for c, v in LABELS_1.items()), encoding="utf-8")
    real_check_lock = plan_generate.check_lock

    def check_then_rewrite(*args: object, **kwargs: object) -> object:
        locked = real_check_lock(*args, **kwargs)  # type: ignore[arg-type]
        (folder / "codebook.json").write_text("{ not json", encoding="utf-8")
        (folder / "validation_key.csv").write_text("not,a,key\n", encoding="utf-8")
        (folder / "relevance.jsonl").write_text("".join(json.dumps({"cluster": c, "relevant": 1}) + "\n"
                                                        for c in LABELS_1), encoding="utf-8")
        return locked

    monkeypatch.setattr(plan_generate, "check_lock", check_then_rewrite)
    with SeededOllamaServer(answers_for(seeds, table, table)) as server:
        plan = write_plan(folder, plan_text("tgpt-read-once", seeds, server.url,
                                            'codebook = "codebook.json"\nrelevance = "relevance.jsonl"\n'
                                            '[instruments.semantic.validation]\nsheet = "validation_sheet.csv"\n'
                                            'key = "validation_key.csv"\nmin_agreement = 0.8\n'))
        lock_plan(plan)
        out = tmp_path / "result.json"
        code, stdout, stderr = run_cli(["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out)],
                                       capsys, monkeypatch)
    assert out.is_file(), stdout + stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert "{ not json" in (folder / "codebook.json").read_text(encoding="utf-8")  # the rewrite did happen
    semantic = result["semantic"]
    assert semantic["codebook"]["content_hash"] == book_hash  # the locked codebook, though the file is now broken
    # the locked R(c): t1:c3 irrelevant, so A's support keeps c1 and c2 (the rewrite made every cluster relevant)
    assert semantic["metrics"]["tasks"]["t1"]["conditions"]["A"]["support"] == ["t1:c1", "t1:c2"]
    validation = semantic["codebook"]["validation"]  # scored against the locked key (the file is now no key)
    assert validation["scored"] and validation["agreement"]["value"] == 1.0, validation
    assert code in (0, 1), stdout + stderr


def test_a_review_sheet_is_read_once_so_its_recorded_sha256_is_of_the_bytes_scored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quality guardrail's filled review sheet: a reviewer saving the sheet again while it is scored (here:
    right after it is read) does not give a result whose scores and sha256 come from two different files."""
    import hashlib

    from test_quality_guardrails import HUMAN, PROMPTS, SETTINGS, gens, plan

    import forgegate.pipeline.plan.quality_scoring as plan_quality

    loaded = plan(HUMAN, tmp_path)
    out = tmp_path / "run.semantic"
    rows = gens("colour", {"A": ["Red", "blue"], "B": ["Red", "nothing"], "R": ["x", "y"]}) + gens(
        "sum", {"A": ["1234", "1234"], "B": ["1234", "1234"], "R": ["1", "1234"]})
    [sheet] = plan_quality.write_review_sheets(loaded, rows, PROMPTS, out, seed=7)
    lines = [json.loads(x) for x in sheet.read_text(encoding="utf-8").splitlines()]
    filled = "".join(json.dumps({**x, "score": 1.0 if x["answer"] in ("Red", "blue") else 0.0}) + "\n"
                     for x in lines)
    sheet.write_text(filled, encoding="utf-8")
    real_read = plan_quality.read_bytes_or_input_error
    reads: list[Path] = []

    def read_then_resave(path: Path, **kwargs: object) -> bytes:
        raw = real_read(path, **kwargs)  # type: ignore[arg-type]
        if path == sheet:
            reads.append(path)
            sheet.write_text("".join(json.dumps({**x, "score": 0.0}) + "\n" for x in lines), encoding="utf-8")
        return raw

    monkeypatch.setattr(plan_quality, "read_bytes_or_input_error", read_then_resave)
    done = plan_quality.score_quality(loaded, rows, PROMPTS, out, SETTINGS)
    assert done is not None and done["Q_task"]["missing"] == []
    assert reads == [sheet]  # once
    colour = done["Q_task"]["tasks"]["colour"]
    assert (colour["A"]["value"], colour["B"]["value"], colour["R"]["value"]) == (1.0, 0.5, 0.0)  # the first save
    recorded = done["Q_task"]["sheets"]["review/q_task.jsonl"]
    assert recorded == hashlib.sha256(filled.encode("utf-8")).hexdigest()  # of those bytes, not of the re-save
    assert recorded != hashlib.sha256(sheet.read_bytes()).hexdigest()


def test_a_leak_audit_result_rewritten_while_the_plan_locks_is_hashed_as_it_was_audited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``plan lock`` reads the plan's leak audit result once: the record's sha256 and the lock's input digest are
    of the bytes the audit was judged on, though the file is rewritten right after that read."""
    from test_plan_fixture_audit import audit_of, built_plan

    import forgegate.pipeline.plan.audit as plan_audit

    plan, pairs = built_plan(tmp_path)
    audited = json.dumps(audit_of(pairs)).encode("utf-8")
    (tmp_path / "leak.json").write_bytes(audited)
    real_read = plan_audit.read_bytes_or_input_error

    def read_then_rewrite(path: Path, **kwargs: object) -> bytes:
        raw = real_read(path, **kwargs)  # type: ignore[arg-type]
        path.write_text(json.dumps(audit_of(pairs, val_leaks=0)) + "\n", encoding="utf-8")  # another file
        return raw

    monkeypatch.setattr(plan_audit, "read_bytes_or_input_error", read_then_rewrite)
    lock, _ = plan_audit.lock_with_audit(plan)
    original = hashlib.sha256(audited).hexdigest()
    assert hashlib.sha256((tmp_path / "leak.json").read_bytes()).hexdigest() != original  # the rewrite happened
    assert lock.leak_audit is not None and lock.leak_audit["sha256"] == original
    assert lock.inputs["leak.json"] == original  # the plan hash covers the audited bytes


def test_pairs_rewritten_after_the_lock_time_audit_read_them_are_hashed_as_audited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A leak audit run at ``plan lock`` reads each pairs file once: the audit, the fixture's pairs check and the
    lock's digest all see the same bytes (the check used to hash the file again, seeing the rewrite)."""
    from audit_helpers import build_leak_fixture
    from plan_helpers import PLAN, write_plan_folder

    import forgegate.pipeline.plan.audit as plan_audit
    from forgegate.fixture.provenance import write_provenance

    leak = build_leak_fixture(tmp_path / "leak")  # train leaks planted, val clean
    audit = (f'\n[leak_audit]\nsource = "{leak["source"]}"\nrenamed = ["{leak["renamed"]}"]\n'
             f'pairs = ["{leak["pairs"]}"]\nclean_splits = ["val"]\n')
    plan = write_plan_folder(tmp_path / "p", PLAN + audit)
    write_provenance(tmp_path / "p" / "fixture.jsonl", leak["pairs"], "val")
    original = hashlib.sha256(leak["pairs"].read_bytes()).hexdigest()
    real_read = plan_audit.read_bytes_or_input_error

    def read_then_append(path: Path, **kwargs: object) -> bytes:
        raw = real_read(path, **kwargs)  # type: ignore[arg-type]
        with path.open("a", encoding="utf-8") as handle:
            handle.write('{"split": "val", "instruction": "x", "response": "y"}\n')
        return raw

    monkeypatch.setattr(plan_audit, "read_bytes_or_input_error", read_then_append)
    lock, reason = plan_audit.lock_with_audit(plan)
    assert hashlib.sha256(leak["pairs"].read_bytes()).hexdigest() != original  # the rewrite happened
    assert reason is not None and reason.outcome.value == "PASS", reason
    assert lock.inputs[str(leak["pairs"])] == original


def test_audit_leak_json_names_the_sha256_of_the_pairs_bytes_it_audited(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``forgegate audit leak --json`` reads each pairs file once: the sha256 it records (which a plan's lock ties
    the fixture to) is of the bytes audited, not of a second read that sees a rewrite (issue 34, item 6)."""
    from audit_helpers import build_leak_fixture

    import forgegate.jsonio as jsonio
    from forgegate.pipeline.audits import leak_audit

    leak = build_leak_fixture(tmp_path / "leak")
    original = hashlib.sha256(leak["pairs"].read_bytes()).hexdigest()
    real_read = jsonio.read_bytes_or_input_error

    def read_then_append(path: Path, **kwargs: object) -> bytes:
        raw = real_read(path, **kwargs)  # type: ignore[arg-type]
        if path == leak["pairs"]:
            with path.open("a", encoding="utf-8") as handle:
                handle.write('{"split": "val", "instruction": "x", "response": "y"}\n')
        return raw

    monkeypatch.setattr(jsonio, "read_bytes_or_input_error", read_then_append)
    done = leak_audit(leak["source"], [leak["renamed"]], [leak["pairs"]], seed=0, rename_map=leak["map"],
                      planted=3, glob="*")
    assert hashlib.sha256(leak["pairs"].read_bytes()).hexdigest() != original  # the rewrite happened
    assert done.result.pairs_sha256 == {str(leak["pairs"]): original}
    audited = {split: leaks.pairs for split, leaks in done.report.splits.items()}
    assert audited == {"train": 40, "val": 10}  # not the appended row


def test_a_confirmatory_plan_is_checked_on_the_bytes_the_lock_check_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A run checks a confirmatory plan's codebook, relevance record, validation key and sheet from the bytes its
    lock check read (pipeline/plan/confirmatory.py, handed them by preflight): files broken after that read change
    nothing, where a second read would refuse the run (issue 34, item 6)."""
    from test_run_semantic import write_plan
    from test_run_semantic_relevance import adjudicated_record, confirmatory_plan, folder_with_codebook

    from forgegate.pipeline.plan.confirmatory import check_confirmatory
    from forgegate.plan import load_plan

    folder = tmp_path / "sem"
    folder_with_codebook(folder)
    adjudicated_record(folder, "relevance.jsonl", tmp_path, capsys, monkeypatch)
    plan = write_plan(folder, confirmatory_plan("tgpt-confirmed-once", "http://127.0.0.1:9",
                                                'codebook = "codebook.json"\nrelevance = "relevance.jsonl"\n'))
    written = ("codebook.json", "relevance.jsonl", "validation_key.csv", "validation_sheet.csv")
    contents = {name: (folder / name).read_bytes() for name in written}
    check_confirmatory(load_plan(plan), contents)  # the files as they are: a confirmatory plan
    for name in written:
        (folder / name).write_text("broken after the lock check\n", encoding="utf-8")
    check_confirmatory(load_plan(plan), contents)  # the bytes read: still the same plan, nothing read again
    with pytest.raises(ForgegateError):
        check_confirmatory(load_plan(plan))  # read again, the broken files refuse it: the check above read none
