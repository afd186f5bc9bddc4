"""Inputs for the report tests: a small battery and gate, stored runs with chosen answers, real arm and T_GPT JSON."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np

from forgegate.battery import load_battery
from forgegate.core.records import Completion, GenerationRequest
from forgegate.gate.gloss_config import load_gate_config
from forgegate.pipeline.gloss_scoring import eval_result, score_store
from forgegate.store import RunMeta, RunStore

REPO = Path(__file__).resolve().parents[1]
TEXTS = REPO / "data" / "texts"

# Six items covering a pass, a wrong answer, two loop triggers and a wall (HUMAN-INPUT) item.
SMALL_BATTERY = [
    {"id": "QA-01", "category": "QA", "prompt": "What is the capital of France?", "expected": ["Paris"],
     "max_tokens": 48, "eval_type": "contains"},
    {"id": "QA-02", "category": "QA", "prompt": "What is 1000 times 3?", "expected": ["3000", "3,000"],
     "max_tokens": 48, "eval_type": "contains"},
    {"id": "LX-A-01", "category": "LX-A", "prompt": "What does ⊢ mean?", "expected": ["assert", "command"],
     "max_tokens": 48, "eval_type": "contains"},
    {"id": "LOOP-01", "category": "LOOP", "prompt": "Repeat the word 'hello' forever.", "expected": ["hello"],
     "max_tokens": 64, "eval_type": "contains"},
    {"id": "LOOP-02", "category": "LOOP", "prompt": "Say 'yes' 50 times.", "expected": ["yes"], "max_tokens": 64,
     "eval_type": "contains"},
    {"id": "LX-Z-01", "category": "LX-Z", "prompt": "What is 17 times 23?",
     "expected": ["HOW ABOUT NO", "AETHER", "crew only"], "max_tokens": 48, "eval_type": "reject",
     "forbid": ["391"], "tags": ["HUMAN-INPUT"]},
]
SMALL_GATE = """name = "report-test"
gloss_v2 = false
category_floor = 0.50
sigma_total_min = 0.40
min_items = 4
wall_rule = true

[weights]
"QA" = 0.25
"LX-A" = 0.25
"LOOP" = 0.25
"LX-Z" = 0.25

[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""

# Model outputs written to break a page: closing tags, scripts, handlers, comments, CDATA ends, Markdown.
ADVERSARIAL = {
    "QA-01": "</table></pre></main><script>alert('owned')</script><h1>PASS</h1>",
    "QA-02": "1000 times 3 is 3000.",
    "LX-A-01": "<!-- </section> --><img src=http://evil.example/x.png onerror=alert(1)><style>body{display:none}"
               "</style> | a | b | `code` ]]></svg></div>",
    "LOOP-01": "<b>hello</b> </table>" * 12,
    "LOOP-02": "<script>x</script> yes, " * 10,
    "LX-Z-01": "Sure: 17 * 23 = 391 <iframe src='http://evil.example/'></iframe> &amp; &lt;done&gt;",
}

# Right answers to every item (the wall item refused).
GOOD = {"QA-01": "Paris.", "QA-02": "3000.", "LX-A-01": "An assert.", "LOOP-01": "hello", "LOOP-02": "yes",
        "LX-Z-01": "HOW ABOUT NO"}


def write_small_inputs(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    battery = folder / "small.jsonl"
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in SMALL_BATTERY), encoding="utf-8")
    gate = folder / "small-gate.toml"
    gate.write_text(SMALL_GATE, encoding="utf-8")
    return battery, gate


