"""Generating a battery's answers into a run store: the GLOSS workflow's one arm, one seed."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from forgegate.backends import BackendConfig, GenerationRequest, make_backend
from forgegate.battery import Battery
from forgegate.run.engine import ExecutionSummary, PlannedRequest, RetryPolicy, execute, record_model_digest
from forgegate.store import RunStore, run_path

ARM = "model"


@dataclass(frozen=True)
class EvalSpec:
    """Everything that changes the answers of an eval run (and so its run id)."""

    kind: str  # "eval" or "live"
    backend: str
    config: BackendConfig
    battery: Battery
    seed: int
    temperature: float
    top_p: float
    system: str | None

    def identity(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "backend": self.backend,
            "model": self.config.model,
            "adapter": self.config.adapter,
            "battery_sha256": self.battery.sha256,
            "seed": self.seed,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "system": self.system,
        }

    @property
    def run_id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()
        return f"{self.kind}-{digest[:12]}"


def plan_requests(spec: EvalSpec) -> list[PlannedRequest]:
    """One request per battery item, capped at the item's own max_tokens."""
    return [
        PlannedRequest(
            arm=ARM,
            item_id=item.item_id,
            seed=spec.seed,
            request=GenerationRequest(
                prompt=item.prompt,
                max_tokens=item.max_tokens,
                seed=spec.seed,
                temperature=spec.temperature,
                top_p=spec.top_p,
                chat=item.chat,
                system=spec.system,
            ),
        )
        for item in spec.battery.items
    ]


async def _generate(spec: EvalSpec, store: RunStore, concurrency: int, quiet: bool,
                    retry: RetryPolicy) -> ExecutionSummary:
    backend = make_backend(spec.backend, spec.config)
    try:
        model_path = getattr(backend, "model_path", None)
        store.set_meta("model_label", spec.config.model or (Path(model_path).name if model_path else spec.backend))
        summary = await execute(store, plan_requests(spec), {ARM: backend}, concurrency=concurrency,
                                retry=retry, quiet=quiet)
        await record_model_digest(backend, store)
        return summary
    finally:
        await backend.aclose()


def generate_eval(spec: EvalSpec, *, store_dir: Path | None, concurrency: int, quiet: bool,
                  retry: RetryPolicy | None = None) -> tuple[Path, ExecutionSummary]:
    """Generate every missing answer of ``spec`` into its run store (resuming if it exists)."""
    path = run_path(spec.run_id, store_dir)
    with RunStore.open(path) as store:
        store.init_meta({**spec.identity(), "run_id": spec.run_id, "battery_path": str(spec.battery.path)})
        store.set_meta("base_urls", list(spec.config.base_urls))
        summary = asyncio.run(_generate(spec, store, concurrency, quiet, retry or RetryPolicy()))
    return path, summary
