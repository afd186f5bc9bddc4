"""Test helper run under ``torchrun --nproc_per_node 2`` (gloo, CPU): full fine-tuning of the tiny model with
``ForgegateCallback``, each process writing what it saw to ``OUT/rank-<r>.json``.

``python -m torch.distributed.run --nproc_per_node 2 tests/ddp_train.py OUT BASE STOP_AT``: the main process's
stop rule is made to fire at step STOP_AT (the rule itself is tested elsewhere; what is under test here is that
every process takes the main process's decision and stops at that same step).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tiny_models import TRAINING_TEXT


def main(out: Path, base: Path, stop_at: int) -> None:
    import torch.distributed as dist
    from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

    from forgegate.training import ForgegateCallback

    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(base, local_files_only=True)
    ids = tokenizer(TRAINING_TEXT)["input_ids"]
    rows = [{"input_ids": ids[i * 8:i * 8 + 32], "attention_mask": [1] * 32, "labels": ids[i * 8:i * 8 + 32]}
            for i in range(16)]
    callback = ForgegateCallback()
    real_observe = callback.watch.observe

    def observe(record: Any) -> str | None:  # runs on the main process only (the only one that probes)
        decided = real_observe(record)
        return decided or (f"stopped by the test at step {record.step}" if record.step >= stop_at else None)

    callback.watch.observe = observe  # type: ignore[method-assign]
    args = TrainingArguments(output_dir=str(out), max_steps=10, save_steps=2, logging_steps=1,
                             per_device_train_batch_size=1, learning_rate=1e-3, report_to=[], use_cpu=True,
                             save_only_model=True, ddp_backend="gloo", seed=0)
    trainer = Trainer(model=model, args=args, train_dataset=rows, processing_class=tokenizer, callbacks=[callback])
    trainer.train()
    rank = dist.get_rank() if dist.is_initialized() else 0
    world = dist.get_world_size() if dist.is_initialized() else 1
    (out / f"rank-{rank}.json").write_text(json.dumps({
        "rank": rank, "world": world, "step": trainer.state.global_step, "stopped": callback.stop_reason,
        "probed": len(callback.records)}), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
