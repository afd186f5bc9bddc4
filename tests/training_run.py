"""Test helper: run examples/training/train_lora.py (a real LoRA run on SmolLM2, with ForgegateCallback) as a user
would, in a subprocess, and hand back the summary line it prints last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "training" / "train_lora.py"


def run_training(out: Path, *args: str, timeout: float = 1500) -> dict[str, Any]:
    """Train into ``out``; the script's final JSON line (steps, stop reason, one row per probe)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, str(SCRIPT), str(out), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert proc.returncode == 0, f"training failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    summary: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    summary["stderr"] = proc.stderr
    return summary
