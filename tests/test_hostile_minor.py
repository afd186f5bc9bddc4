"""Issue 46, minor cases: ``plan check`` says what ``plan lock`` would; two outputs to one file, two decisions in
one review and two plans in one store are refused; a gate config's name is shown, never run as markup; a
look-alike name in any script is refused, not only in Cyrillic and Greek."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import run_cli_in_process
from report_helpers import ADVERSARIAL, gloss_payload
from rich.console import Console
from test_plan_fixture_audit import built_plan

from forgegate.core.names import name_key, name_problem
from forgegate.pipeline.plan.store import plan_run_id
from forgegate.report.eval_terminal import print_eval
from forgegate.results import EvalResult


def said(*args: str) -> tuple[int, str]:
    proc = run_cli_in_process(*args)
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split())


def test_plan_check_refuses_a_plan_that_plan_lock_refuses_instead_of_calling_it_valid(tmp_path: Path) -> None:
    plan, _ = built_plan(tmp_path, audit="")  # a fixture drawn from pairs, no [leak_audit]: lock refuses it
    code, out = said("plan", "check", str(plan), "--store", str(tmp_path / "runs"))
    assert code == 2 and "valid" not in out and "no gate runs without the leak audit of that file" in out, out


@pytest.mark.parametrize("args", [
    ["rescore", "no-such-run", "--json", "{out}", "--html", "{out}"],
    ["rescore", "no-such-run", "--html", "{out}", "--markdown", "{same}"],
    ["report", "no-such-run", "--html", "{out}", "--markdown", "{out}"],
])
def test_two_outputs_naming_one_file_are_refused_before_anything_runs(args: list[str], tmp_path: Path) -> None:
    out, same = tmp_path / "r.out", tmp_path / "." / "r.out"
    code, text = said(*[a.format(out=out, same=same) for a in args], "--store", str(tmp_path / "runs"))
    assert code == 2 and "both name" in text and "each output needs its own file" in text, text


def test_review_with_both_pass_and_fail_records_nothing_and_says_why(tmp_path: Path) -> None:
    code, out = said("review", "no-such-run", "item", "--pass", "--fail", "--reviewer", "ana", "--store",
                     str(tmp_path / "runs"))
    assert code == 2 and "--pass and --fail were both given" in out, out


def test_two_plan_names_that_differ_only_in_punctuation_get_two_run_stores() -> None:
    names = ["voice a/b", "voice a b", "voice_a_b", "voice a:b", "voice ä b"]
    assert len({plan_run_id(name) for name in names}) == len(names)
    assert plan_run_id("hemingway-style-example") == "plan-hemingway-style-example"  # a safe name keeps its id


@pytest.fixture(scope="module")
def payload(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return gloss_payload(tmp_path_factory.mktemp("hostile-name"), ADVERSARIAL)


def test_a_gate_config_name_is_printed_as_written_never_read_as_markup_or_a_terminal_code(
        payload: dict[str, Any]) -> None:
    name = "[/]gate[bold] \x1b[2Jwiped"
    hostile = {**payload, "gate_config": {**payload["gate_config"], "name": name}}
    out = io.StringIO()
    print_eval(EvalResult.model_validate(hostile), Console(file=out, width=200, no_color=True))
    text = out.getvalue()
    assert "[/]gate[bold] \u241b[2Jwiped" in text and "\x1b" not in text


@pytest.mark.parametrize(("name", "scripts"), [
    ("b\u0585b", "Armenian and Latin"),  # Armenian oh
    ("\u13aana", "Cherokee and Latin"),  # Cherokee A
    ("\ua4eena", "Latin and Lisu"),  # Lisu A
    ("c\u0430rol", "Cyrillic and Latin"),
])
def test_a_look_alike_name_from_any_other_script_is_refused(name: str, scripts: str) -> None:
    assert f"mixes {scripts} letters" in (name_problem(name) or "")


@pytest.mark.parametrize("name", ["山田 Taro", "やまだ 太郎", "김 Minji", "Hawai\u02bbi", "José", "محمد"])
def test_a_name_in_one_script_or_a_cjk_mix_is_a_name(name: str) -> None:
    assert name_problem(name) is None


def test_a_name_written_wholly_in_armenian_look_alikes_reads_as_the_latin_name() -> None:
    assert name_key("\u0585\u0570") == name_key("oh")