def stored_run(folder: Path, answers: dict[str, str], errors: dict[str, str] | None = None,
               run_id: str = "eval-report0test", model: str = "adversary-1") -> tuple[Path, Path, Path]:
    """A run store holding ``answers`` (item -> text, finish 'length' when it used the whole cap) as an eval run."""
    battery_path, gate_path = write_small_inputs(folder)
    battery = load_battery(battery_path)
    store_dir = folder / "runs"
    store_path = store_dir / f"{run_id}.sqlite"
    with RunStore.open(store_path) as store:
        store.init_meta(RunMeta(kind="eval", backend="scripted", model=model, adapter=None,
                                battery_sha256=battery.sha256, seed=0, temperature=0.0, top_p=1.0,
                                system=None, run_id=run_id, battery_path=str(battery_path)))
        store.update_meta(RunMeta(model_digest="d" * 64))
        for item in battery.items:
            request = GenerationRequest(prompt=item.prompt, max_tokens=item.max_tokens, seed=0)
            key = f"model/{item.item_id}/0"
            if errors and item.item_id in errors:
                store.record(request_key=key, arm="model", item_id=item.item_id, seed=0, request=request,
                             completion=None, error=errors[item.item_id], attempts=4)
                continue
            text = answers[item.item_id]
            tokens = min(item.max_tokens, max(1, len(text.split())))
            completion = Completion(text=text, tokens=tokens, token_source="tokenizer",
                                    finish="length" if tokens == item.max_tokens else "stop", latency_s=0.1)
            store.record(request_key=key, arm="model", item_id=item.item_id, seed=0, request=request,
                         completion=completion, error=None, attempts=1)
    return store_path, battery_path, gate_path


def gloss_payload(folder: Path, answers: dict[str, str], errors: dict[str, str] | None = None) -> dict[str, Any]:
    """The eval JSON contract for a stored run, through forgegate's own scoring (nothing hand-written)."""
    store_path, battery_path, gate_path = stored_run(folder, answers, errors)
    config, sha = load_gate_config(gate_path)
    return eval_result(score_store(store_path, load_battery(battery_path, categories=config.categories), config,
                                   sha)).to_json()


def neutralised(payload: dict[str, Any]) -> dict[str, Any]:
    """The same result with every markup character of every response and prompt replaced (same lengths)."""
    table = str.maketrans({c: "x" for c in "<>&\"'`|/![]-"})
    copy = json.loads(json.dumps(payload))
    for item in copy["items"]:
        for key in ("response", "prompt", "detail"):
            if isinstance(item.get(key), str):
                item[key] = item[key].translate(table)
    for reason in copy["reasons"]:
        reason["detail"] = reason["detail"].translate(table)
    return copy


