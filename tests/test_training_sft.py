"""``ForgegateCallback`` on TRL's ``SFTTrainer`` (a trainer built on ``transformers.Trainer``), on real SmolLM2 + LoRA.

TRL wraps the model in PEFT itself (``peft_config``) and tokenises chat ``messages`` with the model's template;
the callback must find that wrapped model, its tokenizer and the trainer's log without being told.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from training_run import MECHANICS_PROBE_ITEMS, write_mechanics_probe

from forgegate.backends.embedded import bundled_gguf
from forgegate.training import ForgegateCallback, read_probes

pytestmark = pytest.mark.slow
pytest.importorskip("peft")
pytest.importorskip("gguf")
pytest.importorskip("trl")


def test_sft_trainer_with_the_callback_probes_every_step_and_its_checkpoint(tmp_path: Path) -> None:
    import torch
    from datasets import Dataset
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    torch.manual_seed(0)
    gguf = bundled_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    model.hf_quantizer.remove_quantization_config(model)  # de-quantized on load: plain float32 weights
    rows = [{"messages": [{"role": "user", "content": f"⊙ {s}?"}, {"role": "assistant", "content": f"{s} = crew."}]}
            for s in ("α", "ι", "ε", "κ")]
    # the callback's mechanics on TRL, not the probe's size: the 11-item mechanics probe (tests/training_run.py)
    callback = ForgegateCallback(probe_at_start=False, every_steps=1, battery=write_mechanics_probe(tmp_path))
    trainer = SFTTrainer(
        model=model, processing_class=tokenizer, train_dataset=Dataset.from_list(rows), callbacks=[callback],
        peft_config=LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"),
        args=SFTConfig(output_dir=str(tmp_path / "sft"), max_steps=2, save_steps=2, per_device_train_batch_size=4,
                       learning_rate=1e-3, report_to=[], use_cpu=True, logging_steps=1, disable_tqdm=True,
                       max_length=64))
    trainer.train()

    records = read_probes(tmp_path / "sft").records
    # every_steps=1: step 1 is probed in memory between saves; step 2 once, at its save (not twice)
    assert [(r.step, r.checkpoint, r.source) for r in records] == [(1, None, "callback"),
                                                                    (2, "checkpoint-2", "callback")]
    assert all(r.answered == r.items == MECHANICS_PROBE_ITEMS and r.controls_passed for r in records)
    assert callback.trainer is trainer  # found in the call stack: the numbers went through trainer.log
    logged = [e for e in trainer.state.log_history if "forgegate/loops" in e]
    assert [(e["step"], e["forgegate/loops"]) for e in logged] == [(r.step, r.loops) for r in records]
    assert (tmp_path / "sft" / "checkpoint-2" / "adapter_config.json").is_file()
