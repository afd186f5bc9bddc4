"""`forgegate run PLAN` with the semantic (T_GPT) instrument: arms as conditions, seeds as the N samples.

The fake Ollama server answers from (prompt, seed), so every condition's clusters are fixed in
advance and the metrics can be computed by hand; the real packaged MiniLM does the clustering.
One smoke run uses the embedded SmolLM2 end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import run_cli_in_process
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.pipeline.plan.store import plan_run_state
from forgegate.plan import lock_plan

MODEL = "tgpt:latest"
TASKS = {"t1": "Say something about fruit.", "t2": "Say something about the sky."}
TEMPLATES = {"A": "{prompt}", "B": "Be brief. {prompt}", "R": "Be brief. {prompt} Consider the full range of answers."}
# Unrelated sentences: MiniLM puts them far apart; X2 is X1 reworded (one cluster by embedding, not by string).
X1 = "Bananas are yellow and sweet."
X2 = "Bananas are sweet and yellow!"
Y = "Quantum computers use qubits for their calculations."
Z = "The football match ended in a goalless draw."
NEW = "My grandmother knits warm woollen socks every winter."


class SeededOllamaServer(FakeOllamaServer):
    """Ollama's API answering from (prompt, seed): a sampling model whose samples are known in advance."""

    def __init__(self, answers: dict[tuple[str, int], str]) -> None:
        super().__init__(Behaviour(models={MODEL: "c" * 64}))
        self.answers = answers

    def answer(self, prompt: str, seed: object = None) -> str:
        return self.answers.get((prompt, seed), "UNSCRIPTED")  # type: ignore[arg-type]


def answers_for(seeds: list[int], t1: dict[str, list[str]], t2: dict[str, list[str]]) -> dict[tuple[str, int], str]:
    out: dict[tuple[str, int], str] = {}
    for task, table in (("t1", t1), ("t2", t2)):
        for cond, texts in table.items():
            prompt = TEMPLATES[cond].replace("{prompt}", TASKS[task])
            out.update({(prompt, seed): text for seed, text in zip(seeds, texts, strict=True)})
    return out


# N = 8 per task and condition: k = max(2, ceil(0.02 * 8)) = 2.
DEV_T1 = {"A": [X1, X1, X2, X2, Y, Y, Z, Z], "B": [X1] * 8, "R": [X1] * 6 + [Y, Y]}
DEV_T2 = {"A": [X1] * 6 + [Z, Z], "B": [X1] * 8, "R": [X1] * 8}


def plan_text(name: str, seeds: list[int], url: str, extra: str = "", *, confirmatory: bool = False) -> str:
    arms = "".join(f'[[arms]]\nname = "{n}"\nbackend = "ollama"\nmodel = "{MODEL}"\nbase_urls = ["{url}"]\n'
                   f'role = "{"control" if n == "A" else "candidate"}"\nprompt_template = "{t}"\n\n'
                   for n, t in TEMPLATES.items())
    return (f'name = "{name}"\nseeds = {seeds}\n\n[sampling]\ntemperature = 1.0\nmax_tokens = 32\n\n'
            f'[fixture]\npath = "tasks.jsonl"\n\n{arms}'
            f'[instruments.semantic]\nreference = "A"\ncontracted = "B"\nrecovery = "R"\n'
            f'experiment = "E2_RECOVERY"\nconfirmatory = {str(confirmatory).lower()}\n'
            f'bootstrap_resamples = 2000\nbootstrap_seed = 11\n{extra}\n'
            '[[comparisons]]\ncontrol = "A"\ncandidate = "B"\nprimary = "semantic.REC_GAIN"\n')


