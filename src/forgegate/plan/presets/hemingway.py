"""The 'hemingway' preset: the lv-hemingway v2 gate (three arms over one base, voice / copied / damage)."""

TEXT = '''\
# forgegate plan: the lv-hemingway v2 gate (three arms, 60 beats, 4 seeds).
# Write every value BEFORE the first generation, then `forgegate plan lock plan.toml`.
# After the first generation nothing here may change: the run is wrong and gets
# re-run; the rule does not move. Paths are relative to this file's folder.

name = "lv-hemingway-v2"
# The author whose voice is measured. Required by the voice instrument, with no
# default: it is printed on every output, so a wrong default would be a wrong label.
author = "Hemingway"
description = "Qwen3-4B-Instruct + instruction-pair LoRA on the renamed Hemingway corpus, 3 epochs"

# Every arm x fixture item x seed is one generation; each seed is passed to the backend.
seeds = [1234, 5678, 9012, 3456]

[sampling]
temperature = 0.7      # 0 means greedy (then the seeds cannot differ)
top_p = 0.95
max_tokens = 300       # hard cap, enforced on the client side; hitting it counts as ran-on
chat = true            # send through the model's chat template
# system = "..."       # optional system prompt

[fixture]
# JSONL, one beat a line: {"id": "...", "prompt": "..."}. Build it reproducibly with
#   forgegate fixture build --pairs pairs-val.jsonl --split val --n 60 --band 90-150 --seed 4919
path = "fixture.jsonl"

# One [[arms]] table per arm. backend: a registered backend (transformers, ollama,
# openai, embedded). model: a model folder / id (never downloaded) or a server's model
# name. adapter: an optional PEFT LoRA folder on the same base. role: control or candidate.
[[arms]]
name = "base-unadapted"
backend = "transformers"
model = "~/carriers/Qwen3-4B-Instruct"
role = "control"       # negative control for memorisation and the voice baseline

[[arms]]
name = "ckpt1750"
backend = "transformers"
model = "~/carriers/Qwen3-4B-Instruct"
adapter = "~/r49-runs/hemingway-4b-pairs-3ep/checkpoint-1750"
role = "candidate"     # epoch 1.973, eval_loss 2.2783: the curve's minimum

[[arms]]
name = "ckpt850"
backend = "transformers"
model = "~/carriers/Qwen3-4B-Instruct"
adapter = "~/r49-runs/hemingway-4b-pairs-3ep/checkpoint-850"
role = "candidate"     # epoch 0.959, eval_loss 2.2823: tied with ckpt1750 within one jitter

# A. VOICE: Burrows's Delta over character bigrams vs a held-out reference of the author.
[instruments.voice]
reference = "reference.txt"   # held-out text of the author (the val split), never trained on
n_features = 300              # the reference's most frequent character bigrams
segment_words = 1000          # words per reference segment (z-scores use the segments' mean and sd)
floor = "pairwise"            # noise floor = max(spread(candidate), spread(control)); all-arms printed too
folds = 5                     # positive control: each held-out reference fold must score below the control arm
# [instruments.voice.contrasts]   # optional negative controls: other authors must score farther
# "other-author" = "contrast.txt"

# B. NOT COPIED: longest verbatim n-gram of each generation against the training corpus.
[instruments.memorization]
corpus = ["corpus/renamed-1.txt"]   # the renamed copies the adapter was trained on
n = 8                         # words; a match of n or more words is a hit
control_seed = 4919           # picks the corpus passages of the positive control (must saturate)
passages = 20                 # how many corpus passages the positive control checks
hit_rate_margin = 0.0         # candidate hit rate may exceed the control's by at most this
max_margin = 0                # candidate's longest match (words) may exceed the control's by at most this

# C. NO DAMAGE: ran-on (hit max_tokens) and out-of-band (word count outside the band) rates.
[instruments.damage]
band = [90, 150]              # inclusive word band of a beat
metrics = ["out_of_band", "ran_on"]   # each: candidate not worse than control beyond its own seed spread

# One comparison per candidate, against the control; one primary endpoint each.
[[comparisons]]
control = "base-unadapted"
candidate = "ckpt1750"
primary = "voice.delta_gap"   # delta(control) - delta(candidate) must exceed the pairwise floor

[[comparisons]]
control = "base-unadapted"
candidate = "ckpt850"
primary = "voice.delta_gap"

# Which tied candidate ships: the loss curve cannot separate ckpt850 from ckpt1750, so the
# axes that resolve are read in this order (memorisation identical to the control first,
# then the tighter voice seed spread, by at least min_spread_ratio), and the epoch-1 prior
# decides only a tie they leave. The result's "ships" names the candidate, or none, and why.
# Uncomment once the arms above are final (the prior must be one of the candidates):
# [tiebreak]
# axes = ["memorization", "seed_spread"]
# min_spread_ratio = 2.0
# prior = "ckpt850"

# The beat-contamination audit, on the record before the gate runs: plan lock refuses to
# lock if it found a leak or a control failed, and the lock carries its sha256 and gate.
# Either a `forgegate audit leak --json` result, or its inputs for plan lock to run it:
# [leak_audit]
# result = "leak-audit.json"
# clean_splits = ["val"]          # the fixture's split must be clean; a train leak stays on the record
# source = "corpus-source"        # instead of result: the unrenamed tree,
# renamed = ["corpus-renamed"]    # the renamed copies,
# pairs = ["pairs-train.jsonl", "pairs-val.jsonl"]   # and the built pairs
'''
