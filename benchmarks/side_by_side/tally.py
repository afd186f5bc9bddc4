"""Read what each tool wrote and print the side-by-side: verdict or accuracy, loops named, tokens, wall time.

Runs in the side-by-side environment (it has inspect_ai to read its log and transformers for the tokenizer):

* forgegate: its `--json` result (`gate`, `failure_modes`, each item's `tokens` as the backend counted the
  generated ids, `finish`, `failure_mode`; `loop_cutoff`);
* inspect_ai: its `.eval` log (`read_eval_log`): the `includes` accuracy, each sample's completion and the
  model's reported `output_tokens`;
* lm-evaluation-harness: its results and `--log_samples` files. It reports no token counts, so each answer is
  re-tokenized with the model's tokenizer (`add_special_tokens=False`): the answer as returned, cut at the
  `<|im_end|>` stop, so the stop token itself is not counted.

Wall time is each tool's whole process (model load included), measured by benchmarks/side_by_side.sh.

    python benchmarks/side_by_side/tally.py WORK_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

LOOP_MODES = ("IDENTITY_LOOP", "RUNAWAY_LOOP")


def short(text: str, width: int = 60) -> str:
    """One line of an answer, cut to width (the tables show the start of each answer)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def forgegate(work: Path) -> dict[str, Any]:
    result = json.loads((work / "forgegate.json").read_text(encoding="utf-8"))
    items = {i["id"]: {"ok": bool(i["passed"]), "tokens": i["tokens"] or 0, "label": i["failure_mode"] or "",
                       "finish": i["finish"], "text": i["response"] or ""} for i in result["items"]}
    loops = sum(1 for i in items.values() if i["label"] in LOOP_MODES)
    return {"items": items, "gate": result["gate"], "modes": result["failure_modes"], "loops": loops,
            "cut": (result.get("loop_cutoff") or {})}


def inspect_ai(work: Path) -> dict[str, Any]:
    from inspect_ai.log import read_eval_log

    [path] = sorted((work / "inspect-logs").glob("*.eval"))
    log = read_eval_log(str(path))
    items = {}
    for sample in log.samples or []:
        usage = sample.output.usage
        score = next(iter((sample.scores or {}).values()))
        items[str(sample.id)] = {"ok": score.value == "C", "tokens": usage.output_tokens if usage else None,
                                 "text": sample.output.completion}
    metrics = log.results.scores[0].metrics if log.results else {}
    return {"items": items, "accuracy": metrics["accuracy"].value if "accuracy" in metrics else None}


def lm_eval(work: Path, tokenizer: Any) -> dict[str, Any]:
    [results_path] = sorted((work / "lm-eval").rglob("results_*.json"))
    results = json.loads(results_path.read_text(encoding="utf-8"))
    items = {}
    for path in sorted((work / "lm-eval").rglob("samples_sbs_cap*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            text = row["filtered_resps"][0]
            items[row["doc"]["id"]] = {"ok": row["acc"] == 1.0, "text": text,
                                       "tokens": len(tokenizer(text, add_special_tokens=False)["input_ids"])}
    return {"items": items, "accuracy": results["results"]["sbs"]["acc,none"],
            "seconds": results.get("total_evaluation_time_seconds")}


def main() -> None:
    from transformers import AutoTokenizer

    work = Path(sys.argv[1])
    walls = json.loads((work / "walls.json").read_text(encoding="utf-8"))
    tokenizer = AutoTokenizer.from_pretrained(work / "merged")
    fg, ins, lme = forgegate(work), inspect_ai(work), lm_eval(work, tokenizer)
    ids = list(fg["items"])
    tok = {name: sum(t["items"][i]["tokens"] or 0 for i in ids) for name, t in
           (("forgegate", fg), ("inspect_ai", ins), ("lm-eval", lme))}
    correct = sum(fg["items"][i]["ok"] for i in ids)
    print(f"{len(ids)} items (forgegate's bundled training probe), one merged SmolLM2-135M + loop-LoRA, greedy, CPU\n")
    print("| tool | what it reports | loops named | tokens generated | wall time |")
    print("|---|---|---|---:|---:|")
    print(f"| forgegate | **{fg['gate']}**, {correct}/{len(ids)} items pass; failure modes: "
          f"{', '.join(fg['modes']) or 'none'} | {fg['loops']} ({fg['cut'].get('cut', '?')} cut off) "
          f"| {tok['forgegate']} | {walls['forgegate']:.0f} s |")
    print(f"| inspect_ai | accuracy {ins['accuracy']:.3f} | none | {tok['inspect_ai']} | {walls['inspect_ai']:.0f} s |")
    print(f"| lm-evaluation-harness | acc {lme['accuracy']:.4f} | none | {tok['lm-eval']} "
          f"| {walls['lm-eval']:.0f} s |")
    print("\n| item | forgegate | tok | inspect_ai | tok | lm-eval | tok | answer (forgegate's, start) |")
    print("|---|---|---:|---|---:|---|---:|---|")
    for i in ids:
        f, n, m = fg["items"][i], ins["items"].get(i, {}), lme["items"].get(i, {})
        verdict = "pass" if f["ok"] else f"fail {f['label']}".strip()
        if f["finish"] == "loop":
            verdict += " (cut off)"
        print(f"| {i} | {verdict} | {f['tokens']} | {'C' if n.get('ok') else 'I'} | {n.get('tokens')} "
              f"| {'1' if m.get('ok') else '0'} | {m.get('tokens')} | `{short(f['text'])}` |")
    print(f"\nforgegate loop_cutoff: {json.dumps(fg['cut'])}")
    print(f"lm-eval's own total_evaluation_time_seconds: {lme['seconds']}")
    same = sum(ins["items"].get(i, {}).get("text", "").strip() == lme["items"].get(i, {}).get("text", "").strip()
               for i in ids)
    print(f"inspect_ai and lm-eval answers identical: {same}/{len(ids)}")


if __name__ == "__main__":
    main()
