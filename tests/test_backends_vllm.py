"""``backend = "vllm"``: the exact ``vllm serve`` argv for each option, the replicas' GPU groups, and the
managed lifecycle end to end against a stand-in ``vllm`` command (vLLM itself needs a GPU)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from eval_helpers import run_cli_in_process

from forgegate.backends import BackendConfig, make_backend
from forgegate.backends.vllm import rank_to_reserve, replica_envs, vllm_argv
from forgegate.errors import UsageError
from forgegate.pipeline.plan.generate import generate_plan
from forgegate.plan import lock_plan
from tests.plan_helpers import damage_plan_text

HEAD = ("vllm", "serve", "/m/base", "--host", "127.0.0.1", "--port", "{port}", "--seed", "0",
        "--generation-config", "vllm")


@pytest.mark.parametrize(("options", "tail"), [
    ({}, ()),
    ({"server_seed": 1234}, None),
    ({"max_model_len": 4096}, ("--max-model-len", "4096")),
    ({"tensor_parallel_size": 4}, ("--tensor-parallel-size", "4")),
    ({"pipeline_parallel_size": 2}, ("--pipeline-parallel-size", "2")),
    ({"tensor_parallel_size": 8, "pipeline_parallel_size": 2, "distributed_executor_backend": "ray"},
     ("--tensor-parallel-size", "8", "--pipeline-parallel-size", "2", "--distributed-executor-backend", "ray")),
    ({"lora_modules": (("ckpt1750", "/a/1750"), ("ckpt850", "/a/850"))},
     ("--enable-lora", "--lora-modules", "ckpt1750=/a/1750", "ckpt850=/a/850", "--max-loras", "2",
      "--max-lora-rank", "16")),
    ({"adapter": "/a/one"}, ("--enable-lora", "--lora-modules", "adapter=/a/one", "--max-loras", "1",
                             "--max-lora-rank", "16")),
], ids=["plain", "seed", "max-model-len", "tp", "pp", "multi-node-ray", "plan-adapters", "cli-adapter"])
def test_vllm_argv_per_option(options: dict[str, object], tail: tuple[str, ...] | None) -> None:
    argv = vllm_argv(BackendConfig(model="/m/base", **options))  # type: ignore[arg-type]
    if tail is None:  # the seed is in the head
        assert argv == (*HEAD[:8], "1234", *HEAD[9:])
    else:
        assert argv == HEAD + tail


def test_lora_rank_reserved_fits_every_adapter() -> None:
    assert rank_to_reserve([]) == 8 and rank_to_reserve([8, 16]) == 16 and rank_to_reserve([17]) == 32
    with pytest.raises(UsageError, match="rank 1024"):
        rank_to_reserve([1024])


def test_replicas_take_their_own_gpu_groups() -> None:
    two_by_two = BackendConfig(model="m", replicas=2, tensor_parallel_size=2)
    assert replica_envs(two_by_two, None) == [{"CUDA_VISIBLE_DEVICES": "0,1"}, {"CUDA_VISIBLE_DEVICES": "2,3"}]
    assert replica_envs(two_by_two, "4,5,6,7") == [{"CUDA_VISIBLE_DEVICES": "4,5"}, {"CUDA_VISIBLE_DEVICES": "6,7"}]
    assert replica_envs(BackendConfig(model="m"), "3") == [{}]  # one replica: the environment as it is
    ray = BackendConfig(model="m", replicas=2, distributed_executor_backend="ray")
    assert replica_envs(ray, None) == [{}, {}]  # Ray places the workers
    with pytest.raises(UsageError, match="need 4 GPUs"):
        replica_envs(two_by_two, "0,1")


def _no_vllm_path(tmp_path: Path) -> str:
    """A PATH holding only this Python (and no `vllm`)."""
    bin_dir = tmp_path / "bin-without-vllm"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    return str(bin_dir)


def test_vllm_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if (Path(sys.executable).parent / "vllm").exists():
        pytest.skip("vLLM is installed beside this Python")
    monkeypatch.setenv("PATH", _no_vllm_path(tmp_path))
    with pytest.raises(UsageError, match="vLLM is not installed here"):
        make_backend("vllm", BackendConfig(model="/m/base"))
    plan = _three_arm_plan(tmp_path / "plan")
    proc = run_cli_in_process("run", str(plan), "--store", str(tmp_path / "runs"), "--quiet")
    assert proc.returncode == 2 and "vLLM is not installed here" in proc.stderr, proc.stderr


def _fake_vllm_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "vllm"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).parent / 'fake_vllm.py'} \"$@\"\n")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "fake_vllm.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_VLLM_LOG", str(log))
    return log


def _three_arm_plan(folder: Path, *, base_of_adapters: str | None = None, extra: str = "") -> Path:
    """The hemingway shape: a base arm and two checkpoints (adapters) over one base, all on vllm."""
    base = folder / "base-model"
    base.mkdir(parents=True)
    (base / "config.json").write_text("{}")
    for name in ("ckpt1750", "ckpt850"):
        (folder / name).mkdir()
        (folder / name / "adapter_config.json").write_text(json.dumps(
            {"r": 8, "base_model_name_or_path": base_of_adapters or str(base)}))
    (folder / "fixture.jsonl").write_text("".join(json.dumps({"id": f"b{i}", "prompt": f"Beat {i}."}) + "\n"
                                                  for i in range(3)))
    arms = "".join(f'''
[[arms]]
name = "{name}"
backend = "vllm"
model = "{base}"
role = "{role}"
{f'adapter = "{name}"' if name != "base-unadapted" else ""}
{extra}
''' for name, role in (("base-unadapted", "control"), ("ckpt1750", "candidate"), ("ckpt850", "candidate")))
    plan = folder / "plan.toml"
    plan.write_text(damage_plan_text("vllm-three-arms", arms, control="base-unadapted", candidate="ckpt1750",
                                     temperature=0.7))
    lock_plan(plan)
    return plan


def _events(log: Path, kind: str) -> list[dict[str, object]]:
    return [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == kind]


def test_three_arms_share_one_server_that_loads_every_adapter(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    log = _fake_vllm_on_path(tmp_path, monkeypatch)
    plan = _three_arm_plan(tmp_path / "plan")
    generations = generate_plan(plan, store_dir=tmp_path / "runs", concurrency=4, quiet=True)
    starts = _events(log, "start")
    assert len(starts) == 1  # one server for the three arms
    argv = starts[0]["argv"]
    assert isinstance(argv, list)
    folder = tmp_path / "plan"
    lora = argv.index("--lora-modules")
    assert argv[lora + 1:lora + 3] == [f"ckpt1750={folder / 'ckpt1750'}", f"ckpt850={folder / 'ckpt850'}"]
    assert argv[argv.index("--seed") + 1] == "1"  # the plan's first seed
    served = {g.arm: g.text for g in generations.generations}
    assert served == {"base-unadapted": f"served by {folder / 'base-model'}", "ckpt1750": "served by ckpt1750",
                      "ckpt850": "served by ckpt850"}  # each arm's requests name its adapter
    assert len(generations.generations) == 18 and not generations.errors


def test_replicas_start_one_server_each_and_share_the_requests(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    log = _fake_vllm_on_path(tmp_path, monkeypatch)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    plan = _three_arm_plan(tmp_path / "plan", extra="replicas = 2")
    generate_plan(plan, store_dir=tmp_path / "runs", concurrency=4, quiet=True)
    starts = _events(log, "start")
    assert sorted(str(s["cuda"]) for s in starts) == ["0", "1"]
    ports = {e["port"] for e in _events(log, "request")}
    assert ports == {s["port"] for s in starts}  # both replicas answered


def test_an_adapter_trained_on_another_base_is_refused_at_its_line(tmp_path: Path) -> None:
    plan = _three_arm_plan(tmp_path / "plan", base_of_adapters="HuggingFaceTB/SmolLM2-1.7B")
    proc = run_cli_in_process("run", str(plan), "--store", str(tmp_path / "runs"), "--quiet")
    assert proc.returncode == 2, proc.stderr
    assert "plan.toml:" in proc.stderr and "was trained on 'HuggingFaceTB/SmolLM2-1.7B'" in proc.stderr
