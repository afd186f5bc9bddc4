"""The 'tgpt' preset: T_GPT v0.8.1 E2_RECOVERY (conditions A, B, R as arms; REC_GAIN primary)."""

TEXT = '''\
# forgegate plan: T_GPT v0.8.1 semantic support and recoverability (E2_RECOVERY).
# Conditions are arms: A the pre-registered wider/reference condition, B the contracted
# candidate, R = B under generic recovery probes that never name a missing cluster.
# Lock it before the first confirmatory sample: `forgegate plan lock plan.toml`.

name = "tgpt-e2-recovery"
description = "REC_GAIN(A,B,R) with ES_LOSS, D_sem, H_sem, P as secondary endpoints (Holm)"

# N samples per task and condition = the number of seeds (confirmatory use needs N >= 64).
seeds = { first = 1, count = 64 }

[sampling]
temperature = 1.0      # sample the model's own distribution
top_p = 1.0
max_tokens = 128

[fixture]
# The tasks: JSONL, one task a line: {"id": "...", "prompt": "..."}
path = "tasks.jsonl"

[[arms]]
name = "A"
backend = "transformers"
model = "models/base"                  # the wider/reference stage
role = "control"

[[arms]]
name = "B"
backend = "transformers"
model = "models/base"
adapter = "models/post-trained-adapter"   # the contracted candidate stage
role = "candidate"

[[arms]]
name = "R"
backend = "transformers"
model = "models/base"
adapter = "models/post-trained-adapter"   # the same model as B ...
role = "candidate"
# ... under a pre-registered generic recovery probe; '{prompt}' is the task.
prompt_template = "{prompt}\\n\\nConsider the full range of reasonable answers before you answer."

[instruments.semantic]
reference = "A"
contracted = "B"
recovery = "R"
experiment = "E2_RECOVERY"
confirmatory = true           # false = exploratory (development data; N < 64 allowed). True is refused at plan
                              # check / lock unless: the codebook was frozen under an entailment judge (nli or
                              # llm), the values below are T_GPT's or stricter, the validation sheet is filled,
                              # Q_task is declared (Q_fact on factual_tasks), R runs B's model, and the study
                              # author annotates nothing
study_author = "..."          # who designed the study: may not be a primary relevance annotator
factual_tasks = []            # the tasks with externally checkable factual claims; Q_fact is required on each
codebook = "codebook.json"    # frozen before confirmation: forgegate semantic freeze
relevance = "relevance.adjudicated.jsonl" # adjudicated R(c) record: forgegate semantic sheets, then semantic relevance
tau_support = 0.02            # k_X = max(minimum_count, ceil(tau_support * N_X))
minimum_count = 2
sensitivity = [0.01, 0.03, 0.05]
bootstrap_resamples = 10000   # percentile 95% CIs
bootstrap_seed = 20260911     # explicit: the CIs are reproducible

# The codebook's blinded human validation (development phase): a confirmatory plan locks only once the
# sheet `forgegate semantic cluster` wrote is filled (same_meaning 1/0); it is locked with the plan.
[instruments.semantic.validation]
sheet = "validation_sheet.csv"
key = "validation_key.csv"
min_agreement = 0.8           # below it the semantic verdict is INVALID

# Q_task (and Q_fact, on the factual_tasks): a scorer per task, declared before confirmation
# (battery-rule, exact, numeric or human-review; see docs/guides/tgpt.md). Required for a confirmatory plan.
[instruments.semantic.q_task]
margin = 0.1                  # a stage change (A -> B) losing more than this is flagged
[instruments.semantic.q_task.tasks."<task id>"]
scorer = "human-review"
sheet = "q_task_sheet.csv"     # the blinded quality sheet a reviewer fills

# One primary endpoint per experiment; everything else is exploratory / Holm-adjusted.
[[comparisons]]
control = "A"
candidate = "B"
primary = "semantic.REC_GAIN"
'''
