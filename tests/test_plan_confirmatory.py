"""A plan with ``confirmatory = true`` is T_GPT's confirmatory or is refused at its line (issue 36).

Built on a copy of ``examples/tgpt`` (an exploratory plan) turned confirmatory; each test breaks one condition and
checks the refusal names the field's line. The codebook is the example's, re-frozen under an entailment judge where
the test needs one (no NLI model runs here: the check reads the judge the codebook was frozen under).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from eval_helpers import run_cli_in_process
from semantic_helpers import embedding_record

from forgegate.errors import InputError
from forgegate.pipeline.plan.confirmatory import check_confirmatory
from forgegate.plan import load_plan
from forgegate.semantic.codebook import Codebook, freeze
from tests.plan_helpers import line_of

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tgpt"
ORDER = ('[instruments.semantic.order]\nstudy = "tgpt-demo"\n'
         'unconfirmed_because = "E1_STAGE needs two post-training stages this example does not have"\n\n')


def confirmatory(folder: Path, edit: tuple[tuple[str, str], ...] = (), judge: str = "nli") -> Path:
    """The example made confirmatory (64 seeds, a study author, no task with facts, the codebook frozen under
    ``judge``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("codebook.json", "relevance.jsonl", "tasks.jsonl"):
        shutil.copy(EXAMPLE / name, folder / name)
    book = Codebook.model_validate_json((EXAMPLE / "codebook.json").read_text())
    draft = book.model_copy(update={"rule": book.rule.model_copy(update={"judge": {"judge": judge}}),
                                    "content_hash": None, "frozen_at": None,
                                    "embedding_sensitivity": embedding_record(book)})
    (folder / "codebook.json").write_text(freeze(draft).model_dump_json(by_alias=True))
    text = (EXAMPLE / "plan.toml").read_text()
    text = text.replace("confirmatory = false", 'confirmatory = true\nstudy_author = "Ada Designer"\n'
                        "factual_tasks = []")
    text = text.replace("count = 16", "count = 64")
    text = text.replace("[instruments.semantic.q_task]", ORDER + "[instruments.semantic.q_task]", 1)
    for old, new in edit:
        assert old in text, old
        text = text.replace(old, new)
    (folder / "plan.toml").write_text(text)
    return folder / "plan.toml"


def refusal(plan: Path) -> tuple[InputError, str]:
    with pytest.raises(InputError) as info:
        check_confirmatory(load_plan(plan))
    return info.value, plan.read_text()


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ("minimum_count = 2", "minimum_count = 1", "minimum_count = 1", "Prevents a single accidental generation"),
    ("sensitivity = [0.01, 0.03, 0.05]", "sensitivity = []", "sensitivity = []", "sensitivity lacks 0.01, 0.03"),
    ("tau_support = 0.02", "tau_support = 0.5", None, None),  # stricter than T_GPT's: not refused here
    ("tau_support = 0.02", "tau_support = 0.01", "tau_support = 0.01", "looser than T_GPT's 0.02"),
    ("bootstrap_resamples = 10000", "bootstrap_resamples = 100", "bootstrap_resamples", "use 10000"),
    ('study_author = "Ada Designer"', 'study_author = " "', "[instruments.semantic]", "names its study author"),
])
def test_the_declared_values_are_t_gpts_or_stricter(tmp_path: Path, old: str, new: str, needle: str | None,
                                                    message: str | None) -> None:
    plan = confirmatory(tmp_path, ((old, new),))
    err, text = refusal(plan)
    if message is None:  # tau 0.5 passes the value checks; the next refusal is another condition's
        assert "tau_support" not in str(err)
        return
    assert message in str(err), str(err)
    assert err.line == line_of(text, needle), str(err)


def test_a_codebook_frozen_under_the_minilm_cosine_judge_is_exploratory(tmp_path: Path) -> None:
    err, text = refusal(confirmatory(tmp_path, judge="embedding"))
    assert "exploratory sensitivity criterion" in str(err) and err.line == line_of(text, "codebook = ")


def test_a_second_primary_in_one_experiment_is_refused_at_the_comparison(tmp_path: Path) -> None:
    plan = confirmatory(tmp_path, (('primary = "semantic.REC_GAIN"', 'primary = "semantic.D_sem"'),))
    err, text = refusal(plan)
    assert "one primary endpoint is REC_GAIN" in str(err) and err.line == line_of(text, "semantic.D_sem")


