"""T_GPT v0.8.1's cost guardrails per condition (arm), from the run store and the plan's structure.

``input_tokens``, ``output_tokens``, ``total_tokens``, ``wall_clock_latency``, ``serial_depth``,
``parallelizable_calls`` and ``estimated_monetary_cost`` (T_GPT v0.8.1 ``quality_guardrails.cost``).
A count a backend did not report is null, never 0: a total over some unreported requests is null
with status "partial" (the sum of what was reported is shown beside it, labelled). No price table
means no monetary estimate (null, with the reason).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forgegate.core.records import StoredResponse
from forgegate.plan import Plan, Prices

Json = dict[str, Any]

STRUCTURE = ("each (task, seed) of an arm is one request whose prompt is the fixture prompt (wrapped by the "
             "arm's prompt_template, recovery probes included); no request reads another's output, so the "
             "serial depth is 1 and every call can run in parallel")
WALL_CLOCK = ("from the start of the condition's first answered request (recorded finish minus its latency) to "
              "the finish of its last: a pause between a run and its resume counts; failed attempts before "
              "the final one do not")


def _tokens(values: Sequence[int | None], source: str) -> Json:
    """A token total: the sum when every request reported it, else null with what was reported."""
    reported = [v for v in values if v is not None]
    if values and len(reported) == len(values):
        return {"value": sum(reported), "status": "complete", "reported_requests": len(reported), "source": source}
    return {"value": None, "status": "partial" if reported else "not reported",
            "reported_requests": len(reported), "requests": len(values),
            "sum_of_reported": sum(reported) if reported else None, "source": source}


def _total(inp: Json, out: Json) -> Json:
    if inp["value"] is not None and out["value"] is not None:
        return {"value": inp["value"] + out["value"], "status": "complete"}
    return {"value": None, "status": "partial", "note": "input or output tokens were not reported for every request"}


def _wall_clock(rows: list[StoredResponse]) -> Json:
    spans = [(r.finished_at - (r.latency_s or 0.0), r.finished_at) for r in rows if r.finished_at is not None]
    summed = round(sum(r.latency_s or 0.0 for r in rows), 3)
    if not rows or len(spans) < len(rows):
        return {"value_s": None, "note": "the store records no finish time for some answers (written before "
                                         "forgegate recorded one): wall-clock span unknown",
                "sum_of_request_latencies_s": summed}
    start, end = min(s for s, _ in spans), max(e for _, e in spans)
    return {"value_s": round(end - start, 3), "definition": WALL_CLOCK, "sum_of_request_latencies_s": summed}


def _money(prices: Prices | None, plan: Plan, arm: str, inp: Json, out: Json) -> Json:
    if prices is None:
        return {"value": None, "currency": None, "note": "no price table in the plan ([instruments.semantic.prices])"}
    model = plan.arm(arm).model if arm in {a.name for a in plan.arms} else None
    price = prices.for_arm(arm, model)
    if price is None:
        return {"value": None, "currency": prices.currency, "note": f"the price table has no price for arm {arm!r}"}
    base = {"currency": prices.currency, "input_per_million": price.input_per_million,
            "output_per_million": price.output_per_million}
    if inp["value"] is None or out["value"] is None:
        return {"value": None, **base, "note": "partial: token counts were not reported for every request, "
                                               "so no cost is estimated"}
    value = (inp["value"] * price.input_per_million + out["value"] * price.output_per_million) / 1_000_000
    return {"value": value, **base}


def condition_cost(plan: Plan, rows: list[StoredResponse], n_items: int) -> Json:
    """Per arm: the seven cost guardrails from its answered requests, and the planned structure."""
    prices = plan.instruments.semantic.prices if plan.instruments.semantic is not None else None
    planned = n_items * len(plan.request_seeds())
    by_arm: dict[str, list[StoredResponse]] = {}
    for row in rows:
        if row.ok:
            by_arm.setdefault(row.arm, []).append(row)
    out: Json = {}
    for arm in [a.name for a in plan.arms if a.name in by_arm] + sorted(set(by_arm) - {a.name for a in plan.arms}):
        mine = by_arm[arm]
        sources = sorted({r.token_source or "unknown" for r in mine})
        inp = _tokens([r.prompt_tokens for r in mine], "the backend's prompt count (Ollama prompt_eval_count, "
                                                         "OpenAI usage.prompt_tokens, the tokenizer's)")
        outp = _tokens([r.tokens for r in mine], "the backend's output count: " + ", ".join(sources))
        out[arm] = {
            "requests": len(mine),
            "input_tokens": inp,
            "output_tokens": outp,
            "total_tokens": _total(inp, outp),
            "wall_clock_latency": _wall_clock(mine),
            "serial_depth": 1,
            "parallelizable_calls": planned,
            "estimated_monetary_cost": _money(prices, plan, arm, inp, outp),
        }
    out["note"] = STRUCTURE
    return out
