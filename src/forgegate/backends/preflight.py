"""One probe of a server backend's endpoints before anything is generated: is the model served there, and as what.

Without it a dead server, a base URL missing ``/v1`` (404) or a ``--model`` the server does not serve
became one identical error per item and an INCOMPLETE verdict (exit 3), which re-running never fixes.
These are the user's to fix, so each is a :class:`UsageError` (exit 2) that says what to change, raised
before the run store is touched. Backends forgegate starts itself (embedded, llamacpp, vllm, transformers)
are not probed here: they check their own model when they load it.

The probe asks what the server lists (OpenAI-compatible: ``GET /models``; Ollama: ``GET /api/tags``), so
the run records the server's own id for the model and, where the server gives one (Ollama), its digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgegate.backends._body import Body, BodyProblem, request_whole
from forgegate.backends._http import tls_context
from forgegate.backends._httpx import httpx
from forgegate.backends.base import BackendConfig
from forgegate.errors import UsageError

PROBED_BACKENDS: tuple[str, ...] = ("openai", "ollama")
"""The backends on a server forgegate does not start, whose endpoints are probed before generating."""

_SNIPPET = 200


@dataclass(frozen=True)
class ServedModel:
    """What the server says it serves under the name asked for."""

    model_id: str
    """The server's own id for the model (``/models``' ``id``, ``/api/tags``' ``name``)."""
    digest: str | None
    """A content digest of the weights where the server reports one (Ollama's sha256), else None."""


async def preflight(backend: str, config: BackendConfig) -> ServedModel | None:
    """Probe every endpoint of ``config`` once; None for a backend that is not probed.

    Raises UsageError naming the URL, what it answered and what to do.
    """
    if backend not in PROBED_BACKENDS or not config.model:
        return None
    from forgegate.backends.openai import read_api_key  # the one reading of --api-key-env

    api_key = read_api_key(config.api_key_env) if backend == "openai" else None
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    timeout = httpx.Timeout(config.idle_s, connect=min(config.idle_s, 10.0))
    found: dict[str, ServedModel] = {}
    async with httpx.AsyncClient(timeout=timeout, headers=headers, verify=tls_context()) as client:
        for base in dict.fromkeys(url.rstrip("/") for url in config.base_urls or (_ollama_default(),)):
            if backend == "openai":
                found[base] = await _openai_model(client, base, config.model, api_key, config.timeout_s)
            else:
                found[base] = await _ollama_model(client, base, config.model, config.timeout_s)
    served = set(found.values())
    if len(served) > 1:
        listed = "; ".join(f"{url}: {m.model_id} {m.digest or ''}".rstrip() for url, m in found.items())
        raise UsageError(f"the --base-url replicas serve different models under '{config.model}' ({listed}): "
                         "point every --base-url at the same model")
    return next(iter(served))


def _ollama_default() -> str:
    """Ollama's own default host (``OLLAMA_HOST``), as the backend reads it."""
    import os

    from forgegate.backends.ollama import parse_ollama_host

    return parse_ollama_host(os.environ.get("OLLAMA_HOST", ""))


async def _get(client: httpx.AsyncClient, url: str, api_key: str | None, deadline_s: float) -> Body:
    """GET ``url`` through the one bounded reader (size, time, depth: ``_body``); a server that cannot be reached,
    or whose answer breaks a bound (a 300 MB list, one dripped past --timeout), is the user's to fix (UsageError)."""
    try:
        return await request_whole(client, "GET", url, deadline_s=deadline_s)
    except BodyProblem as exc:
        raise UsageError(f"{_redact(exc.message, api_key)}: check the server at --base-url (is it the server you "
                         "meant, and healthy?), then run again") from None
    except httpx.ConnectError as exc:
        raise UsageError(f"nothing answers at {url} ({_redact(str(exc), api_key) or 'connection refused'}): "
                         "start the server, or fix --base-url to where it listens") from None
    except httpx.TimeoutException:
        raise UsageError(f"{url} did not answer within {client.timeout.read:g} s: check the server is up and "
                         "not stalled (or raise --idle-timeout)") from None
    except httpx.TransportError as exc:
        raise UsageError(f"{url} could not be asked ({type(exc).__name__}: {_redact(str(exc), api_key)}): "
                         "check --base-url") from None


