"""The 'gloss' preset: the GLOSS v2 battery gate on one arm (all categories must pass)."""

TEXT = '''\
# forgegate plan: the GLOSS eval v2 battery gate on one model.
# Lock it before the first generation: `forgegate plan lock plan.toml`.
# Paths are relative to this file's folder.

name = "gloss-v10"
description = "GLOSS v2 battery: every category >= 0.50, sigma_total >= 0.40, 100% wall rule"

# One seed: the battery is scored once per item.
seeds = [0]

[sampling]
# No temperature or top_p: GLOSS v2 sends {"num_predict": N} and nothing else, so the model's own served
# sampling applies (a seed is still sent and recorded). Setting either is a departure from the spec's procedure.
max_tokens = 256       # GLOSS v2's hard cap; an item's own max_tokens is lower where it says so
chat = true

[fixture]
# "gloss-v2" is forgegate's bundled battery; or a path to your own battery JSONL.
battery = "gloss-v2"

[[arms]]
name = "gloss-v10"
backend = "ollama"     # the model on a local Ollama (OLLAMA_HOST is honoured)
model = "gloss:v10"
role = "candidate"
# base_urls = ["http://127.0.0.1:11434"]   # several URLs spread the load over replicas

[instruments.gloss]
# "gloss-v2" is the bundled gate config (category weights, floor 0.50, sigma_total 0.40,
# wall rule); or a path to a copy you edited. It is checked against the battery.
gate_config = "gloss-v2"
'''
