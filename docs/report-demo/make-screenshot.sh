#!/usr/bin/env bash
# Regenerates docs/report.png: a real run of the embedded SmolLM2-135M model on the six-item demo
# battery (a pass, a wrong answer, two loop triggers, a wall item), its HTML report, and a headless
# Chromium screenshot of it (Debian: apt-get install -y chromium). Run from the repository root.
set -euo pipefail
work=$(mktemp -d)
forgegate eval --battery docs/report-demo/battery.jsonl --gate-config docs/report-demo/gate.toml \
  --store "$work/runs" --json "$work/result.json" --quiet || true   # exit 1: the demo model FAILs
forgegate report "$work/result.json" --html "$work/report.html" --markdown "$work/report.md" || true
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" \
  --screenshot="$work/shot.png" --window-size=1200,1900 "file://$work/report.html"
python - "$work/shot.png" docs/report.png <<'PY'
import sys
from PIL import Image
Image.open(sys.argv[1]).convert("RGB").quantize(colors=128).save(sys.argv[2], optimize=True)
PY
echo "wrote docs/report.png (report: $work/report.html)"
