"""Test helper (and scripts/gpu-check.sh's): a real LoRA adapter trained for a few steps on SmolLM2 with PEFT.

Run as a script it also writes SmolLM2 as a Hugging Face folder (the packaged GGUF loaded through
transformers and saved), with an adapter trained on that folder, for servers that need one (vLLM):

    python tests/smol_lora.py OUT_DIR      # OUT_DIR/smollm2-hf, OUT_DIR/adapter-a, OUT_DIR/adapter-b
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

OTHER_BASE = "HuggingFaceTB/SmolLM2-360M-Instruct"
"""The base the ``other`` adapter names: a real model id, not the one it was trained on."""
TRAIN_TEXT = ("The old man fished alone in a skiff in the Gulf Stream. The sea was hard and bright. "
              "He did not speak. The fish pulled and the line held and the sun went down. ")


def train_lora(model: Any, tokenizer: Any, out: Path, *, steps: int = 4, seed: int = 0, lr: float = 3e-3) -> Path:
    """Train a rank-8 LoRA on a copy of ``model`` (left untouched) for ``steps`` steps; save it in ``out``."""
    import torch
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(seed)
    trainee = get_peft_model(copy.deepcopy(model), LoraConfig(
        r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
    trainee.train()
    batch = tokenizer([TRAIN_TEXT, TRAIN_TEXT[40:]], return_tensors="pt", padding=True)
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    optimiser = torch.optim.AdamW([p for p in trainee.parameters() if p.requires_grad], lr=lr)
    for _ in range(steps):
        loss = trainee(**batch, labels=labels).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    trainee.eval()
    trainee.save_pretrained(out)
    return out


def trained_adapters(root: Path) -> dict[str, Path]:
    """The suite's LoRA adapters over the bundled SmolLM2, trained on one load of its GGUF (the slow part).

    ``a`` and ``b`` are two real adapters (different seeds and step counts); ``other`` is ``a`` with an
    adapter_config.json that names OTHER_BASE instead. tests/conftest.py builds them once per session.
    """
    import json
    import shutil

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from forgegate.backends.embedded import bundled_gguf

    gguf = bundled_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    made = {"a": train_lora(model, tokenizer, root / "a", steps=2, seed=1, lr=1e-2),
            "b": train_lora(model, tokenizer, root / "b", steps=3, seed=2, lr=1e-2)}
    other = shutil.copytree(made["a"], root / "other")
    config = json.loads((other / "adapter_config.json").read_text())
    (other / "adapter_config.json").write_text(json.dumps({**config, "base_model_name_or_path": OTHER_BASE}))
    return {**made, "other": other}


def save_hf_folder(model: Any, tokenizer: Any, out: Path) -> Path:
    """Write a GGUF-loaded model as a plain Hugging Face folder (safetensors, float32)."""
    model.hf_quantizer = None  # the GGUF was de-quantized on load: what is saved is plain weights
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def main(out_dir: str) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from forgegate.backends.embedded import bundled_gguf

    out = Path(out_dir)
    gguf = bundled_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    folder = save_hf_folder(model, tokenizer, out / "smollm2-hf")
    model = AutoModelForCausalLM.from_pretrained(folder)  # adapters then name this folder as their base
    train_lora(model, tokenizer, out / "adapter-a", steps=4, seed=1)
    train_lora(model, tokenizer, out / "adapter-b", steps=8, seed=2)
    print(folder)


if __name__ == "__main__":
    main(sys.argv[1])
