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
# name. adapter: an optional PEFT LoRA folder on the same base. role: the spec's roles,
# control, ship_candidate (the checkpoint the plan means to ship) or tied_candidate (one the
# loss curve cannot separate from it). The plan's word and exit code are those of the arm
# that ships; a failing arm that does not ship never sets them.
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
role = "ship_candidate"   # epoch 1.973, eval_loss 2.2783: the curve's minimum

[[arms]]
name = "ckpt850"
backend = "transformers"
model = "~/carriers/Qwen3-4B-Instruct"
adapter = "~/r49-runs/hemingway-4b-pairs-3ep/checkpoint-850"
role = "tied_candidate"   # epoch 0.959, eval_loss 2.2823: tied with ckpt1750 within one jitter

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

# Which candidate ships. Only a candidate whose comparison PASSes can ship; the ship candidate
# ships unless the axes below resolve for the tied candidate; the tied candidate ships when it
# passes and the ship candidate does not. Two passing candidates the axes leave level are HOLD
# (the operator's call), never PASS. The axes are read in this order: memorisation closest to
# the control's (identical is best), then the smaller seed variance of the voice Delta, which
# resolves only at min_variance_ratio times or more (the spec gives no number: this plan states
# 2.0; lv-bronte's tiebreak resolved at 2.7x). The epoch-1 prior is the hypothesis under test:
# the result says whether the axes bore it out, and it never decides.
[tiebreak]
axes = ["memorization", "seed_spread"]
min_variance_ratio = 2.0
prior = "ckpt850"

# The beat-contamination audit, on the record before the gate runs (§ 6: the clean val split
# "is why the gate runs at all"). plan lock runs it with its three controls and refuses to lock
# if the fixture's split is not clean or a control failed; the lock carries its sha256 and gate.
# The audited pairs must include the very file the fixture was built from (same sha256, as
# forgegate fixture build recorded it beside fixture.jsonl). A train leak stays on the record.
[leak_audit]
source = "corpus-source"            # the unrenamed source tree (folder of .txt)
renamed = ["corpus-renamed"]        # the renamed copies
pairs = ["pairs-train.jsonl", "pairs-val.jsonl"]   # every built pair, the fixture's file among them
clean_splits = ["val"]              # the fixture's split must be clean
# Or, instead of source/renamed/pairs, a `forgegate audit leak --json` result:
# result = "leak-audit.json"
'''