def write_plan(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tasks.jsonl").write_text("".join(json.dumps({"id": k, "prompt": v}) + "\n" for k, v in TASKS.items()))
    plan = folder / "plan.toml"
    plan.write_text(text)
    return plan


def run(plan: Path, store: Path, out: Path) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(app, ["run", str(plan), "--store", str(store), "--json", str(out)])
    return result.exit_code, result.output, result.exception


@pytest.mark.slow  # loads MiniLM (the embedding judge)
def test_draft_codebook_clusters_and_metrics_are_the_hand_computed_ones(tmp_path: Path) -> None:
    seeds = list(range(1, 9))
    with SeededOllamaServer(answers_for(seeds, DEV_T1, DEV_T2)) as server:
        plan = write_plan(tmp_path / "dev", plan_text("tgpt-dev", seeds, server.url))
        lock_plan(plan)
        code, output, exc = run(plan, tmp_path / "runs", tmp_path / "dev.json")
    assert exc is None or isinstance(exc, SystemExit), exc
    result = json.loads((tmp_path / "dev.json").read_text())
    sem = result["semantic"]
    assert sem["codebook"]["frozen"] is False and sem["codebook"]["judge"]["judge"] == "embedding"
    assert sem["codebook"]["clusters"] == {"t1": 3, "t2": 2}
    metrics = sem["metrics"]
    assert metrics["mode"] == "exploratory"
    t1 = metrics["tasks"]["t1"]
    assert {c: t1["conditions"][c]["D_sem"] for c in "ABR"} == {"A": 3.0, "B": 1.0, "R": 2.0}
    assert t1["conditions"]["A"]["counts"] == {"t1:c1": 4, "t1:c2": 2, "t1:c3": 2, "UNMAPPED": 0}
    assert t1["ES_LOSS"]["value"] == pytest.approx(0.5) and t1["REC_GAIN"]["value"] == pytest.approx(0.5)
    t2 = metrics["tasks"]["t2"]
    assert t2["ES_LOSS"]["value"] == pytest.approx(0.25) and t2["REC_GAIN"]["value"] == pytest.approx(0.0)
    across = metrics["across_tasks"]
    assert across["ES_LOSS"]["value"] == pytest.approx(0.375) and across["REC_GAIN"]["value"] == pytest.approx(0.25)
    low, high = across["ES_LOSS"]["ci"]
    assert low <= 0.375 <= high
    assert metrics["bootstrap"]["n_resamples"] == 2000 and metrics["bootstrap"]["seed"] == 11
    # The comparison's primary endpoint is the across-task REC_GAIN, and the words are the library's.
    comp = result["comparisons"][0]
    assert comp["primary_value"]["value"] == pytest.approx(0.25)
    assert sem["gate"] == metrics["gate"] == "HOLD"  # the library's word: complete, an estimate only
    # A semantic primary has no pre-registered pass rule: an estimate is the operator's call, never PASS / exit 0.
    assert comp["primary_value"]["pass_rule"] is None
    assert comp["gate"] == result["gate"] == "HOLD" and code == 1
    flat = " ".join(output.split())
    assert "no pre-registered pass rule: estimate only" in flat
    assert "no rule" in flat and "GATE: HOLD" in flat
    assert "T_GPT semantic support (exploratory" in output and "REC_GAIN" in output
    assert set(sem["cost"]) >= {"A", "B", "R"} and sem["cost"]["A"]["requests"] == 16
    draft = Path(sem["codebook"]["path"])
    assert draft.name == "codebook.draft.json" and draft.is_file()


@pytest.mark.slow  # loads MiniLM (the embedding judge)
def test_frozen_codebook_assigns_to_frozen_ids_or_unmapped_and_relevance_filters(tmp_path: Path) -> None:
    dev_seeds, conf_seeds = list(range(1, 9)), list(range(11, 19))
    conf_t1 = {"A": [X1, X1, X1, X2, Y, Y, Z, Z], "B": [X1] * 8, "R": [X1] * 6 + [Y, NEW]}
    answers = answers_for(dev_seeds, DEV_T1, DEV_T2) | answers_for(conf_seeds, conf_t1, DEV_T2)
    runner = CliRunner()
    with SeededOllamaServer(answers) as server:
        dev = write_plan(tmp_path / "dev", plan_text("tgpt-dev", dev_seeds, server.url))
        lock_plan(dev)
        run(dev, tmp_path / "runs", tmp_path / "dev.json")
        draft = json.loads((tmp_path / "dev.json").read_text())["semantic"]["codebook"]["path"]
        folder = tmp_path / "confirm"
        folder.mkdir()
        frozen = runner.invoke(app, ["semantic", "freeze", "--draft", draft, "--out", str(folder / "codebook.json")])
        assert frozen.exit_code == 0, frozen.output
        # R(c): t1:c3 (the football answer) is judged irrelevant to the fruit task.
        rel = {"t1:c1": 1, "t1:c2": 1, "t1:c3": 0, "t2:c1": 1, "t2:c2": 1}
        (folder / "relevance.jsonl").write_text("".join(json.dumps({"cluster": c, "relevant": v}) + "\n"
                                                        for c, v in rel.items()))
        extra = 'codebook = "codebook.json"\nrelevance = "relevance.jsonl"\n'
        plan = write_plan(folder, plan_text("tgpt-confirm", conf_seeds, server.url, extra))
        lock_plan(plan)
        code, output, exc = run(plan, tmp_path / "runs", tmp_path / "conf.json")
    assert exc is None or isinstance(exc, SystemExit), exc
    sem = json.loads((tmp_path / "conf.json").read_text())["semantic"]
    assert sem["codebook"]["frozen"] is True and sem["codebook"]["content_hash"]
    t1 = sem["metrics"]["tasks"]["t1"]
    # NEW matches no frozen cluster: UNMAPPED, never a new ID; its share is reported, not redistributed.
    assert t1["conditions"]["R"]["counts"] == {"t1:c1": 6, "t1:c2": 1, "UNMAPPED": 1}
    assert t1["conditions"]["R"]["unmapped_rate"] == pytest.approx(0.125)
    assert sem["codebook"]["exploratory_changes"]["t1"] == [{"size": 1, "exemplar": NEW}]
    # c3 is irrelevant: S_A+ = {c1, c2}; B keeps c1 only; R has c2 once (< k = 2), so nothing is recovered.
    assert t1["conditions"]["A"]["support"] == ["t1:c1", "t1:c2"]
    assert t1["ES_LOSS"]["value"] == pytest.approx(2 / 6) and t1["REC_GAIN"]["value"] == pytest.approx(0.0)
    unfiltered = sem["metrics"]["unfiltered"]["tasks"]["t1"]
    assert unfiltered["ES_LOSS"]["value"] == pytest.approx(0.5)
    assert code == 1 and "codebook: frozen" in output  # HOLD: an estimate with no pass rule


@pytest.mark.slow  # loads MiniLM (the embedding judge)
def test_primary_endpoint_that_is_na_leaves_the_comparison_incomplete(tmp_path: Path) -> None:
    seeds = list(range(1, 9))
    same = {"A": DEV_T2["A"], "B": DEV_T2["A"], "R": DEV_T2["A"]}  # nothing is lost: ES_LOSS 0, REC_GAIN NA
    with SeededOllamaServer(answers_for(seeds, same, same)) as server:
        plan = write_plan(tmp_path / "p", plan_text("tgpt-na", seeds, server.url))
        lock_plan(plan)
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "na.json")
    result = json.loads((tmp_path / "na.json").read_text())
    across = result["semantic"]["metrics"]["across_tasks"]
    assert across["ES_LOSS"]["value"] == 0.0 and across["REC_GAIN"]["value"] is None
    assert result["semantic"]["gate"] == "INCOMPLETE"  # the library's word agrees: E2's primary is NA
    assert result["comparisons"][0]["gate"] == "INCOMPLETE" and result["gate"] == "INCOMPLETE" and code == 3
    assert "semantic.REC_GAIN: NA across tasks" in output.replace("\n", " ")


