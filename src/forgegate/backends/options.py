"""Which backend takes which per-arm option (plan arm table and CLI flags), and the allowed values.

Each backend class declares the options it uses (``options``); the table here is derived from those
declarations, read by the plan schema and the CLI: an option a backend would silently ignore
(``replicas`` on transformers, ``device`` on vllm) is refused where it is written.
"""

from __future__ import annotations

import re
from functools import cache

from forgegate.backends.names import BACKENDS, backend_options, is_remote

DEVICES_HELP = "auto (cuda, then mps, then cpu), cpu, mps, cuda or cuda:N"
DTYPES: tuple[str, ...] = ("auto", "float32", "float16", "bfloat16")
DISTRIBUTED_EXECUTORS: tuple[str, ...] = ("ray", "mp")

@cache
def option_backends() -> dict[str, tuple[str, ...]]:
    """Option name -> the backends that use it, from each registered class's ``options``. Options at their
    default are never refused. ``base_urls`` is not here: the backends that take it are the remote ones, as each
    registered class declares (:func:`is_remote`)."""
    table: dict[str, list[str]] = {}
    for name in BACKENDS.names():
        for option in backend_options(name):
            table.setdefault(option, []).append(name)
    return {option: tuple(names) for option, names in sorted(table.items())}


def device_problem(device: str) -> str | None:
    """Why ``device`` is not a device name forgegate knows, or None."""
    if re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", device):
        return None
    return f"device '{device}' is not one of {DEVICES_HELP}"


def option_refusal(option: str, backend: str) -> str | None:
    """Why ``option`` is wrong on ``backend`` (with the backends that take it), or None.

    The asked backend is read first: only a refusal imports every backend's module to name the takers."""
    if backend in BACKENDS and (is_remote(backend) if option == "base_urls" else option in backend_options(backend)):
        return None
    if option == "base_urls":
        takers = tuple(name for name in BACKENDS.names() if is_remote(name))
    else:
        takers = option_backends().get(option, ())
    if backend in takers:
        return None
    return f"'{option}' is an option of the {' / '.join(takers)} backend, not {backend}"


def base_url_refusal(backend: str) -> str | None:
    """Why ``--base-url`` is wrong on ``backend`` (it would be ignored without a word), or None.

    The usual cause is a missing ``--backend``: the default (embedded) runs a packaged model itself.
    """
    if option_refusal("base_urls", backend) is None:
        return None
    return (f"--base-url names a server, but --backend {backend} runs its model itself and would ignore it: "
            "add --backend openai (a llama.cpp, vLLM or other OpenAI-compatible server; the URL ends in /v1) "
            "or --backend ollama")
