"""Throughput of the transformers backend on SmolLM2-135M-Instruct (the packaged GGUF), measured in one run.

Three ways to answer the same requests (greedy, the same prompts, the same new-token cap):

- forgegate: the batched backend, every request submitted at once, ``batch_size`` rows per batch;
- generate: transformers' own ``generate`` over left-padded batches of the same size;
- one-at-a-time: the backend's loop before batching (one request at a time, the whole generated
  sequence decoded again at every step), reproduced here as it was.

    python benchmarks/bench_transformers.py [--requests 64] [--tokens 64] [--batch 16] [--rounds 3]

The three run in turn, ``--rounds`` times (a busy shared machine slows whichever runs at a bad moment);
each one's best round is its figure. Prints tokens/s and the ratios forgegate / generate and
forgegate / one-at-a-time.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from forgegate.backends import BackendConfig, make_backend
from forgegate.backends._decode import encode, eos_ids, forward_keywords
from forgegate.backends.embedded import bundled_gguf
from forgegate.backends.transformers_backend import TransformersBackend
from forgegate.core.records import GenerationRequest

TOPICS = ("the sea", "a city at night", "an old dog", "rain", "a train", "bread", "winter", "a letter")


def requests(count: int, tokens: int) -> list[GenerationRequest]:
    return [GenerationRequest(prompt=f"Write about {TOPICS[i % len(TOPICS)]} (note {i}).", max_tokens=tokens,
                              seed=i, temperature=0.0) for i in range(count)]


def run_forgegate(backend: TransformersBackend, batch: list[GenerationRequest]) -> int:
    async def all_at_once() -> int:
        done = await asyncio.gather(*(backend.generate(r) for r in batch))
        return sum(c.tokens for c in done)

    return asyncio.run(all_at_once())


def run_generate(model: Any, tokenizer: Any, batch: list[GenerationRequest], size: int) -> int:
    """transformers' generate, left-padded batches of ``size``; tokens counted up to each row's end."""
    import torch

    eos = eos_ids(model, tokenizer)
    tokenizer.padding_side = "left"
    total = 0
    for start in range(0, len(batch), size):
        chunk = batch[start:start + size]
        ids = [encode(tokenizer, r) for r in chunk]
        width = max(map(len, ids))
        pad = tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(i)) + i for i in ids])
        mask = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in ids])
        with torch.inference_mode():
            out = model.generate(input_ids=input_ids, attention_mask=mask, max_new_tokens=chunk[0].max_tokens,
                                 do_sample=False, pad_token_id=pad)
        for row in out[:, width:].tolist():
            total += next((n for n, t in enumerate(row) if t in eos), len(row))
    return total


def run_one_at_a_time(model: Any, tokenizer: Any, batch: list[GenerationRequest]) -> int:
    """The loop before batching: one request at a time, re-decoding the whole generated text each step."""
    import torch

    eos = eos_ids(model, tokenizer)
    cache_kw, _ = forward_keywords(model)
    total = 0
    for request in batch:
        input_ids = torch.tensor([encode(tokenizer, request)])
        cache: Any = None
        generated: list[int] = []
        with torch.inference_mode():
            for _ in range(request.max_tokens):
                out = model(input_ids=input_ids, use_cache=True, **{cache_kw: cache})
                cache = out["cache"] if "cache" in out else out.get("past_key_values")
                token = int(torch.argmax(out.logits[0, -1].float()).item())
                if token in eos:
                    break
                generated.append(token)
                tokenizer.decode(generated, skip_special_tokens=True)  # the whole sequence, every step
                input_ids = torch.tensor([[token]])
        total += len(generated)
    return total


def timed(label: str, run: Any) -> float:
    started = time.perf_counter()
    tokens = run()
    seconds = time.perf_counter() - started
    rate = tokens / seconds
    print(f"  {label:<16} {tokens:6d} tokens in {seconds:7.1f} s = {rate:7.1f} tokens/s", flush=True)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    backend = make_backend("transformers", BackendConfig(model=str(bundled_gguf()), device="cpu",
                                                         batch_size=args.batch, n_threads=args.threads))
    assert isinstance(backend, TransformersBackend) and backend._base is not None
    model, tokenizer = backend._base.model, backend._base.tokenizer
    batch = requests(args.requests, args.tokens)
    print(f"SmolLM2-135M-Instruct, cpu float32, {args.requests} requests x {args.tokens} new tokens, "
          f"batch {args.batch}")
    asyncio.run(backend.generate(batch[0]))  # warm-up (and the digest), not timed
    best = {"forgegate": 0.0, "generate": 0.0, "one-at-a-time": 0.0}
    for round_number in range(1, args.rounds + 1):
        print(f"round {round_number}")
        best["forgegate"] = max(best["forgegate"], timed("forgegate", lambda: run_forgegate(backend, batch)))
        best["generate"] = max(best["generate"], timed("generate", lambda: run_generate(model, tokenizer, batch,
                                                                                         args.batch)))
        best["one-at-a-time"] = max(best["one-at-a-time"], timed("one-at-a-time", lambda: run_one_at_a_time(
            model, tokenizer, batch)))
    ours, theirs, before = best["forgegate"], best["generate"], best["one-at-a-time"]
    print("best of each: " + ", ".join(f"{k} {v:.1f} tokens/s" for k, v in best.items()))
    print(f"forgegate / generate      = {ours / theirs:.2f}x")
    print(f"forgegate / one-at-a-time = {ours / before:.2f}x")
    asyncio.run(backend.aclose())


if __name__ == "__main__":
    main()
