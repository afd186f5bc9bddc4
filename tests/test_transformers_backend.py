"""The transformers backend on a tiny random Llama + LoRA adapters that the tests build (no download)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from slow import starts_something

from forgegate.backends import BACKENDS, BackendConfig, make_backend
from forgegate.core.records import Completion, GenerationRequest
from forgegate.errors import UsageError
from tests.tiny_models import TinyModels, build_tiny_models

pytest.importorskip("torch")
pytest.importorskip("peft")


@pytest.fixture(scope="module")
@starts_something
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModels:
    return build_tiny_models(tmp_path_factory.mktemp("tiny"))


def generate(model: Path, request: GenerationRequest, adapter: Path | None = None) -> Completion:
    async def go() -> Completion:
        backend = make_backend("transformers", BackendConfig(model=str(model),
                                                             adapter=str(adapter) if adapter else None))
        try:
            return await backend.generate(request)
        finally:
            await backend.aclose()

    return asyncio.run(go())


GREEDY = GenerationRequest(prompt="The old man fished", max_tokens=16, seed=1, temperature=0.0, chat=False)


def test_backend_is_registered_as_transformers() -> None:
    assert "transformers" in BACKENDS.names()


def test_adapter_changes_the_output_of_the_same_base(tiny: TinyModels) -> None:
    base = generate(tiny.base, GREEDY)
    adapted = generate(tiny.base, GREEDY, tiny.adapter)
    other = generate(tiny.base, GREEDY, tiny.adapter_other)
    assert adapted.text != base.text
    assert other.text != adapted.text


def test_three_arms_share_one_base_without_leaking_adapters(tiny: TinyModels) -> None:
    alone_base = generate(tiny.base, GREEDY)
    alone_adapted = generate(tiny.base, GREEDY, tiny.adapter)

    async def interleaved() -> list[str]:
        arms = [make_backend("transformers", BackendConfig(model=str(tiny.base), adapter=a))
                for a in (None, str(tiny.adapter), str(tiny.adapter_other))]
        texts = []
        for backend in (*arms, *arms):
            texts.append((await backend.generate(GREEDY)).text)
        for backend in arms:
            await backend.aclose()
        return texts

    texts = asyncio.run(interleaved())
    assert texts[0] == texts[3] == alone_base.text
    assert texts[1] == texts[4] == alone_adapted.text
    assert texts[2] == texts[5] != texts[1]


def test_same_seed_repeats_and_other_seeds_differ(tiny: TinyModels) -> None:
    sampled = GenerationRequest(prompt="The sea", max_tokens=12, seed=5678, temperature=1.0, chat=False)
    first = generate(tiny.base, sampled, tiny.adapter)
    again = generate(tiny.base, sampled, tiny.adapter)
    assert first.text == again.text and first.tokens == again.tokens
    others = {generate(tiny.base, sampled.model_copy(update={"seed": s}), tiny.adapter).text
              for s in (1, 2, 3)}
    assert len(others | {first.text}) > 1


def hf_greedy_ids(tiny: TinyModels, prompt: str, max_new: int) -> list[int]:
    """The reference: transformers' own generate() with the adapter, greedy, EOS dropped."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny.base, local_files_only=True)
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny.base, local_files_only=True),
                                      str(tiny.adapter))
    ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        out = model.generate(input_ids=ids, max_new_tokens=max_new, do_sample=False)
    return [t for t in out[0, ids.shape[1]:].tolist() if t != tokenizer.eos_token_id]


def test_cap_is_honoured_and_token_count_matches_hf_generate(tiny: TinyModels) -> None:
    from transformers import AutoTokenizer

    request = GenerationRequest(prompt="The old man fished", max_tokens=7, seed=1, temperature=0.0, chat=False)
    ours = generate(tiny.base, request, tiny.adapter)
    assert ours.tokens <= 7
    assert ours.token_texts is not None and len(ours.token_texts) == ours.tokens
    assert "".join(ours.token_texts) == ours.text
    assert ours.token_source == "tokenizer"
    new = hf_greedy_ids(tiny, "The old man fished", 7)
    tokenizer = AutoTokenizer.from_pretrained(tiny.base, local_files_only=True)
    assert ours.tokens == len(new)
    assert ours.text == tokenizer.decode(new, skip_special_tokens=True)
    assert ours.finish == ("length" if len(new) == 7 else "stop")


def test_end_of_sequence_token_finishes_with_stop_and_is_not_counted(tiny: TinyModels, tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny.base, local_files_only=True)
    ids = hf_greedy_ids(tiny, GREEDY.prompt, GREEDY.max_tokens)
    assert len(ids) >= 3
    target = ids[2]  # make the 3rd generated token an end-of-sequence token (via generation_config)
    position = ids.index(target)
    variant = tmp_path / "eos-variant"
    shutil.copytree(tiny.base, variant)
    config_path = variant / "generation_config.json"
    config = json.loads(config_path.read_text())
    config["eos_token_id"] = [tokenizer.eos_token_id, target]
    config_path.write_text(json.dumps(config))
    stopped = generate(variant, GREEDY, tiny.adapter)
    assert stopped.finish == "stop"
    assert stopped.tokens == position
    assert stopped.text == tokenizer.decode(ids[:position], skip_special_tokens=True)