def test_confirmatory_plan_with_fewer_than_64_samples_is_refused_before_generating(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "p", plan_text("tgpt-small", [1, 2, 3], "http://127.0.0.1:9",
                                                'codebook = "codebook.json"\n', confirmatory=True))
    (tmp_path / "p" / "codebook.json").write_text("{}")
    proc = run_cli_in_process("run", str(plan), "--store", str(tmp_path / "runs"))
    assert proc.returncode == 2
    assert f"{plan}:2: field 'seeds': 3 samples per task and condition" in proc.stderr + proc.stdout
    assert "at least 64" in proc.stderr + proc.stdout
    assert not list((tmp_path / "runs").glob("*.sqlite"))  # nothing was generated


def test_relevance_without_a_frozen_codebook_is_refused_before_generating(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "p", plan_text("tgpt-rel", [1, 2], "http://127.0.0.1:9",
                                                'relevance = "relevance.jsonl"\n'))
    (tmp_path / "p" / "relevance.jsonl").write_text('{"cluster": "t1:c1", "relevant": 1}\n')
    lock_plan(plan)
    result = CliRunner().invoke(app, ["run", str(plan), "--store", str(tmp_path / "runs")])
    err = result.exception
    assert isinstance(err, InputError) and err.field == "instruments.semantic.relevance"
    assert err.line == plan.read_text().splitlines().index('relevance = "relevance.jsonl"') + 1
    assert not plan_run_state(plan, tmp_path / "runs").has_generations


