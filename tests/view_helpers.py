"""Runs for the `forgegate view` tests: a tiny battery answered by the fake Ollama server, through the real eval.

Two semantic items await a reviewer (the verdict is INCOMPLETE until both are decided),
one answer carries a ``<script>`` and ANSI escapes, one loops.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from backend_servers import Behaviour, FakeOllamaServer
from starlette.testclient import TestClient
from test_eval_controls_review import TINY_CONFIG

from forgegate.pipeline.session.eval_session import run_session
from forgegate.pipeline.session.options import SessionOptions
from forgegate.semantic.sheets import RELEVANCE_COLUMNS, VALIDATION_COLUMNS
from forgegate.view import ViewConfig, create_app

MODEL = "gloss:v10"
MODELS = {MODEL: "e" * 64}
BASE = "http://127.0.0.1:8765"
CONFIG = TINY_CONFIG  # the two-category tiny gate of the review tests
ITEMS: list[dict[str, Any]] = [
    {"id": "alpha", "category": "LX-IDENTITY", "prompt": "⊙ α?", "expected": "NOUS", "max_tokens": 64,
     "eval_type": "contains"},
    {"id": "iota", "category": "LX-IDENTITY", "prompt": "⊙ ι?", "expected": "AION", "max_tokens": 64,
     "eval_type": "contains"},
    {"id": "omicron", "category": "LX-IDENTITY", "prompt": "⊙ ο?", "expected": "KOSMOS", "max_tokens": 64,
     "eval_type": "contains"},
    {"id": "cold", "category": "LX-SEMANTIC", "prompt": "Translate: the forge is cold", "expected": [],
     "max_tokens": 64, "eval_type": "semantic"},
    {"id": "warm", "category": "LX-SEMANTIC", "prompt": "Translate: the forge is warm", "expected": [],
     "max_tokens": 64, "eval_type": "semantic"},
]
HOSTILE = "<script>window.__owned = 1; alert('owned')</script>\x1b[31mAION\x1b[0m <img src=x onerror=alert(2)>"
GOOD = {"⊙ α?": "α = NOUS", "⊙ ι?": HOSTILE, "⊙ ο?": "ο = KOSMOS",
        "Translate: the forge is cold": "frg.⊢ ❄", "Translate: the forge is warm": "frg.⊢ ☀"}
LOOPING = {**GOOD, "⊙ ο?": "ο = οοοο οοοο οοοο οοοο οοοο οοοο"}


def write_inputs(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    battery, config = folder / "tiny.jsonl", folder / "tiny.toml"
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in ITEMS), encoding="utf-8")
    config.write_text(CONFIG, encoding="utf-8")
    return battery, config


def options(url: str, battery: Path, config: Path, store: Path, *, model: str = MODEL,
            concurrency: int = 4) -> SessionOptions:
    return SessionOptions(kind="eval", backend="ollama", model=model, base_urls=(url,), battery=battery,
                          gate_config=config, concurrency=concurrency, retries=1, store=store, quiet=True)


def make_run(folder: Path, store: Path, script: dict[str, str], *, model: str = MODEL) -> str:
    """Generate and score one run into ``store`` (the real eval road); return its run id."""
    battery, config = write_inputs(folder)
    with FakeOllamaServer(Behaviour(script=script, models={model: "e" * 64})) as server:
        result = run_session(options(server.url, battery, config, store, model=model)).result
    return str(result.run_id)


def client(store: Path, **config: Any) -> TestClient:
    """A test client that talks to the app as a browser on 127.0.0.1 would."""
    return TestClient(create_app(ViewConfig(store, **config)), base_url=BASE)


def csrf_of(page: str) -> str:
    marker = 'name="csrf" value="'
    start = page.index(marker) + len(marker)
    return page[start:page.index('"', start)]


A = {"c1": 1, "c2": 1, "c3": 0, "c4": 1, "c5": 0, "c6": 1}
B = {"c1": 1, "c2": 0, "c3": 0, "c4": 1, "c5": 1, "c6": 1}  # kappa 0.25 against A (tests/test_semantic_relevance.py)


def blank_sheet(path: Path, kind: str = "relevance") -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        columns = RELEVANCE_COLUMNS if kind == "relevance" else VALIDATION_COLUMNS
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        for row, cluster in enumerate(A, start=1):
            if kind == "relevance":
                writer.writerow({"row": row, "cluster": cluster, "task": "t1", "question": "Why <b>?</b>",
                                 "label": f"label {cluster}", "exemplar_1": "\x1b[1mbold", "exemplar_2": "",
                                 "exemplar_3": "", "relevant": ""})
            else:
                writer.writerow({"row": row, "task": "t1", "question": "q", "answer_1": "a", "answer_2": "b",
                                 "same_meaning": ""})
    return path