def test_stop_string_cuts_the_text_and_finishes_with_stop(tiny: TinyModels) -> None:
    free = generate(tiny.base, GREEDY, tiny.adapter)
    stop = free.text[len(free.text) // 2:][:2]
    assert stop.strip()
    cut = generate(tiny.base, GREEDY.model_copy(update={"stop": (stop,)}), tiny.adapter)
    assert cut.finish == "stop"
    assert cut.text == free.text[: free.text.index(stop)]
    assert cut.tokens < free.tokens
    assert "".join(cut.token_texts or ()) == cut.text


def test_chat_template_is_used_when_the_request_asks_for_chat(tiny: TinyModels) -> None:
    raw = generate(tiny.base, GREEDY)
    chat = generate(tiny.base, GREEDY.model_copy(update={"chat": True}))
    assert int(chat.extra["prompt_tokens"]) > int(raw.extra["prompt_tokens"])


def test_model_digest_covers_weights_and_adapter(tiny: TinyModels) -> None:
    digests = [generate(tiny.base, GREEDY, a).model_digest for a in (None, tiny.adapter, tiny.adapter_other)]
    assert all(d and d.startswith("sha256:") for d in digests)
    assert len(set(digests)) == 3
    assert generate(tiny.base, GREEDY, tiny.adapter).model_digest == digests[1]


def test_missing_model_is_refused_without_download(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="never downloads"):
        make_backend("transformers", BackendConfig(model="nobody/no-such-model-xyz"))
    with pytest.raises(UsageError, match="adapter"):
        make_backend("transformers", BackendConfig(model=str(tmp_path), adapter=str(tmp_path)))


def test_detokenising_incrementally_gives_the_text_of_one_whole_decode(tiny: TinyModels) -> None:
    from transformers import AutoTokenizer

    from forgegate.backends._batching import IncrementalDetokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny.base, local_files_only=True)
    text = "Café déjà vu: naïve 🙂 fish, 北京 and the sea."
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    calls: list[int] = []

    def decode(window: list[int]) -> str:
        calls.append(len(window))
        return str(tokenizer.decode(window, skip_special_tokens=True))

    detok = IncrementalDetokenizer(decode)
    pieces = [detok.push(token) for token in ids]
    pieces[-1] += detok.flush()
    assert "".join(pieces) == detok.text == tokenizer.decode(ids, skip_special_tokens=True)
    assert all("\ufffd" not in piece for piece in pieces)  # a partial character waits for its last byte
    assert max(calls) < len(ids) // 2  # windows, never the whole sequence


def test_cuda_without_a_gpu_is_a_usage_error(tiny: TinyModels) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(UsageError, match="torch sees no CUDA GPU here"):
        make_backend("transformers", BackendConfig(model=str(tiny.base), device="cuda"))


def test_a_gguf_transformers_cannot_load_is_a_usage_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 32)
    with pytest.raises(UsageError, match="transformers cannot load the GGUF"):
        make_backend("transformers", BackendConfig(model=str(broken), device="cpu"))


def test_an_adapter_for_another_base_is_refused(tiny: TinyModels, tmp_path: Path) -> None:
    other = tmp_path / "other-adapter"
    shutil.copytree(tiny.adapter, other)
    config = json.loads((other / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = "HuggingFaceTB/SmolLM2-1.7B-Instruct"
    (other / "adapter_config.json").write_text(json.dumps(config))
    with pytest.raises(UsageError, match="was trained on 'HuggingFaceTB/SmolLM2-1.7B-Instruct'"):
        make_backend("transformers", BackendConfig(model=str(tiny.base), adapter=str(other)))


def test_device_flags_are_checked_on_the_command_line(tiny: TinyModels, tmp_path: Path) -> None:
    import torch
    from instruments_helpers import run_cli

    store = ["--store", str(tmp_path / "runs"), "--quiet"]
    wrong_backend = run_cli("eval", "--backend", "embedded", "--device", "cpu", *store)
    assert wrong_backend.returncode == 2 and "'device' is an option of the transformers backend" in wrong_backend.stderr
    unknown = run_cli("eval", "--backend", "transformers", "--model", str(tiny.base), "--device", "tpu", *store)
    assert unknown.returncode == 2 and "device 'tpu' is not one of" in unknown.stderr
    if not torch.cuda.is_available():
        no_gpu = run_cli("eval", "--backend", "transformers", "--model", str(tiny.base), "--device", "cuda", *store)
        assert no_gpu.returncode == 2 and "torch sees no CUDA GPU here" in no_gpu.stderr
