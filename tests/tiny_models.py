"""Test helper: a tiny random Llama model, a locally trained byte-level BPE tokenizer and a LoRA adapter.

Everything is built in a temp folder from code: no hub download. The weights are
random (seeded), so outputs are gibberish but deterministic on one machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TRAINING_TEXT = (
    "It was a bright cold day in April. The old man fished alone in a skiff in the Gulf Stream. "
    "He had gone eighty-four days now without taking a fish. The sea was calm and the sun was hot. "
    "She said that it was good and true and that they would go to the cafe in the morning. "
) * 4

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


@dataclass(frozen=True)
class TinyModels:
    base: Path
    adapter: Path
    adapter_other: Path


def build_tokenizer(folder: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, special_tokens=["<s>", "</s>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([TRAINING_TEXT], trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)


def build_base(folder: Path, seed: int = 7) -> None:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    build_tokenizer(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
        # Random init is nearly uniform; scale the head so greedy decoding is not a coin toss on ties.
        with torch.no_grad():
            model.lm_head.weight.mul_(20.0)
    model.save_pretrained(folder)


def build_adapter(base: Path, folder: Path, seed: int) -> None:
    """A LoRA adapter on q/v/o projections, initialised non-zero and perturbed so it changes outputs."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(base, local_files_only=True)
    config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "o_proj"],
                        init_lora_weights=False)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        peft_model = get_peft_model(model, config)
        with torch.no_grad():
            for name, param in peft_model.named_parameters():
                if "lora_" in name:
                    param.add_(torch.randn_like(param) * 0.5)
    peft_model.save_pretrained(folder)


def build_tiny_models(root: Path) -> TinyModels:
    """Build the base model folder and two different adapters under ``root``."""
    base = root / "tiny-llama"
    build_base(base)
    adapter = root / "adapter-a"
    build_adapter(base, adapter, seed=11)
    other = root / "adapter-b"
    build_adapter(base, other, seed=12)
    return TinyModels(base=base, adapter=adapter, adapter_other=other)
