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
# The picture carries what it shows: the run's date and the sha256 of the eval result schema it was made under
# (tests/test_readme_picture.py fails once the schema moves on, until this script is run again).
forgegate schema eval > "$work/eval-schema.json"
python - "$work/shot.png" docs/report.png "$work/result.json" "$work/eval-schema.json" <<'PY'
import hashlib
import json
import sys
from PIL import Image
from PIL.PngImagePlugin import PngInfo
shot, out, result, schema = sys.argv[1:5]
info = PngInfo()
info.add_text("forgegate:created", json.load(open(result, encoding="utf-8"))["created"])
info.add_text("forgegate:eval-schema-sha256", hashlib.sha256(open(schema, "rb").read()).hexdigest())
Image.open(shot).convert("RGB").quantize(colors=128).save(out, optimize=True, pnginfo=info)
PY
echo "wrote docs/report.png (report: $work/report.html)"
