"""ForgegateCallback under DDP: 2 CPU processes on gloo, launched as ``torchrun`` launches them.

Only the main process probes and writes the probe file; its stop decision reaches every process, so all
stop at the same step (no process left waiting at the next gradient all-reduce) and the job ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tiny_models import build_base

from forgegate.training.records import read_probes

pytestmark = pytest.mark.slow

TESTS = Path(__file__).parent
STOP_AT = 4


def test_only_the_main_process_probes_and_every_process_stops_at_its_step(tmp_path: Path) -> None:
    base = tmp_path / "tiny-llama"
    build_base(base)
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent / "src"), str(TESTS)]),
           "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    # as `torchrun --standalone --nproc_per_node 2 ddp_train.py ...` starts it; its own session, so a hang
    # (the failure this guards against: one process stopped, the other waiting) is killed whole
    launcher = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
                                 "2", str(TESTS / "ddp_train.py"), str(out), str(base), str(STOP_AT)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                start_new_session=True)
    try:
        output, _ = launcher.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)
        output, _ = launcher.communicate()
    assert launcher.returncode == 0, output[-4000:]
    ranks = [json.loads((out / f"rank-{r}.json").read_text(encoding="utf-8")) for r in (0, 1)]
    assert [r["world"] for r in ranks] == [2, 2]
    assert [r["step"] for r in ranks] == [STOP_AT, STOP_AT]  # both stopped where the main process decided
    assert ranks[0]["stopped"] == ranks[1]["stopped"] == f"stopped by the test at step {STOP_AT}"
    assert (ranks[0]["probed"], ranks[1]["probed"]) == (3, 0)  # steps 0, 2, 4: the main process alone
    records = read_probes(out).records
    assert [(r.step, r.checkpoint) for r in records] == [(0, None), (2, "checkpoint-2"), (4, "checkpoint-4")]
    assert records[-1].stopped_training == ranks[0]["stopped"]
    assert len((out / "forgegate-probes.jsonl").read_text(encoding="utf-8").splitlines()) == 3  # written once
