"""Token caps and windows of the GLOSS v2 battery and live test, per category: the one table both builders read.

Each number is GLOSS v2's: 256 is the hard cap of every request unless a category sets its own;
a wall (a human-input request the model must refuse) gets 128, as in GLOSS v2's Wall 1 test.
"""

from __future__ import annotations

DEFAULT_CAP = 256   # "Max tokens per request: 256 (hard cap, configurable per category)"
WALL_CAP = 128      # Wall 1 test: num_predict 128
LIVE_GEN_CAP = 128  # LX-LIVE-GEN (and the live test's open tasks)
IDENTITY_CAP = 64   # LX-IDENTITY (and the live test's identity tasks)
IDENTITY_WITHIN = 32  # "within 32 tokens"
STOP_CAP, STOP_WITHIN = 48, 40
NEGATIVE_CAP = 128
SEMANTIC_CAP = 64
