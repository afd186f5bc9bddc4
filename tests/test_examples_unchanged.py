"""Issue 34's refactor changes no verdict: the bundled examples' JSON and exit codes match a committed copy.

Each case runs a real command on the bundled examples (``examples/``, ``data/texts``) through the console entry's
handler, in this process, and compares its exit code and its ``--json`` file, byte for byte once the run's own
time, version and temporary folder are blanked, with ``tests/data/golden/NAME.json``. The copies were written by
the code before the refactor (commit 1222c9c); a change to any verdict, reason, number or field shows here. One
change was meant: ``checkpoints``, ``fixture_build`` and ``battery_check`` gained ``kind`` and
``schema_version`` (issue 34, item 3: every ``--json`` a registered result kind), every other field as before
(CHANGELOG.md).

Generation goes to the fake Ollama server with scripted answers (the examples' eval and live test): what is
compared is everything after the model answered, and a real model would make this a slow test.
To rewrite the copies after a change that is meant to move them: ``FORGEGATE_WRITE_GOLDEN=1 pytest THIS_FILE``
(then say why in CHANGELOG.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import run_cli_in_process, script_for
from instruments_helpers import arm_from_novel, beats, novel, spec_loss_curve, write_gens, write_trainer_state

import forgegate
from forgegate.battery import bundled_live_test_path, load_battery

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GOLDEN = Path(__file__).parent / "data" / "golden"
VOLATILE = frozenset({"created", "forgegate_version", "store", "elapsed_s", "wall_s", "latency_s"})
"""Keys whose value is this run's own (its time, answer latencies, the version, where its store lies), blanked."""
MODELS = {"gloss:v10": "e" * 64}

Case = Callable[[Path], list[str]]


def _eval(tmp: Path, battery: Path, gate: Path | None, overrides: dict[str, str], kind: str = "eval") -> list[str]:
    script = script_for(load_battery(battery), overrides)
    out = tmp / "out.json"
    with FakeOllamaServer(Behaviour(script=script, models=MODELS)) as server:
        args = [kind, "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                "--battery", str(battery), "--concurrency", "1", "--retries", "1", "--store", str(tmp / "store"),
                "--quiet", "--json", str(out)]
        done = run_cli_in_process(*args, *(["--gate-config", str(gate)] if gate else []))
    return [str(done.returncode), str(out)]


def eval_tiny_pass(tmp: Path) -> list[str]:
    return _eval(tmp, EXAMPLES / "batteries" / "tiny.jsonl", EXAMPLES / "batteries" / "tiny-gate.toml", {})


def eval_tiny_fail(tmp: Path) -> list[str]:
    battery = load_battery(EXAMPLES / "batteries" / "tiny.jsonl")
    wrong = {battery.items[0].prompt: "I would rather not say. " * 3}
    return _eval(tmp, EXAMPLES / "batteries" / "tiny.jsonl", EXAMPLES / "batteries" / "tiny-gate.toml", wrong)


def live_pass(tmp: Path) -> list[str]:
    return _eval(tmp, bundled_live_test_path(), None, {}, kind="live")


def _gens(tmp: Path) -> Path:
    rng = np.random.default_rng(7)
    rows = (arm_from_novel("base", "austen-emma.txt", rng, per_seed=6)
            + arm_from_novel("tuned", "austen-pride-and-prejudice.txt", rng, per_seed=6))
    return write_gens(tmp / "gens.jsonl", rows)


def _run(tmp: Path, *args: str) -> list[str]:
    out = tmp / "out.json"
    done = run_cli_in_process(*args, "--json", str(out))
    return [str(done.returncode), str(out)]


def voice(tmp: Path) -> list[str]:
    reference = tmp / "ref.txt"
    reference.write_text(novel("austen-sense-and-sensibility.txt")[:60_000], encoding="utf-8")
    return _run(tmp, "voice", "--author", "Austen", "--reference", str(reference), "--generations",
                str(_gens(tmp)), "--control", "base", "--candidate", "tuned", "--segment-words", "500",
                "--features", "100")


