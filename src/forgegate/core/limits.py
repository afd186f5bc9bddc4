"""Numeric rules that several layers check: each written once here and imported where it is used."""

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
WATCH_INTERVAL_S = 30.0
"""How often ``forgegate watch`` looks for new checkpoints: a checkpoint takes far longer to train than
this, and a look is a directory listing."""
