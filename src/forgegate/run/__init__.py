"""Turning requests into stored answers: the one runner (arms x items x seeds), async execution, retries, caps,
resume. It never decides pass or fail and never renders."""

from forgegate.run.engine import (
    ExecutionSummary,
    PlannedRequest,
    RetryPolicy,
    enforce_cap,
    execute,
    record_model_digest,
)
from forgegate.run.runner import (
    ArmSpec,
    PromptItem,
    RunOutcome,
    SamplingSpec,
    battery_prompt,
    generate,
    plan_requests,
)

__all__ = ["ArmSpec", "ExecutionSummary", "PlannedRequest", "PromptItem",
           "RetryPolicy", "RunOutcome", "SamplingSpec", "battery_prompt", "enforce_cap", "execute", "generate",
           "plan_requests", "record_model_digest"]
