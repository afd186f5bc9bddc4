"""Turning a plan into stored answers: request expansion, async execution, retries, caps, resume."""

from forgegate.run.engine import (
    ExecutionSummary,
    PlannedRequest,
    RetryPolicy,
    enforce_cap,
    execute,
    record_model_digest,
)

__all__ = ["ExecutionSummary", "PlannedRequest", "RetryPolicy", "enforce_cap", "execute", "record_model_digest"]