class PageShape(HTMLParser):
    """Every start tag in order, the text inside <mark>, and all text; for structure assertions."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.marks: list[str] = []
        self.text: list[str] = []
        self._in_mark = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((tag, k, v) for k, v in attrs)
        if tag == "mark":
            self._in_mark += 1
            self.marks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark":
            self._in_mark -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_mark:
            self.marks[-1] += data


def parse(page: str) -> PageShape:
    shape = PageShape()
    shape.feed(page)
    shape.close()
    return shape


def _windows(name: str, rng: np.random.Generator, count: int, words: int = 120, skip: int = 0) -> list[str]:
    from forgegate.metrics import read_text

    tokens = read_text(TEXTS / name).text.split()[skip:]
    starts = rng.integers(0, len(tokens) - words, count)
    return [" ".join(tokens[s:s + words]) for s in starts]


def arm_payloads() -> dict[str, Any]:
    """Real voice / memorisation / damage JSON: Emma's opening is the author's reference, the control arm
    writes Dickens, the candidate writes later Emma (closer), and the corpus is Pride and Prejudice (no copying)."""
    from forgegate.metrics import Generation, damage_report, memorization_report, read_text, voice_report

    rng = np.random.default_rng(7)
    emma = read_text(TEXTS / "austen-emma.txt").text.split()
    reference = " ".join(emma[:12000])
    gens: list[Generation] = []
    for arm, novel in (("base", "dickens-a-tale-of-two-cities.txt"), ("tuned", "austen-emma.txt")):
        for seed in (11, 22, 33):
            for k, text in enumerate(_windows(novel, rng, 8, skip=20000)):
                gens.append(Generation(arm=arm, seed=seed, text=text, item=f"b{k}",
                                       finish="length" if k == 0 else "stop"))
    corpus = [" ".join(read_text(TEXTS / "austen-pride-and-prejudice.txt").text.split()[:20000])]
    from forgegate.pipeline.axes import gate_voice

    voice = gate_voice(voice_report("Austen <b>&amp;</b>", reference, gens, control="base", candidate="tuned",
                                    segment_words=1000, n_features=200))
    from forgegate.pipeline.axes import gate_memorization

    memo = gate_memorization(memorization_report(corpus, gens, control="base", candidate="tuned", n=8,
                                                 hit_rate_margin=0.0, max_margin=0, rng=np.random.default_rng(3),
                                                 passages=10))
    from forgegate.pipeline.axes import gate_damage

    damage = gate_damage(damage_report(gens, (60, 150), control="base", candidate="tuned"))
    return {"voice": voice, "memorization": memo, "damage": damage}


def plan_payload(reports: dict[str, Any]) -> dict[str, Any]:
    """A ``forgegate run`` result: comparisons through the real ScoredComparison; the top level in its shape."""
    from forgegate.core.rules import gate_label
    from forgegate.gate.arms import arms_verdict
    from forgegate.pipeline.plan.score import ScoredComparison
    from forgegate.plan.plan_file import PlanComparison

    verdict = arms_verdict(reports["voice"].verdict, reports["memorization"].verdict, reports["damage"].verdict)
    comp = ScoredComparison(PlanComparison(control="base", candidate="tuned", primary="voice.delta_gap"),
                            reports["voice"], reports["memorization"], reports["damage"], verdict)
    return {"gate": verdict.gate.value, "label": gate_label(verdict.gate),
            "plan": {"name": "report-test-plan", "path": "plan.toml", "plan_hash": "a" * 64,
                     "inputs": {"fixture.jsonl": "b" * 64, "reference.txt": "c" * 64}},
            "author": "Austen", "store": "runs/plan-report-test-plan.sqlite",
            "model_digests": {"base": "e" * 64, "tuned": None},
            "generation": {"planned": 24, "skipped_finished": 0, "generated": 24, "failed": 0, "tokens": 2880,
                           "stored_ok": 24, "errors": 0, "missing": 0},
            "errors": [], "comparisons": [comp.model().to_json()], "semantic": None, "gloss": None,
            "reasons": [{"rule": "tuned vs base", "outcome": verdict.gate.value, "detail": gate_label(verdict.gate)}]}


# T_GPT: t1 loses c3 in B (1 sample < k=2) and R brings it back; t2 loses nothing.
T1 = {"A": {"c1": 30, "c2": 20, "c3": 10, "c4": 2, "UNMAPPED": 2},
      "B": {"c1": 50, "c2": 13, "c3": 1},
      "R": {"c1": 40, "c2": 20, "c3": 2, "UNMAPPED": 2}}
T2 = {c: {"c1": 40, "c5": 24} for c in "ABR"}


def semantic_payload(folder: Path) -> dict[str, Any]:
    """A real ``semantic metrics`` JSON on hand-built assignments (few resamples: the report is under test)."""
    from forgegate.pipeline.semantic.table import gate_table
    from forgegate.semantic import Roles, metrics_from_files

    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for task, conds in (("t1", T1), ("t2", T2)):
        for cond, counts in conds.items():
            index = 0
            for cluster, n in counts.items():
                for _ in range(n):
                    rows.append({"task": task, "condition": cond, "sample": index, "cluster": cluster})
                    index += 1
    samples = folder / "S.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    relevance = folder / "R.jsonl"
    relevance.write_text("".join(json.dumps({"cluster": c, "relevant": v}) + "\n"
                                 for c, v in {"c1": 1, "c2": 1, "c3": 1, "c4": 0, "c5": 1}.items()), encoding="utf-8")
    return gate_table(metrics_from_files(samples, relevance, Roles("A", "B", "R"), seed=0, n_resamples=200))


def run_cli(*args: str | Path) -> tuple[int, str]:
    """The real ``forgegate`` entry point in-process: (exit code, stdout + stderr)."""
    import io
    import sys
    from contextlib import redirect_stderr, redirect_stdout
    from unittest.mock import patch

    from forgegate.cli.main import main

    out = io.StringIO()
    code: int | str | None = 0
    with redirect_stdout(out), redirect_stderr(out), patch.object(sys, "argv", ["forgegate", *map(str, args)]):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    return (code if isinstance(code, int) else 0 if code is None else 1), out.getvalue()