EMBEDDED_PLAN = """\
name = "tgpt-embedded-smoke"
seeds = [1, 2, 3, 4]

[sampling]
temperature = 1.0
max_tokens = 8

[fixture]
path = "tasks.jsonl"

[[arms]]
name = "A"
backend = "embedded"
role = "control"

[[arms]]
name = "B"
backend = "embedded"
role = "candidate"
prompt_template = "Answer with one word. {prompt}"

[[arms]]
name = "R"
backend = "embedded"
role = "candidate"
prompt_template = "Answer with one word. {prompt} Consider the full range of reasonable answers."

[instruments.semantic]
reference = "A"
contracted = "B"
recovery = "R"
experiment = "E2_RECOVERY"
confirmatory = false
bootstrap_resamples = 1000
bootstrap_seed = 5

[[comparisons]]
control = "A"
candidate = "B"
primary = "semantic.REC_GAIN"
"""


@pytest.mark.slow
def test_embedded_model_smoke_run_prints_the_exploratory_table_with_cis(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "tasks.jsonl").write_text(json.dumps({"id": "colour", "prompt": "Name a colour."}) + "\n")
    plan = folder / "plan.toml"
    plan.write_text(EMBEDDED_PLAN)
    lock_plan(plan)
    code, output, exc = run(plan, tmp_path / "runs", tmp_path / "r.json")
    assert exc is None or isinstance(exc, SystemExit), exc
    result = json.loads((tmp_path / "r.json").read_text())
    assert code == Gate(result["gate"]).exit_code
    assert result["gate"] != "PASS"  # a semantic primary has no pass rule
    assert result["generation"]["generated"] == 12
    metrics = result["semantic"]["metrics"]
    assert metrics["mode"] == "exploratory"
    conds = metrics["tasks"]["colour"]["conditions"]
    assert {c: conds[c]["n"] for c in "ABR"} == {"A": 4, "B": 4, "R": 4}
    assert all(sum(conds[c]["counts"].values()) == 4 for c in "ABR")
    es_loss = metrics["tasks"]["colour"]["ES_LOSS"]
    assert es_loss["value"] is None or len(es_loss["ci"]) == 2  # NA when A has no cluster at the floor k = 2
    assert "T_GPT semantic support (exploratory" in output and "colour" in output