def _redact(text: str, api_key: str | None) -> str:
    return text.replace(api_key, "***") if api_key else text


def _json(response: Body) -> tuple[Any, str]:
    """The answer's JSON, or None and why not (said in the error): depth and size are the reader's bounds."""
    try:
        return response.json(), ""
    except BodyProblem as exc:
        return None, f" ({exc.message})"


async def _openai_model(client: httpx.AsyncClient, base: str, model: str, api_key: str | None,
                        deadline_s: float) -> ServedModel:
    url = f"{base}/models"
    response = await _get(client, url, api_key, deadline_s)
    if response.status_code in (401, 403):
        raise UsageError(f"{url} refused the request (HTTP {response.status_code}): set --api-key-env to the "
                         "environment variable holding this server's API key")
    if response.status_code == 404:
        raise UsageError(f"{url} is 404 Not Found: {await _missing_path_hint(client, base, api_key, deadline_s)}")
    if response.status_code >= 400:
        raise UsageError(f"{url} answered HTTP {response.status_code} "
                         f"({_redact(response.text[:_SNIPPET], api_key)!r}): fix the server, or wait until it has "
                         "loaded its model, then run again")
    body, why = _json(response)
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise UsageError(f"{url} did not answer with a model list{_redact(why, api_key)} (an OpenAI-compatible "
                         "server lists {\"data\": [{\"id\": ...}]}): is --base-url an OpenAI-compatible server? "
                         "(for Ollama's own API use --backend ollama)")
    ids = [str(entry["id"]) for entry in data if isinstance(entry, dict) and entry.get("id") is not None]
    if model in ids:
        return ServedModel(model_id=model, digest=None)
    raise UsageError(f"--model '{model}' is not served at {base}: it serves {_listed(ids)}; "
                     f"{_pass_model(ids)}")


async def _missing_path_hint(client: httpx.AsyncClient, base: str, api_key: str | None, deadline_s: float) -> str:
    """What a 404 on ``/models`` most likely means: a base URL without ``/v1``."""
    if not base.endswith("/v1"):
        try:
            answer: Body | None = await request_whole(client, "GET", f"{base}/v1/models", deadline_s=deadline_s)
        except (httpx.HTTPError, BodyProblem):
            answer = None
        if answer is not None and answer.status_code < 400:
            return f"the server answers under {base}/v1: pass --base-url {base}/v1"
        return (f"an OpenAI-compatible base URL usually ends in /v1 (try --base-url {base}/v1); for Ollama's "
                "own API use --backend ollama")
    return "is this an OpenAI-compatible server? (for Ollama's own API use --backend ollama)"


def _listed(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names) if names else "no model"


def _pass_model(names: list[str]) -> str:
    if len(names) == 1:
        return f"pass --model '{names[0]}' (the result is labelled with it)"
    return "pass --model with one of these (the result is labelled with it)"


async def _ollama_model(client: httpx.AsyncClient, base: str, model: str, deadline_s: float) -> ServedModel:
    from forgegate.backends.ollama import normalise_model_name

    url = f"{base}/api/tags"
    response = await _get(client, url, None, deadline_s)
    if response.status_code == 404:
        raise UsageError(f"{url} is 404 Not Found: is --base-url an Ollama server? (an OpenAI-compatible "
                         "server, /v1 included, takes --backend openai)")
    if response.status_code >= 400:
        raise UsageError(f"{url} answered HTTP {response.status_code} ({response.text[:_SNIPPET]!r}): "
                         "fix the server, then run again")
    body, why = _json(response)
    entries = body.get("models") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f"{url} did not answer with Ollama's model list{why}: is --base-url an Ollama server?")
    wanted = normalise_model_name(model)
    names: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name = entry.get("name") or entry.get("model")
        if not isinstance(name, str):
            continue
        names.append(name)
        if normalise_model_name(name) == wanted:
            digest = entry.get("digest")
            return ServedModel(model_id=name, digest=str(digest) if digest else None)
    raise UsageError(f"--model '{model}' is not on the Ollama server at {base} (it has {_listed(names)}): "
                     f"run `ollama pull {model}`, or pass --model with one it has")
