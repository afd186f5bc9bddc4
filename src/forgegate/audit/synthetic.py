"""Seeded synthetic corpora for the audits' controls: clean by construction."""

from __future__ import annotations

import string

import numpy as np

from forgegate.audit.corpus import CorpusRow

_LETTERS = list(string.ascii_lowercase)


def nonce_word(rng: np.random.Generator, length: int = 7) -> str:
    """A made-up word in which no letter repeats either of the two before it (so no period-1/2 runs)."""
    letters: list[str] = []
    while len(letters) < length:
        letter = str(rng.choice(_LETTERS))
        if letter not in letters[-2:]:
            letters.append(letter)
    return "".join(letters)


def nonce_vocabulary(rng: np.random.Generator, size: int, avoid: set[str] | None = None) -> list[str]:
    """``size`` distinct nonce words, none of them in ``avoid`` (compared casefolded)."""
    avoid = {w.casefold() for w in (avoid or set())}
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        word = nonce_word(rng)
        if word not in seen and word not in avoid:
            seen.add(word)
            words.append(word)
    return words


def clean_corpus(rng: np.random.Generator, rows: int = 40, avoid: set[str] | None = None) -> list[CorpusRow]:
    """Rows with distinct prompts, no word repeated inside a text, and prompt and completion
    drawn from disjoint vocabularies: no loop, echo, duplicate or overlap can occur."""
    vocab = nonce_vocabulary(rng, 400, avoid)
    prompt_vocab, completion_vocab = vocab[:200], vocab[200:]
    corpus: list[CorpusRow] = []
    seen: set[str] = set()
    while len(corpus) < rows:
        prompt = " ".join(str(w) for w in rng.choice(prompt_vocab, size=6, replace=False)) + "?"
        if prompt in seen:
            continue
        seen.add(prompt)
        words = [str(w) for w in rng.choice(completion_vocab, size=14, replace=False)]
        completion = (" ".join(words[:7]).capitalize() + ". " + " ".join(words[7:]).capitalize() + ".")
        corpus.append(CorpusRow(len(corpus) + 1, prompt, completion, chat=bool(len(corpus) % 2)))
    return corpus
