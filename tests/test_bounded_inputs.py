"""Every input that reaches a number or a file is bounded (issue 38): a negative seed is bad input (exit 2, not 70),
a ``[leak_audit]`` glob stays inside ``source``, a device named as a result is refused as a device."""

from __future__ import annotations

from pathlib import Path

import pytest
from semantic_helpers import run_cli
from typer.testing import CliRunner

from forgegate.audit.texts import read_tree
from forgegate.cli.main import app
from forgegate.errors import InputError
from forgegate.plan import lock_path, parse_plan_text
from tests.plan_helpers import PLAN, line_of, write_plan_folder


@pytest.mark.parametrize("args", [
    ["semantic", "metrics", "--samples", "s.jsonl", "--relevance", "r.jsonl", "--reference", "A", "--contracted", "B",
     "--recovery", "R", "--seed", "-1"],
    ["semantic", "validate", "--sheet", "s.csv", "--key", "k.csv", "--seed", "-5"],
    ["semantic", "sheets", "--codebook", "c.json", "--out", "o", "--seed", "-1"],
])
def test_a_negative_seed_is_bad_input_at_the_flag(args: list[str], capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "--seed" in out + err


def leak_audit_plan(seed: str = "0", glob: str = "**/*.txt") -> str:
    return PLAN + (f'\n[leak_audit]\nsource = "src"\nrenamed = ["ren"]\npairs = ["p.jsonl"]\nseed = {seed}\n'
                   f'glob = "{glob}"\n')


def test_a_negative_leak_audit_seed_is_refused_at_its_plan_line() -> None:
    text = leak_audit_plan(seed="-1")
    with pytest.raises(InputError) as caught:
        parse_plan_text(Path("plan.toml"), text)
    assert caught.value.line == line_of(text, "seed = -1") and "seed" in str(caught.value)


@pytest.mark.parametrize("glob", ["../../../../../../etc/*", "/etc/*", "a/../../b/*.txt", "..\\\\..\\\\x"])
def test_a_leak_audit_glob_that_leaves_source_is_refused_at_its_plan_line(glob: str) -> None:
    text = leak_audit_plan(glob=glob)
    with pytest.raises(InputError) as caught:
        parse_plan_text(Path("plan.toml"), text)
    assert caught.value.line == line_of(text, "glob = ") and "glob" in str(caught.value)


def test_the_audit_reads_no_file_outside_its_folder(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "outside.txt").write_text("Santiago", encoding="utf-8")
    (tmp_path / "src" / "in.txt").write_text("the old man", encoding="utf-8")
    with pytest.raises(InputError, match="climbs out of the folder"):
        read_tree(tmp_path / "src", "../*.txt")
    (tmp_path / "src" / "link.txt").symlink_to(tmp_path / "outside.txt")
    with pytest.raises(InputError, match="leads outside"):
        read_tree(tmp_path / "src", "*.txt")


def test_a_device_named_as_the_leak_audit_result_is_refused_as_a_device(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path, PLAN + '\n[leak_audit]\nresult = "/dev/zero"\n')
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert isinstance(result.exception, InputError) and "is a device" in str(result.exception)
    assert result.exception.line == line_of(plan.read_text(), "result = ") and not lock_path(plan).exists()


@pytest.mark.parametrize(("declared", "says"), [
    ('[instruments.semantic.q_task.tasks.t1]\nscorer = "exact"\nanswer = "x"\n', "task(s) t2 have no scorer"),
    ('[instruments.semantic.q_task.tasks.t1]\nscorer = "exact"\nanswer = "x"\n'
     '[instruments.semantic.q_task.tasks.t2]\nscorer = "exact"\nanswer = "y"\n'
     '[instruments.semantic.q_fact]\nmargin = 0.1\n[instruments.semantic.q_fact.tasks.t9]\nscorer = "exact"\n'
     'answer = "z"\n', "no fixture task 't9'"),
])
def test_q_task_and_q_fact_declarations_are_checked_at_plan_lock(tmp_path: Path, declared: str, says: str) -> None:
    from test_run_semantic import plan_text, write_plan

    quality = "\n[instruments.semantic.q_task]\nmargin = 0.3\n" + declared
    plan = write_plan(tmp_path / "p", plan_text("tgpt-quality", [1, 2], "http://127.0.0.1:9", quality))
    result = CliRunner().invoke(app, ["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert isinstance(result.exception, InputError) and says in str(result.exception)
    assert not lock_path(plan).exists()


def test_a_device_given_as_the_relevance_record_is_refused_as_a_device() -> None:
    from forgegate.semantic.relevance_record import load_relevance

    with pytest.raises(InputError, match="is a device, not a relevance file"):
        load_relevance(Path("/dev/zero"))