def test_the_recovery_arm_runs_bs_model_with_probes_that_name_no_frozen_cluster(tmp_path: Path) -> None:
    book = json.loads((EXAMPLE / "codebook.json").read_text())
    label = book["tasks"]["colour"]["clusters"][0]["label"]
    text = (EXAMPLE / "plan.toml").read_text()
    r_template = text[text.index('name = "R"'):].split("prompt_template = ", 1)[1].split("\n", 1)[0]
    plan = confirmatory(tmp_path / "a", ((r_template, json.dumps(f"{{prompt}} Perhaps {label}?", ensure_ascii=False)),))
    err, text = refusal(plan)
    assert "names frozen cluster colour:" in str(err) and "do not name missing cluster identities" in str(err)
    assert err.line == line_of(text, "Perhaps")
    plan = confirmatory(tmp_path / "b", ((r_template, r_template + '\nmodel = "other-model"'),))
    err, text = refusal(plan)
    assert "runs model 'other-model', not condition B's" in str(err)


def test_the_blinded_validation_is_declared_and_filled_before_the_lock(tmp_path: Path) -> None:
    err, text = refusal(confirmatory(tmp_path / "a"))  # the example declares none
    assert "blinded human validation with its minimum agreement" in str(err)
    validation = ('[instruments.semantic.q_task]', '[instruments.semantic.validation]\nsheet = "sheet.csv"\n'
                  'key = "key.csv"\nmin_agreement = 0.8\n\n[instruments.semantic.q_task]')
    plan = confirmatory(tmp_path / "b", (validation,))
    err, text = refusal(plan)
    assert "locks only once its blinded validation sheet is filled" in str(err)
    assert err.line == line_of(text, 'sheet = "sheet.csv"')


def test_plan_check_refuses_a_confirmatory_plan_on_exploratory_footing_with_file_and_line(tmp_path: Path) -> None:
    plan = confirmatory(tmp_path, judge="embedding")
    result = run_cli_in_process("plan", "check", str(plan), "--store", str(tmp_path / "runs"))
    out = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 2 and f"plan.toml:{line_of(plan.read_text(), 'codebook = ')}" in out
    locked = run_cli_in_process("plan", "lock", str(plan), "--store", str(tmp_path / "runs"))
    assert locked.returncode == 2 and "exploratory sensitivity criterion" in " ".join(locked.stderr.split())


def test_a_later_experiment_names_the_earlier_confirmations_or_says_why(tmp_path: Path) -> None:
    order = ('unconfirmed_because = "E1_STAGE needs two post-training stages this example does not have"\n', "")
    with pytest.raises(InputError, match="name the earlier experiments' confirmatory results"):
        load_plan(confirmatory(tmp_path / "a", (order,)))  # neither said: refused at the table
    err, text = refusal(confirmatory(tmp_path / "b", ((ORDER, ""),)))
    assert "E2_RECOVERY comes after E1_STAGE" in str(err) and err.line == line_of(text, "[instruments.semantic]")
    named = ('unconfirmed_because = "E1_STAGE needs two post-training stages this example does not have"\n',
             'confirmed = { E1_STAGE = "e1.json" }\n')
    plan = confirmatory(tmp_path / "c", (named,))
    (tmp_path / "c" / "e1.json").write_text(json.dumps({"gate": "HOLD", "semantic": {"metrics": {
        "mode": "exploratory", "experiment": "E1_STAGE"}}}))
    err, text = refusal(plan)
    assert "is not E1_STAGE's confirmation: its table is exploratory" in str(err)
    assert err.line == line_of(text, "confirmed = ")
    (tmp_path / "c" / "e1.json").write_text(json.dumps({"gate": "HOLD", "semantic": {"metrics": {
        "mode": "confirmatory", "experiment": "E1_STAGE"}}}))
    err, _ = refusal(plan)  # the order holds: the next condition speaks
    assert "E1_STAGE" not in str(err) and "validation" in str(err)


def test_the_confirmatory_example_does_not_lock_until_its_entailment_codebook_and_sheets_exist(tmp_path: Path) -> None:
    plan = EXAMPLE / "confirmatory.toml"
    checked = run_cli_in_process("plan", "check", str(plan), "--store", str(tmp_path / "runs"))
    out = " ".join((checked.stdout + checked.stderr).split())
    assert checked.returncode == 2 and f"confirmatory.toml:{line_of(plan.read_text(), 'codebook = ')}" in out
    # with the exploratory MiniLM codebook in its place, it is refused as exploratory footing
    for name in ("tasks.jsonl", "relevance.jsonl"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    shutil.copy(EXAMPLE / "codebook.json", tmp_path / "codebook.entailment.json")
    (tmp_path / "relevance.adjudicated.jsonl").write_text((EXAMPLE / "relevance.jsonl").read_text())
    (tmp_path / "validation_key.csv").write_text("row,clusters,clustering_same\n")
    (tmp_path / "confirmatory.toml").write_text(plan.read_text())
    err, _ = refusal(tmp_path / "confirmatory.toml")
    assert "exploratory sensitivity criterion" in str(err)
