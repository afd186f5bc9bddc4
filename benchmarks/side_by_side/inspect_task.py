"""The side-by-side prompt set as an inspect_ai task: greedy generation to each item's cap, scored by `includes()`.

`includes()` is inspect_ai's own scorer: correct when the answer contains one of the item's expected strings
(case-insensitive). Each sample carries its cap (`max_tokens`, the probe battery's) and the solver passes it to
`generate`, so inspect_ai generates under the same caps as forgegate.

    inspect eval benchmarks/side_by_side/inspect_task.py -T items=build/side-by-side/items.jsonl \
        --model hf/local -M model_path=build/side-by-side/merged -M device=cpu -M do_sample=false --max-connections 1
"""

from inspect_ai import Task, task
from inspect_ai.dataset import FieldSpec, json_dataset
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def generate_to_cap() -> Solver:
    """Generate with the item's own token cap (the battery's `max_tokens`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, max_tokens=int(state.metadata["max_tokens"]))

    return solve


@task
def side_by_side(items: str = "build/side-by-side/items.jsonl") -> Task:
    """The 11 probe items, as inspect_ai samples (target: the expected strings, any one of them)."""
    fields = FieldSpec(input="prompt", target="targets", id="id", metadata=["max_tokens"])
    return Task(dataset=json_dataset(items, fields), solver=generate_to_cap(), scorer=includes())
