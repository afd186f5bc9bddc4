"""A stand-in for ``vllm serve`` in tests (vLLM needs a GPU): records its argv, serves the OpenAI routes.

Run as ``python fake_vllm.py serve MODEL --port P [--lora-modules NAME=PATH ...]``. Each start and
each generation request is appended as one JSON line to ``$FAKE_VLLM_LOG``. A request must name the
base model or one of the LoRA modules (as vLLM requires); the answer says which model served it.
As vLLM with ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``, ``POST /v1/load_lora_adapter`` adds a module
by name (HTTP 400 "has already been loaded" for a name it has) and ``/v1/unload_lora_adapter``
removes it; both are logged (event "load" / "unload").
"""

from __future__ import annotations

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from backend_fake_http import send_json  # this script runs from tests/, so its folder is on sys.path

ARGV = sys.argv[1:]
MODEL = ARGV[1]
PORT = int(ARGV[ARGV.index("--port") + 1])
LORAS: list[str] = []
if "--lora-modules" in ARGV:
    for arg in ARGV[ARGV.index("--lora-modules") + 1:]:
        if arg.startswith("--"):
            break
        LORAS.append(arg.split("=", 1)[0])


def log(record: dict[str, Any]) -> None:
    with open(os.environ["FAKE_VLLM_LOG"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _json(self, status: int, obj: Any) -> None:
        send_json(self, status, obj)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path == "/health":
            self._json(200, {})
        elif self.path == "/v1/models":
            self._json(200, {"data": [{"id": MODEL}, *({"id": name} for name in LORAS)]})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"):
            self._lora(body)
            return
        model = body.get("model")
        log({"event": "request", "port": PORT, "model": model})
        if model != MODEL and model not in LORAS:
            self._json(404, {"error": {"message": f"The model `{model}` does not exist."}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        chat = self.path.endswith("/chat/completions")
        # one token a delta, as a real server streams (a delta of several words would send the client to a
        # /tokenize route this stand-in does not serve), and a usage that counts them
        for piece, finish in (("served", None), (" by", None), (f" {model}", None), ("", "stop")):
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
            choice.update({"delta": {"content": piece}} if chat else {"text": piece})
            self.wfile.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
        usage = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 3}}
        self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())

    def _lora(self, body: dict[str, Any]) -> None:
        name = body.get("lora_name")
        load = self.path.endswith("/load_lora_adapter")
        log({"event": "load" if load else "unload", "name": name, "path": body.get("lora_path")})
        if load and name in LORAS:
            self._json(400, {"error": {"message": f"The lora adapter '{name}' has already been loaded."}})
        elif not load and name not in LORAS:
            self._json(404, {"error": {"message": f"The lora adapter '{name}' cannot be found."}})
        else:
            LORAS.append(name) if load else LORAS.remove(name)
            self._json(200, {})


if __name__ == "__main__":
    log({"event": "start", "argv": ARGV, "port": PORT, "cuda": os.environ.get("CUDA_VISIBLE_DEVICES")})
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
