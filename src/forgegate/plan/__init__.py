"""The pre-registered plan: its schema, loading with file:line errors, the lock, and presets.

The names below are imported from their modules when first used, so that a light module of this
package (``plan.presets``) can be read for the CLI's help text without building
every schema.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.plan.inputs import (
        BUNDLED_GLOSS,
        PlanInput,
        check_adapters,
        check_inputs,
        input_digests,
        is_bundled,
        plan_inputs,
    )
    from forgegate.plan.instruments import (
        ENDPOINTS,
        INSTRUMENT_NAMES,
        DamageParams,
        GlossParams,
        InstrumentName,
        Instruments,
        MemorizationParams,
        Price,
        Prices,
        SemanticParams,
        VoiceParams,
        endpoint_names,
    )
    from forgegate.plan.load import LoadedPlan, load_plan, parse_plan_text
    from forgegate.plan.lock import (
        RULE_DOES_NOT_MOVE,
        LockedPlan,
        LockRefusedError,
        PlanLock,
        check_lock,
        lock_path,
        lock_plan,
        plan_hash,
        read_lock,
    )
    from forgegate.plan.plan_file import Arm, Fixture, Plan, PlanComparison, Role, Sampling, SeedRange
    from forgegate.plan.presets import PRESETS, PresetName, write_preset

_HOME: dict[str, str] = {
    "BUNDLED_GLOSS": "forgegate.plan.inputs",
    "PlanInput": "forgegate.plan.inputs",
    "check_adapters": "forgegate.plan.inputs",
    "check_inputs": "forgegate.plan.inputs",
    "input_digests": "forgegate.plan.inputs",
    "is_bundled": "forgegate.plan.inputs",
    "plan_inputs": "forgegate.plan.inputs",
    "ENDPOINTS": "forgegate.plan.instruments",
    "INSTRUMENT_NAMES": "forgegate.plan.instruments",
    "DamageParams": "forgegate.plan.instruments",
    "GlossParams": "forgegate.plan.instruments",
    "InstrumentName": "forgegate.plan.instruments",
    "Instruments": "forgegate.plan.instruments",
    "MemorizationParams": "forgegate.plan.instruments",
    "Price": "forgegate.plan.instruments",
    "Prices": "forgegate.plan.instruments",
    "SemanticParams": "forgegate.plan.instruments",
    "VoiceParams": "forgegate.plan.instruments",
    "endpoint_names": "forgegate.plan.instruments",
    "LoadedPlan": "forgegate.plan.load",
    "load_plan": "forgegate.plan.load",
    "parse_plan_text": "forgegate.plan.load",
    "RULE_DOES_NOT_MOVE": "forgegate.plan.lock",
    "LockedPlan": "forgegate.plan.lock",
    "LockRefusedError": "forgegate.plan.lock",
    "PlanLock": "forgegate.plan.lock",
    "check_lock": "forgegate.plan.lock",
    "lock_path": "forgegate.plan.lock",
    "lock_plan": "forgegate.plan.lock",
    "plan_hash": "forgegate.plan.lock",
    "read_lock": "forgegate.plan.lock",
    "PRESETS": "forgegate.plan.presets",
    "PresetName": "forgegate.plan.presets",
    "write_preset": "forgegate.plan.presets",
    "Arm": "forgegate.plan.plan_file",
    "Fixture": "forgegate.plan.plan_file",
    "Plan": "forgegate.plan.plan_file",
    "PlanComparison": "forgegate.plan.plan_file",
    "Role": "forgegate.plan.plan_file",
    "Sampling": "forgegate.plan.plan_file",
    "SeedRange": "forgegate.plan.plan_file",
}

__all__ = [
    "BUNDLED_GLOSS",
    "ENDPOINTS",
    "INSTRUMENT_NAMES",
    "PRESETS",
    "RULE_DOES_NOT_MOVE",
    "Arm",
    "PlanComparison",
    "DamageParams",
    "Fixture",
    "GlossParams",
    "InstrumentName",
    "Instruments",
    "LoadedPlan",
    "LockRefusedError",
    "LockedPlan",
    "MemorizationParams",
    "Plan",
    "PlanInput",
    "PlanLock",
    "PresetName",
    "Role",
    "Sampling",
    "SeedRange",
    "Price",
    "Prices",
    "SemanticParams",
    "VoiceParams",
    "check_adapters",
    "check_inputs",
    "check_lock",
    "endpoint_names",
    "input_digests",
    "is_bundled",
    "load_plan",
    "lock_path",
    "lock_plan",
    "parse_plan_text",
    "plan_hash",
    "plan_inputs",
    "read_lock",
    "write_preset",
]


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