def memorization(tmp: Path) -> list[str]:
    corpus = EXAMPLES / "hemingway-style" / "corpus" / "pride-and-prejudice-part.txt"
    return _run(tmp, "memorization", "--corpus", str(corpus), "--generations", str(_gens(tmp)),
                "--control", "base", "--candidate", "tuned", "--control-passages", "5")


def damage(tmp: Path) -> list[str]:
    return _run(tmp, "damage", "--generations", str(_gens(tmp)), "--band", "90-150", "--control", "base",
                "--candidate", "tuned")


def checkpoints(tmp: Path) -> list[str]:
    state = write_trainer_state(tmp / "trainer_state.json", spec_loss_curve())
    return _run(tmp, "checkpoints", str(state))


def fixture_build(tmp: Path) -> list[str]:
    rng = np.random.default_rng(3)
    rows = [{"split": split, "instruction": f"Continue the scene ({work}, {i}).", "response": text, "work": work}
            for work in ("austen-emma.txt", "cbronte-villette.txt")
            for split, count in (("train", 4), ("val", 6))
            for i, text in enumerate(beats(novel(work), rng, count, words=int(rng.integers(80, 160))))]
    pairs = tmp / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return _run(tmp, "fixture", "build", "--pairs", str(pairs), "--split", "val", "--n", "5", "--band", "90-150",
                "--seed", "11", "--out", str(tmp / "fixture.jsonl"))


def battery_check(tmp: Path) -> list[str]:
    return _run(tmp, "battery", "check", str(EXAMPLES / "batteries" / "tiny.jsonl"))


def audit_loops(tmp: Path) -> list[str]:
    return _run(tmp, "audit", "loops", str(EXAMPLES / "audit" / "gloss_corpus.jsonl"))


def audit_format(tmp: Path) -> list[str]:
    return _run(tmp, "audit", "format", "--battery", str(EXAMPLES / "audit" / "battery.jsonl"), "--corpus",
                str(EXAMPLES / "audit" / "gloss_corpus.jsonl"))


def audit_contamination(tmp: Path) -> list[str]:
    return _run(tmp, "audit", "contamination", "--battery", str(EXAMPLES / "audit" / "battery.jsonl"),
                "--corpus", str(EXAMPLES / "audit" / "gloss_corpus.jsonl"))


def audit_leak(tmp: Path) -> list[str]:
    leak = EXAMPLES / "audit" / "leak"
    return _run(tmp, "audit", "leak", "--source", str(leak / "source"), "--renamed", str(leak / "renamed"),
                "--pairs", str(leak / "pairs.jsonl"), "--map", str(leak / "rename_map.tsv"))


CASES: dict[str, Case] = {case.__name__: case for case in (
    eval_tiny_pass, eval_tiny_fail, live_pass, voice, memorization, damage, checkpoints, fixture_build,
    battery_check, audit_loops, audit_format, audit_contamination, audit_leak)}


def _blank(value: object) -> object:
    if isinstance(value, dict):
        return {k: ("<this run>" if k in VOLATILE else _blank(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(v) for v in value]
    return value


def observed(name: str, tmp: Path) -> str:
    """The case's exit code and JSON, as the text compared with its committed copy."""
    code, out = CASES[name](tmp)
    text = Path(out).read_text(encoding="utf-8") if Path(out).is_file() else "null"
    text = text.replace(str(tmp), "<tmp>").replace(str(Path(forgegate.__file__).parent), "<forgegate>")
    text = text.replace(str(REPO), "<repo>")
    text = re.sub(r"http://127\.0\.0\.1:\d+", "<server>", text)
    payload = {"exit_code": int(code), "json": _blank(json.loads(text))}
    return json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_bundled_examples_give_the_same_verdicts_json_and_exit_codes(name: str, tmp_path: Path) -> None:
    got = observed(name, tmp_path)
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("FORGEGATE_WRITE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert json.loads(got)["json"] is not None, f"{name} wrote no --json file"
    assert got == golden.read_text(encoding="utf-8")
