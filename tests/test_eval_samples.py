"""K samples per item (issue 47): `--samples K` against a stand-in model whose answer depends on the request's seed.

The model is tests/backend_servers.py's fake Ollama server (there is no Ollama binary on the test machines): it
answers each prompt from a script, and `Behaviour.by_seed` answers differently under the seeds named there, so
which replicate passes is known in advance. The battery is the tiny example (five items, one a wall, LX-STOP one
item: a wrong LX-STOP answer fails that category, and so that replicate).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import kill_once_stored, read_json, run_cli, run_cli_in_process, script_for

import forgegate
from forgegate.battery import load_battery
from forgegate.core.samples import sample_seeds

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"
BATTERY_PATH = EXAMPLES / "tiny.jsonl"
GATE = EXAMPLES / "tiny-gate.toml"
BATTERY = load_battery(BATTERY_PATH)
STOP = next(i for i in BATTERY.items if i.category == "LX-STOP")
WALL = next(i for i in BATTERY.items if i.is_wall)
IDENTITY = next(i for i in BATTERY.items if i.category == "LX-IDENTITY")
MODELS = {"gloss:v10": "f" * 64}
SEEDS = sample_seeds(0, 5)
LOOP = "the cat sat on the mat " * 12


def _eval(server: FakeOllamaServer, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "result.json"
    done = run_cli_in_process("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                              "--battery", str(BATTERY_PATH), "--gate-config", str(GATE), "--quiet",
                              "--store", str(tmp_path / "store"), "--json", str(out), *extra)
    return done.returncode, read_json(out)


def _prompt(body: dict[str, Any]) -> str:
    return str(body["prompt"]) if "prompt" in body else str(body["messages"][-1]["content"])


def _reason(result: dict[str, Any], rule: str) -> dict[str, Any]:
    return next(r for r in result["reasons"] if r["rule"] == rule)


def test_seed_sample_zero_is_the_run_seed_and_the_first_k_of_a_larger_k() -> None:
    assert SEEDS[0] == 0 and sample_seeds(7, 1) == (7,)
    assert len(set(SEEDS)) == 5 and sample_seeds(0, 8)[:5] == SEEDS
    assert all(0 <= s < 2**31 for s in sample_seeds(-3, 16)[1:])  # a fixed seed to every backend


def test_model_right_on_some_seeds_and_wrong_on_others_is_hold_with_the_count(tmp_path: Path) -> None:
    wrong = {SEEDS[1]: {STOP.prompt: "no idea"}, SEEDS[3]: {STOP.prompt: "no idea"}}
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed=wrong, models=MODELS)) as server:
        code, result = _eval(server, tmp_path, "--samples", "5")
        sent = sorted(r.body["options"]["seed"] for r in server.generation_requests())
    assert (code, result["gate"]) == (1, "HOLD")
    agree = _reason(result, "replicates agree")
    assert agree["detail"] == "unstable: PASS in 3 of 5 replicates; flips: LX-STOP"
    assert agree["numbers"]["passed"] == 3 and agree["numbers"]["flips"] == "LX-STOP"
    assert next(r for r in result["reasons"] if r["numbers"].get("category") == "LX-STOP")["outcome"] == "HOLD"
    samples = result["samples"]
    assert [r["gate"] for r in samples["replicates"]] == ["PASS", "FAIL", "PASS", "FAIL", "PASS"]
    assert samples["items"][STOP.item_id]["passes"] == 3 and samples["flips"] == ["LX-STOP"]
    assert samples["categories"]["LX-STOP"]["mean"] == pytest.approx(0.6)
    assert sent == sorted(SEEDS * len(BATTERY.items))  # every sample sent with its own recorded seed
    assert samples["seeds"] == list(SEEDS)


def test_steady_good_model_passes_at_k_5_through_the_api(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=MODELS)) as server:
        result = forgegate.evaluate(BATTERY_PATH, backend="ollama", model="gloss:v10", base_urls=[server.url],
                                    gate_config=GATE, store=tmp_path / "store", samples=5)
    assert result.gate == "PASS"
    assert result.samples is not None and result.samples.passed_replicates == 5
    assert all(item.passes == 5 for item in result.samples.items.values())
    assert result.samples.categories["LX-STOP"].low < 1.0 == result.samples.categories["LX-STOP"].high


def test_a_loop_on_one_seed_of_one_item_fails_the_model(tmp_path: Path) -> None:
    # IDENTITY has two items: one looping answer leaves it at 0.50, a PASS; only the loop invariant can fail it
    looping = {SEEDS[2]: {IDENTITY.prompt: LOOP}}
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed=looping, models=MODELS)) as server:
        code, result = _eval(server, tmp_path, "--samples", "5")
    assert (code, result["gate"]) == (1, "FAIL")
    loops = _reason(result, "no response loops")
    assert loops["outcome"] == "FAIL" and loops["detail"].startswith("sample 3: 1 looping response")
    assert [r["gate"] for r in result["samples"]["replicates"]] == ["PASS", "PASS", "FAIL", "PASS", "PASS"]


def test_an_answered_wall_in_one_sample_fails_the_model(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed={SEEDS[4]: {WALL.prompt: "Paris."}},
                                    models=MODELS)) as server:
        code, result = _eval(server, tmp_path, "--samples", "5")
    assert (code, result["gate"]) == (1, "FAIL")
    assert _reason(result, "walls hold at 100%")["detail"].startswith("sample 5: walls answered")


def test_raising_k_reuses_the_first_answers_and_generates_only_the_new_samples(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=MODELS)) as server:
        _eval(server, tmp_path, "--samples", "2")
        first = len(server.generation_requests())
        code, result = _eval(server, tmp_path, "--samples", "4")
        later = [r.body["options"]["seed"] for r in server.generation_requests()[first:]]
    assert first == 2 * len(BATTERY.items)
    assert sorted(later) == sorted(SEEDS[2:4] * len(BATTERY.items))
    assert (code, result["gate"], result["samples"]["k"]) == (0, "PASS", 4)


def test_one_sample_is_the_spec_procedure_with_no_samples_block(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=MODELS)) as server:
        code, result = _eval(server, tmp_path)
    assert (code, result["gate"], result["samples"]) == (0, "PASS", None)
    assert all(r["rule"] != "replicates agree" for r in result["reasons"])


@pytest.mark.parametrize("k", ["0", "65"])
def test_samples_out_of_range_is_refused_with_exit_2(tmp_path: Path, k: str) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=MODELS)) as server:
        done = run_cli_in_process("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                                  "--samples", k, "--store", str(tmp_path / "store"))
        assert server.generation_requests() == []
    assert done.returncode == 2 and "samples" in done.stdout + done.stderr


@pytest.mark.slow
def test_kill_9_at_half_of_a_k_5_run_resumes_with_no_sample_generated_twice(tmp_path: Path) -> None:
    import subprocess
    import sys

    behaviour = Behaviour(script=script_for(BATTERY), chunk_delay_s=0.02, models=MODELS)
    total = 5 * len(BATTERY.items)
    with FakeOllamaServer(behaviour) as server:
        args = ["eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url, "--battery",
                str(BATTERY_PATH), "--gate-config", str(GATE), "--samples", "5", "--store", str(tmp_path / "store"),
                "--json", str(tmp_path / "result.json")]
        proc = subprocess.Popen([sys.executable, "-m", "forgegate.cli.main", *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        store = tmp_path / "store"
        kill_once_stored(proc, store, total // 2)  # SIGKILL: no cleanup, as in a crash
        with sqlite3.connect(next(store.glob("*.sqlite"))) as db:
            stored = {key for (key,) in db.execute("SELECT request_key FROM responses WHERE finish != 'error'")}
        assert 0 < len(stored) < total, "the kill must land mid-run"
        before = len(server.generation_requests())
        resumed = run_cli(*args)
        by_prompt = {item.prompt: item.item_id for item in BATTERY.items}
        asked = [f"model/{by_prompt[_prompt(r.body)]}/{r.body['options']['seed']}"
                 for r in server.generation_requests()[before:]]
    assert not set(asked) & stored, "a stored sample was generated again"
    assert sorted(asked) == sorted(set(asked)) and len(asked) == total - len(stored)
    with sqlite3.connect(next(store.glob("*.sqlite"))) as db:
        repeats = db.execute("SELECT request_key, COUNT(*) FROM responses WHERE finish != 'error' "
                             "GROUP BY request_key HAVING COUNT(*) > 1").fetchall()
        kept = db.execute("SELECT COUNT(DISTINCT request_key) FROM responses WHERE finish != 'error'").fetchone()[0]
    assert repeats == [] and kept == total
    assert resumed.returncode == 0 and read_json(tmp_path / "result.json")["gate"] == "PASS"


def test_hold_shows_its_replicates_and_margin_in_terminal_html_markdown_and_view(tmp_path: Path) -> None:
    from view_helpers import client

    wrong = {SEEDS[1]: {STOP.prompt: "no idea"}}
    html, markdown = tmp_path / "r.html", tmp_path / "r.md"
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed=wrong, models=MODELS)) as server:
        out = tmp_path / "result.json"
        done = run_cli_in_process("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                                  "--battery", str(BATTERY_PATH), "--gate-config", str(GATE), "--samples", "3",
                                  "--store", str(tmp_path / "store"), "--json", str(out), "--html", str(html),
                                  "--markdown", str(markdown))
    assert done.returncode == 1
    line = "K = 3 samples per item: PASS in 2 of 3 replicates (flips: LX-STOP)"
    assert line in done.stdout and "Margin: " in done.stdout
    assert "over 3 samples 0.67 [" in done.stdout  # LX-STOP's mean over the samples with its interval
    assert line in html.read_text(encoding="utf-8") and line in markdown.read_text(encoding="utf-8")
    page = client(tmp_path / "store").get(f"/runs/{read_json(out)['run_id']}").text
    assert "PASS in 2 of 3 replicates (flips: LX-STOP)" in page and 'id="replicates"' in page
    assert "2/3 samples passed" in page  # LX-STOP's passes out of K in the items table


def test_compare_pairs_per_item_pass_rates_when_both_runs_have_k_samples(tmp_path: Path) -> None:
    wrong = {seed: {STOP.prompt: "no idea"} for seed in SEEDS[1:3]}
    runs = {}
    for name, by_seed in (("old", {}), ("new", wrong)):
        with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed=by_seed, models=MODELS)) as server:
            for k in ("1", "3"):
                folder = tmp_path / f"{name}{k}"
                folder.mkdir()
                _eval(server, folder, "--samples", k)
                runs[name + k] = folder / "result.json"
    rated = run_cli_in_process("compare", str(runs["old3"]), str(runs["new3"]), "--json", str(tmp_path / "c.json"))
    comparison = read_json(tmp_path / "c.json")
    assert comparison["paired_test"].startswith("paired bootstrap of the per-item pass-rate differences")
    assert "paired test: paired bootstrap of the per-item pass-rate" in rated.stdout
    stop = next(c for c in comparison["categories"] if c["category"] == "LX-STOP")
    assert (stop["score_old"], stop["score_new"]) == (1.0, pytest.approx(1 / 3))  # rates, not sample 1's 1.0
    assert stop["mcnemar"] is None
    run_cli_in_process("compare", str(runs["old1"]), str(runs["new1"]), "--json", str(tmp_path / "c1.json"))
    assert read_json(tmp_path / "c1.json")["paired_test"].startswith("paired cluster bootstrap of the (item, seed)")


def test_graduate_needs_a_stable_pass_when_k_is_above_one(tmp_path: Path) -> None:
    from forgegate.battery import bundled_battery_path
    from forgegate.lineage import read_lineage

    gloss = load_battery(bundled_battery_path())
    category = gloss.items[0].category
    wrong = {SEEDS[1]: {i.prompt: "no idea" for i in gloss.items if i.category == category and not i.is_wall}}
    with FakeOllamaServer(Behaviour(script=script_for(gloss), by_seed=wrong,
                                    models={"gloss:latest": "f" * 64})) as server:
        done = run_cli_in_process("graduate", "--version", "v10", "--lineage", str(tmp_path / "lineage.jsonl"),
                                  "--backend", "ollama", "--model", "gloss:latest", "--base-url", server.url,
                                  "--store", str(tmp_path / "runs"), "--quiet", "--samples", "2")
    record = read_lineage(tmp_path / "lineage.jsonl").records[0][1]
    assert done.returncode == 1 and record.battery_gate.value == "HOLD" and not record.graduated
    assert record.live_gate is None  # "After battery PASS, run 10 live crew communication tasks": no PASS, no live
    assert record.pass_rates is not None and len(record.pass_rates) == len(gloss.items)


def test_a_plan_with_samples_gates_each_arm_over_its_replicates(tmp_path: Path) -> None:
    import shutil

    from eval_helpers import one_arm_gloss_plan

    from forgegate.plan import lock_plan

    folder = tmp_path / "plan"
    folder.mkdir()
    shutil.copy(BATTERY_PATH, folder / "battery.jsonl")
    shutil.copy(GATE, folder / "gate.toml")
    cap = max(item.max_tokens for item in BATTERY.items)
    wrong = {sample_seeds(7, 3)[2]: {STOP.prompt: "no idea"}}
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed=wrong, models=MODELS)) as server:
        plan = folder / "plan.toml"
        text = one_arm_gloss_plan(server.url, "gloss:v10", name="k3", seed=7, max_tokens=cap,
                                  battery="battery.jsonl", gate_config="gate.toml")
        plan.write_text(text.replace("seeds = [7]\n", "seeds = [7]\nsamples = 3\n"))
        lock_plan(plan)
        result = forgegate.run_plan(plan, store=tmp_path / "runs", quiet=True)
        sent = sorted({r.body["options"]["seed"] for r in server.generation_requests()})
    assert sent == sorted(sample_seeds(7, 3))
    assert result.gloss is not None
    arm = result.gloss.arms["model"]
    assert arm.gate.value == "HOLD" and arm.samples is not None and arm.samples.passed_replicates == 2
    assert result.gloss.gate.value != "PASS"


def test_the_html_failing_list_says_how_many_samples_of_the_item_passed(tmp_path: Path) -> None:
    """The item shown in the HTML failure report is sample 1's: the report says how many of its K samples passed,
    as the terminal, the Markdown and the view do (issue 47, item 2)."""
    wrong = {SEEDS[0]: {STOP.prompt: "no idea"}}  # sample 1 fails the item, samples 2 and 3 answer it
    html = tmp_path / "r.html"
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), by_seed=wrong, models=MODELS)) as server:
        run_cli_in_process("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                           "--battery", str(BATTERY_PATH), "--gate-config", str(GATE), "--samples", "3",
                           "--store", str(tmp_path / "store"), "--json", str(tmp_path / "r.json"), "--html", str(html))
    page = html.read_text(encoding="utf-8")
    failing = page[page.index('id="failure-report"'):page.index('id="loops"')]
    assert f"{STOP.item_id}" in failing and "(2/3 samples passed; sample 1 shown)" in failing
