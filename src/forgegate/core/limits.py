"""Numeric rules that several layers check: each written once here and imported where it is used.

The bounds on files a user gives (``MAX_USER_FILE_BYTES``, ``MAX_CORPUS_FILE_BYTES``) and on JSON nesting
(``MAX_JSON_DEPTH``) live beside the one file reader, ``forgegate.jsonio``: it sits below ``core`` in the layers, so
it cannot import from here, and importing it here would load pydantic with every flag's default, and
``forgegate --help`` with it.
"""

from __future__ import annotations

CONFIRMATORY_MIN_SAMPLES = 64
"""T_GPT v0.8.1: the support floor k = max(2, ceil(tau * N)) is only meaningful at N >= 64 samples per
task and condition; a confirmatory collection needs at least this many (an exploratory one may have fewer)."""

MAX_TOKENS_LIMIT = 32_768
"""The largest ``max_tokens`` a battery item or a plan may ask for. Gates read short answers (GLOSS
items cap at 256 tokens, plan presets at 300); 32,768 is the context of common local models, so a
larger cap cannot be honoured and is a typo (an extra zero), not a test."""

DEFAULT_TIMEOUT_S = 600.0
"""The whole-request deadline of a server backend: connect to last byte, however the bytes trickle."""
DEFAULT_IDLE_S = 120.0
"""The longest silence on a connection (no byte at all, the wait for the first included) before it is stalled."""
MAX_SERVER_BODY_BYTES = 16 * 1024 * 1024
"""The most bytes forgegate reads of one whole answer from a server (a model list, a non-streamed answer, a
tokenizer's reply): 16 MiB. The largest honest one is a non-streamed answer at ``MAX_TOKENS_LIMIT`` tokens
with one logprob entry each (about 200 bytes a token, 6.5 MiB); a larger body is a server gone wrong, refused
before it is held (a 300 MB model list took 1.1 GB of memory)."""
MAX_STREAM_LINE_BYTES = 8 * 1024 * 1024
"""The longest single line of a streamed answer (one NDJSON object, one SSE line): a line carries one chunk of
the answer, so a line longer than this is a server that never sends its newline, not a chunk."""
MAX_ERROR_BODY_BYTES = 64 * 1024
"""How much of an error answer's body (HTTP 4xx / 5xx) is read: enough for any message; only a snippet is shown."""
WATCH_INTERVAL_S = 30.0
"""How often ``forgegate watch`` looks for new checkpoints: a checkpoint takes far longer to train than
this, and a look is a directory listing."""

SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
"""A seed is stored in the run store (SQLite's INTEGER is 64-bit signed) and sent to servers as int64: a
seed outside this range was an OverflowError at the first store write, after the plan was frozen."""
RNG_SEED_MAX = 2**63 - 1
"""A seed of a numpy Generator (control passages, the bootstrap): 0 to this (numpy refuses negatives)."""
MAX_SEEDS = 10_000
"""The most seeds a plan may list or range over: each is a full generation pass over every arm and
item (T_GPT's confirmatory floor is 64); a billion was a MemoryError at ``plan check``."""
MIN_SEGMENT_WORDS = 50
"""The fewest words a voice reference segment may have: the z-scores take a mean and sd of character-bigram
frequencies over segments, and a one-word segment has no bigram profile (it failed at scoring, exit 70)."""
MAX_COUNT = 1_000_000
"""The bound on any other count a plan sets (passages, features, folds, n-gram length, resamples, words in a
segment or band): far above any real use, so a typo of extra zeros is refused at ``plan check``, not a hang."""
MAX_PASSAGES = 10_000
"""The most corpus passages the memorization control checks (each is a generation-sized comparison)."""
MAX_PLAN_NAME_BYTES = 200
"""A plan's name becomes its run's file name (``plan-<name>.sqlite`` plus sidecars); file systems allow 255
bytes, so a longer name would fail only when the store is created."""
DEFAULT_CONCURRENCY = 4
"""Requests in flight at once in an eval: enough to keep a server busy, few enough for a laptop's."""
DEFAULT_RETRIES = 4
"""Attempts per request (the first counts), the later ones only after a transient error."""
MIN_BOOTSTRAP_RESAMPLES = 100
"""Fewer bootstrap resamples than this give a confidence interval that is mostly noise."""
DEFAULT_BOOTSTRAP_RESAMPLES = 9999


def whole_number_problem(value: object, least: int) -> str | None:
    """Why ``value`` is not a whole number of at least ``least`` (text, a bool or a fraction is not), or None:
    the words after the flag's name, the same from the CLI and the Python API."""
    from forgegate.core.sampling import shown

    if not isinstance(value, int) or isinstance(value, bool):
        return f"takes a whole number, not {shown(value)}"
    if value < least:
        return f"must be at least {least}, not {shown(value)}"
    return None


def bootstrap_problem(seed: object, resamples: object) -> str | None:
    """What is wrong with a paired bootstrap's ``--seed`` and ``--resamples`` (``compare``, CLI and API), or None:
    checked before any run is read, so that numpy never sees them."""
    for flag, problem in (("--seed", whole_number_problem(seed, 0)),
                          ("--resamples", whole_number_problem(resamples, MIN_BOOTSTRAP_RESAMPLES))):
        if problem is not None:
            return f"{flag} {problem}"
    return None
