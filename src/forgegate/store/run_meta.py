"""A run store's metadata as one typed record: every key the store's ``meta`` table holds, with its type.

The table itself stays a key/value bag of JSON texts (so stores written by earlier versions open unchanged);
this module is the one place that knows its keys. Writers build a :class:`RunMeta` with the fields they
know and ``RunStore.update_meta`` writes exactly those; readers get a :class:`RunMeta` from
``RunStore.meta()``. A field a store does not hold is ``None`` (or empty) and absent from ``model_fields_set``.
It sits with the store, not the runner, so a reader of a store never imports the code that generates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgegate.core.match_rule import LEGACY_MATCH_RULE

ARM_DIGEST_PREFIX = "model_digest:"
"""A plan's per-arm digest is kept as ``model_digest:<arm>`` (an eval's one arm keeps ``model_digest``)."""
ERROR_SUFFIX = "_error"
"""Why a digest could not be read is kept beside it, as ``<digest key>_error``."""
ARM_GATE_PREFIX = "last_gate:"
"""A plan arm's last GLOSS verdict is kept as ``last_gate:<arm>``."""

RunKind = Literal["eval", "live", "plan"]
"""What generated a run: ``forgegate eval``, ``forgegate live`` or ``forgegate run PLAN``."""

_RECORD = ConfigDict(extra="forbid", frozen=True)


class GenerationMarker(BaseModel):
    """Who is generating into the store, and since when (``time.time()``): what ``forgegate view`` shows live."""

    model_config = _RECORD

    pid: int
    host: str
    since: float


class StoredGateConfig(BaseModel):
    """The gate config an eval or live run was gated with, kept whole so rescoring re-gates under it."""

    model_config = _RECORD

    path: str
    sha256: str
    toml: str
    match_rule: str = LEGACY_MATCH_RULE
    """A store from before the matching rule was recorded was scored by the legacy (substring) rule."""


class RunMeta(BaseModel):
    """Everything a run store records about its run, each key with its type (all optional: a store holds
    the keys its kind of run writes)."""

    model_config = _RECORD

    # -- identity: a resumed run must present the same values (RunStore.init_meta) -------------------------
    kind: RunKind | None = None
    run_id: str | None = None
    backend: str | None = None
    model: str | None = None
    adapter: str | None = None
    battery_sha256: str | None = None
    seed: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    system: str | None = None
    plan_name: str | None = None
    forgegate_version: str | None = None
    """The version that created the store (written once, with ``created``)."""
    created: str | None = None
    """When the store was created, UTC ISO 8601."""

    # -- facts recorded each time generation starts (may change between resumes) -----------------------------
    battery_path: str | None = None
    base_urls: list[str] | None = None
    gate_config: StoredGateConfig | None = None
    loop_cutoff: bool | None = None
    """Whether the last generation into the run cut loops off (``--no-loop-cutoff`` sets it False)."""
    samples: int | None = None
    """Samples per item the last generation asked for (``--samples``; issue 47): sample j of every item has the
    seed ``core.samples.sample_seeds(seed, K)[j]``. None: one (a run written before it)."""
    plan_hash: str | None = None
    plan_file: str | None = None
    model_label: str | None = None
    """A name for the model when the run has no ``model`` (a local file's name, the backend's name)."""
    served_model: str | None = None
    """The server's own id for the model, from its model list before generating (server backends only)."""
    planned_requests: int | None = None
    """How many requests the run plans (arms x items x seeds), set each time generation starts."""
    generating: GenerationMarker | None = None
    """Set while a process generates into the store, ``None`` after."""

    # -- learned during or after generation ------------------------------------------------------------------
    model_digest: str | None = None
    model_digest_error: str | None = None
    arm_digests: dict[str, str | None] = Field(default_factory=dict)
    """A plan's digest per arm (None: the backend reported none)."""
    arm_digest_errors: dict[str, str] = Field(default_factory=dict)
    last_gate: str | None = None
    """The run's last GLOSS verdict word, for ``forgegate runs`` (not written when re-gated under another config)."""
    arm_last_gates: dict[str, str] = Field(default_factory=dict)
    served_sampling: dict[str, dict[str, float | int | str | bool | None]] | None = None
    """Per arm, the sampling its backend serves with when a request sends none (``backends.served_sampling``):
    the sampling in force for an "as served" run; recorded each time generation runs."""
    endpoint_notes: list[str] | None = None
    """What the last generation changed about an endpoint and why (a server that cut streams while several
    were in flight got fewer at once: issue 33), one line each."""

    @property
    def label(self) -> str | None:
        """What the run is called in lists and results: its plan, its model, or the model's label."""
        return self.plan_name or self.model or self.model_label

    def rows(self) -> dict[str, str]:
        """The store's rows for the fields this record sets: key -> JSON text."""
        out: dict[str, Any] = {}
        for name, value in self.model_dump(mode="json", include=self.model_fields_set).items():
            if name == "arm_digests":
                out.update({ARM_DIGEST_PREFIX + arm: digest for arm, digest in value.items()})
            elif name == "arm_digest_errors":
                out.update({ARM_DIGEST_PREFIX + arm + ERROR_SUFFIX: why for arm, why in value.items()})
            elif name == "arm_last_gates":
                out.update({ARM_GATE_PREFIX + arm: gate for arm, gate in value.items()})
            else:
                out[name] = value
        return {key: json.dumps(value) for key, value in out.items()}

    @classmethod
    def from_rows(cls, rows: Mapping[str, str]) -> RunMeta:
        """The record of a store's rows; keys this version does not know (a newer version's) are left out.

        Raises ValueError naming the key whose value is not what forgegate writes there.
        """
        fields: dict[str, Any] = {}
        per_arm: dict[str, dict[str, Any]] = {"arm_digests": {}, "arm_digest_errors": {}, "arm_last_gates": {}}
        for key, text in rows.items():
            value = json.loads(text)
            if key.startswith(ARM_DIGEST_PREFIX) and key.endswith(ERROR_SUFFIX):
                per_arm["arm_digest_errors"][key[len(ARM_DIGEST_PREFIX):-len(ERROR_SUFFIX)]] = value
            elif key.startswith(ARM_DIGEST_PREFIX):
                per_arm["arm_digests"][key[len(ARM_DIGEST_PREFIX):]] = value
            elif key.startswith(ARM_GATE_PREFIX):
                per_arm["arm_last_gates"][key[len(ARM_GATE_PREFIX):]] = value
            elif key in cls.model_fields:
                fields[key] = value
        fields.update({name: arms for name, arms in per_arm.items() if arms})
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise ValueError(f"meta '{where}' is not what forgegate writes there ({error['msg']})") from None
