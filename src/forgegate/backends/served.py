"""A server someone else runs, asked what it serves and (vLLM) told to load a LoRA adapter by name.

``forgegate watch --backend vllm|openai`` probes each new checkpoint through such a server.
vLLM loads an adapter at run time through ``POST /v1/load_lora_adapter`` (``lora_name``,
``lora_path``) and frees its slot through ``/v1/unload_lora_adapter``; those routes exist
only when the server runs with ``--enable-lora`` and ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``,
and ``lora_path`` is read by the server, so it must see the checkpoint folder. Any
OpenAI-compatible server lists what it serves at ``GET /v1/models``. ``base_url`` includes
``/v1``, as everywhere in forgegate.
"""

from __future__ import annotations

from forgegate.backends._body import BodyProblem, request_whole
from forgegate.backends._http import Redactor, get_checked, http_errors, join_url, make_client
from forgegate.backends._httpx import httpx
from forgegate.backends.base import BackendError
from forgegate.backends.openai import read_api_key
from forgegate.errors import UsageError

RUNTIME_LORA_HINT = ("start vLLM with --enable-lora (and --max-lora-rank at least the adapters' rank) and the "
                     "environment variable VLLM_ALLOW_RUNTIME_LORA_UPDATING=True")
ALREADY_LOADED = "already been loaded"
"""vLLM's words (HTTP 400) for an adapter loaded before under that name: loaded, as asked."""


def _client(api_key_env: str | None, idle_s: float) -> tuple[httpx.AsyncClient, Redactor]:
    key = read_api_key(api_key_env)
    return make_client(idle_s, {"Authorization": f"Bearer {key}"} if key else {}), Redactor((key,) if key else ())


async def served_models(base_url: str, *, api_key_env: str | None = None, idle_s: float = 30.0) -> set[str]:
    """The model ids the server lists at ``/v1/models`` (a server that cannot be reached is a BackendError)."""
    client, redact = _client(api_key_env, idle_s)
    url = join_url(base_url, "models")
    async with client:
        response = await get_checked(client, url, redact)
    try:
        body = response.json() if response.headers.get("content-type", "").startswith("application/json") else None
    except BodyProblem as exc:
        raise BackendError(redact(exc.message), transient=True) from None
    data = body.get("data") if isinstance(body, dict) else None
    return {str(entry.get("id")) for entry in data or [] if isinstance(entry, dict)}


async def load_lora_adapter(base_url: str, name: str, path: str, *, api_key_env: str | None = None,
                            idle_s: float = 300.0) -> None:
    """Ask vLLM to serve the adapter at ``path`` under ``name`` (an adapter already loaded under it is fine)."""
    await _lora_call(base_url, "load_lora_adapter", {"lora_name": name, "lora_path": path}, api_key_env, idle_s)


async def unload_lora_adapter(base_url: str, name: str, *, api_key_env: str | None = None,
                              idle_s: float = 60.0) -> None:
    """Free the adapter's slot (vLLM serves at most ``--max-loras`` at once)."""
    await _lora_call(base_url, "unload_lora_adapter", {"lora_name": name}, api_key_env, idle_s)


async def _lora_call(base_url: str, route: str, body: dict[str, str], api_key_env: str | None, idle_s: float) -> None:
    url = join_url(base_url, route)
    client, redact = _client(api_key_env, idle_s)
    try:
        async with client, http_errors(url, redact):
            response = await request_whole(client, "POST", url, json_body=body, deadline_s=idle_s)
    except BodyProblem as exc:
        raise BackendError(redact(exc.message), transient=True) from None
    text = response.text
    if response.status_code < 400 or (route == "load_lora_adapter" and ALREADY_LOADED in text):
        return
    if response.status_code in (404, 405):
        raise UsageError(f"{url} answered HTTP {response.status_code}: this server cannot load adapters at run "
                         f"time; {RUNTIME_LORA_HINT}")
    raise BackendError(redact(f"HTTP {response.status_code} from {url}: {text[:300]}"),
                       transient=response.status_code >= 500)


__all__ = ["RUNTIME_LORA_HINT", "load_lora_adapter", "served_models", "unload_lora_adapter"]
