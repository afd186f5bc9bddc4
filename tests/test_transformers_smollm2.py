"""The transformers backend on the REAL SmolLM2-135M-Instruct (the packaged GGUF, loaded through transformers):
batching does not change a request's text, and a LoRA adapter trained here with PEFT runs as an arm beside the base.

One base is loaded for the module (the GGUF load is the slow part) and shared, as arms share it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from slow import starts_something
from smol_lora import train_lora

from forgegate.backends import BackendConfig, make_backend
from forgegate.backends._decode import encode
from forgegate.backends.embedded import bundled_gguf
from forgegate.backends.transformers_backend import TransformersBackend
from forgegate.core.records import Completion, GenerationRequest
from forgegate.pipeline.plan.generate import generate_plan
from forgegate.plan import lock_plan
from tests.plan_helpers import damage_plan_text

pytestmark = pytest.mark.slow
pytest.importorskip("peft")
pytest.importorskip("gguf")

PROMPTS = ("Name a colour.", "Write one sentence about the sea.", "What is 2 + 3?", "Say hello to Anna.")


def _backend(adapter: Path | None = None, **extra: object) -> TransformersBackend:
    config = BackendConfig(model=str(bundled_gguf()), adapter=str(adapter) if adapter else None, device="cpu",
                           **extra)  # type: ignore[arg-type]
    backend = make_backend("transformers", config)
    assert isinstance(backend, TransformersBackend)
    return backend


@pytest.fixture(scope="module")
@starts_something
def smol(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TransformersBackend, Path]]:
    """The base arm (held open: the loaded base stays shared) and a LoRA adapter trained on it."""
    base = _backend()
    assert base._base is not None and base.device == "cpu"
    shared = base._base
    adapter = train_lora(shared.model, shared.tokenizer, tmp_path_factory.mktemp("lora") / "adapter", steps=4,
                         lr=1e-2)
    yield base, adapter
    asyncio.run(base.aclose())


def _requests() -> list[GenerationRequest]:
    """Greedy and seeded sampled, with caps that differ so that rows leave a batch at different steps."""
    greedy = [GenerationRequest(prompt=p, max_tokens=12 - 2 * i, seed=7, temperature=0.0)
              for i, p in enumerate(PROMPTS)]
    sampled = [GenerationRequest(prompt=p, max_tokens=6 + 2 * i, seed=100 + i, temperature=0.9, top_p=0.9)
               for i, p in enumerate(PROMPTS)]
    return greedy + sampled


def _same(a: Completion, b: Completion) -> tuple[str, int, str]:
    assert (a.text, a.tokens, a.finish, a.token_texts) == (b.text, b.tokens, b.finish, b.token_texts)
    return a.text, a.tokens, a.finish


def test_a_request_gives_the_same_text_alone_and_in_a_batch_of_8_with_another_arm(
        smol: tuple[TransformersBackend, Path]) -> None:
    base, adapter_dir = smol

    async def scenario() -> tuple[list[Completion], list[Completion], list[int], list[Completion], int]:
        adapter = _backend(adapter_dir)
        arms = [base if i % 2 == 0 else adapter for i in range(8)]  # base and adapter rows interleaved
        requests = _requests()
        alone = [await arm.generate(r) for arm, r in zip(arms, requests, strict=True)]  # one at a time
        batcher = base.batcher
        before = len(batcher.batches)
        together = await asyncio.gather(*(arm.generate(r) for arm, r in zip(arms, requests, strict=True)))
        sizes = batcher.batches[before:]
        joined_before, batcher.batch_size = batcher.joined, 3  # now rows join as others leave
        try:
            joining = await asyncio.gather(*(arm.generate(r) for arm, r in zip(arms, requests, strict=True)))
        finally:
            batcher.batch_size = 8
        await adapter.aclose()
        return alone, list(together), sizes, list(joining), batcher.joined - joined_before

    base.batcher.widest = 0
    alone, together, sizes, joining, joined = asyncio.run(scenario())
    assert sizes == [8]  # the eight really shared one batch
    assert joined >= 4  # and with room for 3, the others joined running batches
    assert base._base is not None
    prompt = max(len(encode(base._base.tokenizer, r)) for r in _requests())
    cap = max(r.max_tokens for r in _requests())
    # the columns no row attends to are dropped as rows leave: a step never attends over more than the longest
    # prompt plus the longest answer (a row's own columns), not the history of the whole batch
    assert 0 < base.batcher.widest <= prompt + cap + 1
    for one, batched, joined_row, request in zip(alone, together, joining, _requests(), strict=True):
        _same(one, batched)
        _same(one, joined_row)
        assert 0 < one.tokens <= request.max_tokens and one.token_source == "tokenizer"
        assert "".join(one.token_texts or ()) == one.text
    assert len({c.text for c in alone}) > 4  # the requests differ: the test compares real answers


def test_a_trained_lora_runs_as_an_arm_beside_the_base_and_matches_peft(smol: tuple[TransformersBackend, Path]) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    base, adapter_dir = smol
    config = json.loads((adapter_dir / "adapter_config.json").read_text())
    assert config["r"] == 8 and (adapter_dir / "adapter_model.safetensors").is_file()
    request = GenerationRequest(prompt=PROMPTS[1], max_tokens=16, seed=1, temperature=0.0)

    adapter = _backend(adapter_dir)  # open while PEFT is compared below (its last arm's close unloads it)

    async def scenario() -> tuple[Completion, Completion]:
        return await base.generate(request), await adapter.generate(request)

    plain, adapted = asyncio.run(scenario())
    assert plain.text != adapted.text  # the adapter changes the model
    # PEFT's own generate, on a model loaded apart with the trained adapter, gives the backend's text: the adapter
    # forgegate ran is this one, applied as PEFT applies it (forgegate applies it per row, _row_lora.py).
    shared = base._base
    assert shared is not None
    assert shared.row_lora is not None and isinstance(shared.model, PeftModel)
    tokenizer = shared.tokenizer
    gguf = bundled_gguf()
    plain_model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32,
                                                       local_files_only=True)
    peft_model = PeftModel.from_pretrained(plain_model, str(adapter_dir), is_trainable=False).eval()
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": request.prompt}], tokenize=False,
                                           add_generation_prompt=True)
    ids = tokenizer(prompt, add_special_tokens=False, return_tensors="pt")
    with torch.inference_mode():
        out = peft_model.generate(**ids, max_new_tokens=16, do_sample=False)
    expected = tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
    asyncio.run(adapter.aclose())
    assert adapted.text == expected
    assert shared.adapters == {}  # the adapter's last arm closed; the base, still open, no longer holds it
    assert shared.row_lora is None  # and runs as the plain model again


def test_a_plan_runs_the_gguf_base_and_its_adapter_as_two_arms(smol: tuple[TransformersBackend, Path],
                                                               tmp_path: Path) -> None:
    _, adapter_dir = smol
    (tmp_path / "fixture.jsonl").write_text("".join(json.dumps({"id": f"p{i}", "prompt": p}) + "\n"
                                                    for i, p in enumerate(PROMPTS[:2])))
    arms = "".join(f"""
[[arms]]
name = "{name}"
backend = "transformers"
model = "{bundled_gguf()}"
device = "cpu"
role = "{role}"
{extra}
""" for name, role, extra in (("base", "control", ""), ("ckpt", "candidate", f'adapter = "{adapter_dir}"')))
    plan = tmp_path / "plan.toml"
    plan.write_text(damage_plan_text("smol-lora", arms, control="base", candidate="ckpt"))
    lock_plan(plan)
    result = generate_plan(plan, store_dir=tmp_path / "runs", concurrency=8, quiet=True)
    assert not result.errors and len(result.generations) == 8
    texts = {(g.arm, g.item, g.seed): g.text for g in result.generations}
    assert any(texts[("base", item, 1)] != texts[("ckpt", item, 1)] for item in ("p0", "p1"))
