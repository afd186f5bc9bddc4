"""The baseline of ``bench_hemingway_scale.py``: transformers' own batched ``generate`` on the requests forgegate
stored, in a process of its own (the scale benchmark starts it with ``--baseline-worker JOB``).

Each arm's requests (every k-th when the job's ``share`` is below 1) in left-padded batches of the job's
batch size, the arm's adapter active (``set_adapter``; the base arm with the adapters disabled), sampling as
stored (temperature, top_p, the cap), the batch's first seed set with ``torch.manual_seed``. Tokens count up to
each row's first end-of-sequence token, as forgegate counts them; only the ``generate`` calls are timed.
Writes ``JOB.out``: {"requests", "tokens", "seconds", "tokens_per_s", "per_arm"}.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any


def every_kth(keys: list[str], share: float) -> list[str]:
    """A spread subset: every k-th key (k = round(1 / share)), all of them for share >= 1."""
    step = max(1, round(1 / share)) if share > 0 else len(keys) + 1
    return keys[::step]


def run_baseline(job_path: Path) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from forgegate.backends._decode import encode, eos_ids
    from forgegate.core.records import GenerationRequest

    job = json.loads(job_path.read_text())
    torch.set_num_threads(job["threads"])
    gguf = Path(job["gguf"])
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    model: Any = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32,
                                                      local_files_only=True)
    names = list(job["adapters"])
    model = PeftModel.from_pretrained(model, job["adapters"][names[0]], adapter_name=names[0], is_trainable=False)
    for name in names[1:]:
        model.load_adapter(job["adapters"][name], adapter_name=name, is_trainable=False)
    model.eval()
    eos, pad = eos_ids(model, tokenizer), tokenizer.pad_token_id
    connection = sqlite3.connect(f"file:{job['store']}?mode=ro", uri=True)
    rows = connection.execute("SELECT arm, request_key, request_json FROM responses ORDER BY request_key").fetchall()
    connection.close()
    by_arm: dict[str, list[GenerationRequest]] = {}
    for arm in sorted({r[0] for r in rows}):
        keys = every_kth([r[1] for r in rows if r[0] == arm], job["share"])
        wanted = set(keys)
        by_arm[arm] = [GenerationRequest.model_validate_json(r[2]) for r in rows if r[0] == arm and r[1] in wanted]
    with torch.inference_mode():  # warm-up, untimed
        model(input_ids=torch.tensor([[0]]))
    total_tokens, total_s, per_arm = 0, 0.0, {}
    for arm, requests in by_arm.items():
        tokens, seconds = 0, 0.0
        for start in range(0, len(requests), job["batch"]):
            chunk = requests[start:start + job["batch"]]
            ids = [encode(tokenizer, r) for r in chunk]
            width = max(map(len, ids))
            input_ids = torch.tensor([[pad] * (width - len(i)) + i for i in ids])
            mask = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in ids])
            torch.manual_seed(chunk[0].seed or 0)
            began = time.perf_counter()
            with torch.inference_mode():
                if arm in job["adapters"]:
                    model.set_adapter(arm)
                    out = model.generate(input_ids=input_ids, attention_mask=mask, do_sample=True,
                                         temperature=chunk[0].temperature, top_p=chunk[0].top_p,
                                         max_new_tokens=chunk[0].max_tokens, pad_token_id=pad)
                else:
                    with model.disable_adapter():
                        out = model.generate(input_ids=input_ids, attention_mask=mask, do_sample=True,
                                             temperature=chunk[0].temperature, top_p=chunk[0].top_p,
                                             max_new_tokens=chunk[0].max_tokens, pad_token_id=pad)
            seconds += time.perf_counter() - began
            for row in out[:, width:].tolist():
                tokens += next((n for n, t in enumerate(row) if t in eos), len(row))
        per_arm[arm] = {"requests": len(requests), "tokens": tokens, "seconds": round(seconds, 1),
                        "tokens_per_s": round(tokens / seconds, 2) if seconds else 0.0}
        print(f"generate {arm}: {per_arm[arm]}", flush=True)
        total_tokens, total_s = total_tokens + tokens, total_s + seconds
    result = {"requests": sum(len(r) for r in by_arm.values()), "tokens": total_tokens, "seconds": round(total_s, 1),
              "tokens_per_s": round(total_tokens / total_s, 2) if total_s else 0.0, "per_arm": per_arm}
    Path(f"{job_path}.out").write_text(json.dumps(result))
