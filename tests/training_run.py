"""Test helper: run examples/training/train_lora.py (a real LoRA run on SmolLM2, with ForgegateCallback) as a user
would, in a subprocess, and hand back the summary line it prints last; and the suite's one plain run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.battery import bundled_probe_battery_path
from forgegate.battery.build import OLD_PROBE_IDS

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


PLAIN_STEPS = 3
"""The plain run's steps, each a checkpoint, an eval and a probe: three eval points, the fewest ``plan
from-training`` measures a jitter on."""
FIRST_STEPS = PLAIN_STEPS - 1
"""The plain run's first process stops here; a second one resumes from checkpoint-2 to PLAIN_STEPS."""


MECHANICS_PROBE_ITEMS = len(OLD_PROBE_IDS)
"""Items in :func:`write_mechanics_probe`'s battery."""


def write_mechanics_probe(folder: Path) -> Path:
    """The 11-item probe of forgegate before issue 37, cut from the bundled 33-item probe (its lines unchanged).

    The plain run and the watch tests test the probe's mechanics (records, the trainer's log, resume, watching
    from disk), which do not depend on the probe's size; they run this battery (``--probe-battery``,
    ``--battery``, as a user can) so each probe costs a third. The stop rule, which does depend on the size,
    is tested on the bundled probe (test_training_callback.py's loop and healthy runs)."""
    lines = [line for line in bundled_probe_battery_path().read_text(encoding="utf-8").splitlines()
             if line.strip() and json.loads(line)["id"] in OLD_PROBE_IDS]
    assert len(lines) == MECHANICS_PROBE_ITEMS, "the bundled probe lost one of the mechanics probe's items"
    path = folder / "mechanics-probe.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True)
class PlainRun:
    """One output folder, trained to FIRST_STEPS by one process and resumed to PLAIN_STEPS by another."""

    out: Path
    battery: Path
    """The probe battery every probe of the run ran (:func:`write_mechanics_probe`)."""
    first: dict[str, Any]
    """The first process's summary line (steps 0 to FIRST_STEPS probed), its stderr under "stderr"."""
    resumed: dict[str, Any]
    """The resumed process's summary line (only checkpoint-PLAIN_STEPS probed)."""


def plain_run(out: Path) -> PlainRun:
    """The plain run (A Study in Scarlet pairs, a checkpoint every step), trained once for the session
    (tests/conftest.py): the callback tests, the resume test and the watch tests read it. A probe of
    SmolLM2 costs about 20 s of CPU, so one run serves them all instead of each training its own."""
    out.parent.mkdir(parents=True, exist_ok=True)
    battery = write_mechanics_probe(out.parent)
    probe = ("--probe-battery", str(battery))
    first = run_training(out, "--max-steps", str(FIRST_STEPS), "--save-steps", "1", *probe)
    resumed = run_training(out, "--max-steps", str(PLAIN_STEPS), "--save-steps", "1", "--resume", *probe)
    return PlainRun(out, battery, first, resumed)
