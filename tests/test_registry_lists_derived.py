"""One list each (issue 34, item 4): backends and judges declare what they can do on the registered class, and
every list of them (CLI help and choices, which backend takes which option or an adapter, which judges a frozen
codebook may name, what a judge needs) is read from the registry.

The proof: a fresh interpreter registers one stand-in backend and one stand-in judge, with nothing but their
class declarations, before the CLI is imported; each then shows up in every list with no second edit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from forgegate.backends import BACKENDS
from forgegate.backends.adapters import adapter_backends, adapter_refusal
from forgegate.backends.names import adapter_kind, backend_options
from forgegate.backends.options import option_backends
from forgegate.pipeline.semantic.judge import rebuildable_judges
from forgegate.semantic.entailment import JUDGES, judge_capability

CAPABILITIES_PAGE = Path(__file__).resolve().parents[1] / "docs" / "gen" / "capabilities.py"
REGISTER_STAND_INS = """
import json, sys
from typing import ClassVar
from forgegate.backends.names import BACKENDS
from forgegate.semantic.entailment import JUDGES

@BACKENDS.register("standin")
class StandIn:
    remote: ClassVar[bool] = False
    adapter: ClassVar[str | None] = "peft"
    options: ClassVar[tuple[str, ...]] = ("device", "replicas")

@JUDGES.register("standin-judge")
class StandInJudge:
    name = "standin-judge"
    needs = ("nli_model", "--nli-model DIR (the stand-in's folder)")
    takes_backend = False
    rebuilt_from = {"nli_model": "folder"}

from typer.main import get_command
from forgegate.backends.adapters import adapter_refusal
from forgegate.backends.options import option_backends, option_refusal
from forgegate.cli.main import app
from forgegate.errors import UsageError
from forgegate.pipeline.semantic.judge import make_judge, rebuildable_judges
from forgegate.plan.plan_file import Arm

commands = get_command(app).commands
backend_help = next(p.help for p in commands["eval"].params if p.name == "backend")
judge_help = next(p.help for p in commands["semantic"].commands["cluster"].params if p.name == "judge")
try:
    make_judge("standin-judge")
    needs = None
except UsageError as exc:
    needs = str(exc)
try:
    Arm.model_validate({"name": "a", "backend": "ollama", "model": "m", "role": "candidate", "replicas": 2})
    arm_refusal = None
except Exception as exc:
    arm_refusal = str(exc)
import importlib.util
spec = importlib.util.spec_from_file_location("capabilities", sys.argv[1])
capabilities = importlib.util.module_from_spec(spec)
spec.loader.exec_module(capabilities)
page = capabilities.capabilities_page()
print("PROBE", json.dumps({"page": page,
    "backend_help": backend_help, "judge_help": judge_help,
    "device": option_backends()["device"], "replicas": option_backends()["replicas"],
    "adapter": adapter_refusal("standin"), "device_refusal": option_refusal("device", "standin"),
    "rebuildable": list(rebuildable_judges()), "needs": needs, "arm_refusal": arm_refusal}))
"""


def test_a_registered_backend_and_judge_show_up_in_every_list_with_no_second_edit() -> None:
    done = subprocess.run([sys.executable, "-c", REGISTER_STAND_INS, str(CAPABILITIES_PAGE)], capture_output=True,
                          text=True, timeout=300, check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROBE ")), None)
    assert line is not None, done.stdout + done.stderr
    found = json.loads(line.removeprefix("PROBE "))
    assert "standin" in found["backend_help"] and "standin-judge" in found["judge_help"]
    assert "standin" in found["device"] and "standin" in found["replicas"]
    assert found["adapter"] is None and found["device_refusal"] is None  # it loads adapters, it takes --device
    assert "standin" in found["arm_refusal"]  # the plan's arm table names it among the backends taking replicas
    assert "standin-judge" in found["rebuildable"]
    assert found["needs"] == "--judge standin-judge needs --nli-model DIR (the stand-in's folder)"
    assert "| `standin` | no | peft | `device`, `replicas` |" in found["page"]  # the docs' capabilities table
    assert "| `standin-judge` | `nli_model`: --nli-model DIR (the stand-in's folder) | no |" in found["page"]


def test_the_derived_lists_are_the_built_in_declarations() -> None:
    """What the classes declare today (the lists that used to be written out by hand come out the same)."""
    assert adapter_backends() == ("llamacpp", "transformers", "vllm")
    assert {name: adapter_kind(name) for name in adapter_backends()} == {
        "llamacpp": "gguf", "transformers": "peft", "vllm": "peft"}
    assert option_backends()["device"] == ("transformers",)
    assert set(option_backends()["n_threads"]) == {"embedded", "llamacpp", "transformers"}
    assert all(backend_options(name) == () for name in ("ollama", "openai"))
    assert "cannot load an adapter" in str(adapter_refusal("ollama"))
    assert set(rebuildable_judges()) == {"embedding", *JUDGES.names()} == {"embedding", "nli", "llm"}
    assert judge_capability("llm", "takes_backend") and not judge_capability("nli", "takes_backend")


def test_a_backend_or_judge_that_declares_no_capability_is_an_error_not_a_guess(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import forgegate.backends.names as names
    import forgegate.semantic.entailment as entailment
    from forgegate.registry import Registry

    backends: Registry[object] = Registry("backend")
    judges: Registry[object] = Registry("entailment judge")

    @backends.register("bare")
    class Bare:
        remote = False

    @judges.register("bare")
    class BareJudge:
        name = "bare"

    monkeypatch.setattr(names, "BACKENDS", backends)
    monkeypatch.setattr(entailment, "JUDGES", judges)
    with pytest.raises(TypeError, match="backend 'bare' declares no 'adapter' capability"):
        names.adapter_kind("bare")
    with pytest.raises(TypeError, match="backend 'bare' declares no 'options' capability"):
        names.backend_options("bare")
    with pytest.raises(TypeError, match="entailment judge 'bare' declares no 'needs' capability"):
        entailment.judge_capability("bare", "needs")
    assert BACKENDS.names() != backends.names()  # the real registry was not touched
