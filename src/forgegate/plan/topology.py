"""E3_TOPOLOGY's declaration in a plan: the aggregates compared, and how closely their token budgets must match.

T_GPT v0.8.1: E3_TOPOLOGY's primary endpoint is "AGG_COVERAGE at matched total-token budget"; MINORITY_RECALL is
"secondary for aggregation/topology studies" (Holm within the experiment family). A branch pool is one arm's
generations of a task; an aggregate Y is what a topology (a vote, a summary, a debate ...) makes of the pool. Which
frozen clusters each aggregate represents comes from a file made after the run (the pools are the run's own
generations), so it cannot be in the plan hash: its sha256 is sealed into the plan's lock the first time it is
scored, and a changed file is refused after that (``plan.lock.seal_input``; issue 44). What each aggregate cost
comes from the run store: ``cost_arms`` names, before the run, the arms whose stored requests are its budget (issue
36: "with the token totals taken from the store, not from a file"); without it the file's self-reported
``total_tokens`` are read (exploratory).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from forgegate.userfile import UserFileModel


class AggregationParams(UserFileModel):
    """``[instruments.semantic.aggregation]``: E3_TOPOLOGY's compared aggregates and their token budget rule."""

    aggregates: str = Field(min_length=1)
    """JSONL, one row per (task, pool, aggregate): ``{"task", "pool", "aggregate", "clusters"}``, plus
    ``"total_tokens"`` only where the plan names no ``cost_arms`` (path, relative to the plan; read when scoring:
    missing, the semantic verdict is INCOMPLETE; sealed into the lock when first scored, refused if it changes)."""
    control: str = Field(min_length=1)
    """The reference aggregate (topology) of the primary comparison."""
    candidate: str = Field(min_length=1)
    """The aggregate compared with it: the primary endpoint is AGG_COVERAGE(candidate) - AGG_COVERAGE(control)."""
    budget_tolerance: float = Field(ge=0, lt=1)
    """Largest allowed relative gap |a - b| / max(a, b) between the two aggregates' total tokens over all tasks
    and pools (pre-registered; beyond it the run refuses to score E3 and prints both budgets)."""
    cost_arms: dict[str, tuple[str, ...]] | None = None
    """Per compared aggregate (exactly ``control`` and ``candidate``): the plan arms whose stored requests it cost:
    the arm(s) of the branches it reads and, where its topology makes model calls, the arm that makes them. Its
    budget is the sum of those requests' stored input + output tokens per task (``semantic.topology``). Required
    by a confirmatory plan; absent, the aggregates file's self-reported ``total_tokens`` are read instead."""

    @model_validator(mode="after")
    def _two_aggregates(self) -> AggregationParams:
        if self.control == self.candidate:
            raise ValueError("control and candidate must name two different aggregates")
        if self.cost_arms is not None:
            if set(self.cost_arms) != {self.control, self.candidate}:
                named = ", ".join(map(repr, self.cost_arms))
                raise ValueError(f"cost_arms names the arms of each compared aggregate, {self.control!r} and "
                                 f"{self.candidate!r}, and only those (it names {named})")
            for name, arms in self.cost_arms.items():
                if not arms or len(set(arms)) != len(arms):
                    raise ValueError(f"cost_arms.{name}: name each arm whose stored requests it cost, once")
        return self
