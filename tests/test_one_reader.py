"""Issue 46, deliverable 3: one bounded reader for every file a user gives forgegate and one for everything a
server sends it, and no read that goes round them.

- files: ``forgegate.jsonio.read_bytes_or_input_error`` / ``read_text_or_input_error`` (a regular file only, opened
  without blocking, at most ``MAX_USER_FILE_BYTES`` or ``MAX_CORPUS_FILE_BYTES``, UTF-8 with a BOM dropped);
- servers: ``forgegate.backends._body`` (size ``MAX_SERVER_BODY_BYTES``, the ``--timeout`` deadline, JSON depth),
  and for streams ``_http``'s line readers (a line at most ``MAX_STREAM_LINE_BYTES``, the stream in ``stream_at``'s
  deadline and the client-side cap).

The scan parses every module under ``src/forgegate`` and lists each call that reads a file or a server's body by
itself: ``.read_text()``, ``.read_bytes()``, ``open()`` / ``Path.open()`` / ``os.open()`` for reading,
``json.loads`` / ``json.load``, ``.json()``, ``.aread()`` and the ``aiter_*`` body iterators, and the HTTP verbs of a
client (``client.get`` reads the whole body, no bound). Each must be in :data:`ALLOWED` with the reason it may;
a new one fails this test with its file, function and line, and is fixed by using the reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "forgegate"

_SERVER_BODY = {"aread", "aiter_lines", "aiter_bytes", "aiter_raw", "iter_lines", "iter_bytes", "read"}
_HTTP_VERBS = {"get", "post", "put", "request", "stream", "send"}
_WRITE_MODES = ("w", "a", "x")
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT")

HEADER = "reads a few header bytes of a file checked as a regular file (is_file) first: bounded, never a pipe"
HASHED = "streams a regular file (checked by the caller) into a hash in 1 MiB blocks, never holding it whole"
PACKAGED = "reads forgegate's own package data, not a file a user names"
STORED = "parses a value forgegate itself wrote into its SQLite run store (bounded by what it wrote), not an input"
BODY_JSON = "Body.json(): the bounded reader's own parse of a body it read within the bounds"

ALLOWED: dict[tuple[str, str, str], str] = {
    # the two readers themselves
    ("jsonio.py", "read_bytes_or_input_error", "os.open()"): "the one reader of user files",
    ("jsonio.py", "parse_json_strict", "json.loads()"): "the strict JSON parser every reader hands its text to",
    ("backends/_body.py", "read_limited", ".aiter_bytes()"): "the one reader of server bodies (size)",
    ("backends/_body.py", "read_prefix", ".aiter_bytes()"): "the one reader of an error body (a bounded prefix)",
    ("backends/_body.py", "request_whole", "client.stream()"): "the one reader of server bodies (time, size)",
    ("backends/_http.py", "stream_at", "client.stream()"):
        "a streamed answer: under stream_at's deadline and the client-side cap, each line bounded",
    ("backends/_http.py", "iter_ndjson", ".aiter_bytes()"): "NDJSON stream lines, each at most MAX_STREAM_LINE_BYTES",
    ("backends/_http.py", "_body_chunks", ".aiter_raw()"): "SSE stream lines, each at most MAX_STREAM_LINE_BYTES",
    ("backends/_http.py", "_body_chunks", ".aiter_bytes()"): "SSE stream lines, each at most MAX_STREAM_LINE_BYTES",
    # parses of bodies the reader read
    ("backends/_tokencount.py", "ServerTokenizer._tokens", ".json()"): BODY_JSON,
    ("backends/openai.py", "OpenAIBackend._model_name", ".json()"): BODY_JSON,
    ("backends/preflight.py", "_json", ".json()"): BODY_JSON,
    ("backends/served.py", "served_models", ".json()"): BODY_JSON,
    # header bytes and hashes of checked regular files
    ("backends/embedded.py", "gguf_problem", ".open()"): HEADER,
    ("training/checkpoint_files.py", "weight_file_problem", ".open()"): HEADER,
    ("run/judge_requests.py", "refuse_legacy_cache", ".open()"): HEADER,
    ("backends/embedded.py", "hash_file", "open()"): HASHED,
    ("backends/transformers_backend.py", "weights_digest", ".open()"): HASHED,
    ("plan/inputs.py", "sha256_file", ".open()"): HASHED,
    # package data, the machine, forgegate's own files
    ("lineage/graduation.py", "spec_live_sha256", ".read_bytes()"): PACKAGED,
    ("view/app.py", "_static", ".read_text()"): PACKAGED,
    ("backends/embedded_pool.py", "read_cpu_seconds", "open()"): "the kernel's /proc/stat (one line), not an input",
    ("backends/managed.py", "log_tail", ".read_text()"):
        "the log forgegate wrote for a server it started itself, read to show its last lines on a failed start",
    ("backends/managed.py", "ManagedServer.wait_healthy", "httpx.get()"):
        "the health route of a server forgegate started itself, 2 s per try, only its status read",
    ("backends/embedded.py", "EmbeddedBackend.__init__", ".open()"): "ModelPool.open: a model lease, not a file",
    ("results/record_file.py", "_fsync_dir", "os.open()"): "opens a folder to fsync it after an append; reads nothing",
    ("store/run_meta.py", "RunMeta.from_rows", "json.loads()"): STORED,
    ("store/runstore.py", "_extra", "json.loads()"): STORED,
    ("store/runstore.py", "RunStore._to_stored", "json.loads()"): STORED,
}


def _is_write(call: ast.Call) -> bool:
    """``open(path, "w")`` / ``path.open("a")`` / ``os.open(path, os.O_WRONLY ...)``: a write, not a read."""
    text = " ".join(ast.unparse(arg) for arg in [*call.args, *(k.value for k in call.keywords)])
    modes = [a.value for a in [*call.args, *(k.value for k in call.keywords)]
             if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return any(flag in text for flag in _WRITE_FLAGS) or any(m and m[0] in _WRITE_MODES for m in modes)


def _kind(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return "open()" if func.id == "open" and not _is_write(call) else None
    if not isinstance(func, ast.Attribute):
        return None
    receiver, name = ast.unparse(func.value), func.attr
    if name in ("read_text", "read_bytes"):
        return f".{name}()"
    if name == "open" and receiver == "os":
        return None if _is_write(call) else "os.open()"
    if name == "open" and receiver not in ("RunStore", "cls") and not _is_write(call):
        return ".open()"
    if receiver == "json" and name in ("loads", "load"):
        return f"json.{name}()"
    if name == "json" and not call.args:
        return ".json()"
    if name in _SERVER_BODY and "response" in receiver.lower():
        return f".{name}()"
    if name in _HTTP_VERBS and (receiver == "httpx" or "client" in receiver.lower()):
        return f"{receiver.rsplit('.', 1)[-1]}.{name}()"
    return None


def reads(path: Path, root: Path = ROOT) -> list[tuple[str, str, str, int]]:
    """(module, function, kind, line) of every read call in the module at ``path`` (named relative to ``root``)."""
    rel = path.relative_to(root).as_posix()
    found: list[tuple[str, str, str, int]] = []
    scope: list[str] = []

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
            scope.append(node.name)
            self.generic_visit(node)
            scope.pop()

        visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

        def visit_Call(self, node: ast.Call) -> None:
            kind = _kind(node)
            if kind is not None:
                found.append((rel, ".".join(scope) or "<module>", kind, node.lineno))
            self.generic_visit(node)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def all_reads() -> list[tuple[str, str, str, int]]:
    return [hit for path in sorted(ROOT.rglob("*.py")) for hit in reads(path)]


def test_no_module_reads_a_file_or_a_server_body_round_the_two_bounded_readers() -> None:
    stray = [f"src/forgegate/{rel}:{line} in {func}: {kind}" for rel, func, kind, line in all_reads()
             if (rel, func, kind) not in ALLOWED]
    assert not stray, ("reads that bypass the bounded readers (use forgegate.jsonio.read_bytes_or_input_error / "
                       "read_text_or_input_error for a file, forgegate.backends._body for a server; or add the call "
                       "to ALLOWED with the reason it may):\n" + "\n".join(stray))


def test_every_allowed_read_still_exists_so_the_list_cannot_rot() -> None:
    present = {(rel, func, kind) for rel, func, kind, _ in all_reads()}
    assert not [key for key in ALLOWED if key not in present]


def test_the_scan_finds_each_kind_of_read_it_names(tmp_path: Path) -> None:
    """The scan itself, on a module written to bypass the readers in every way it looks for (so that a scan
    that finds nothing is a clean tree, not a blind scan)."""
    module = tmp_path / "probe.py"
    source = ("import json, os, httpx\n"
              "def f(path, response, client):\n"
              "    path.read_text(); path.read_bytes(); open(path); path.open('rb'); os.open(path, os.O_RDONLY)\n"
              "    json.loads(response.text); response.json(); response.aread(); response.aiter_lines()\n"
              "    client.get('u'); httpx.post('u')\n"
              "    open(path, 'w'); path.open('a'); os.open(path, os.O_WRONLY)\n")
    module.write_text(source, encoding="utf-8")
    kinds = sorted(kind for _, _, kind, _ in reads(module, tmp_path))
    assert kinds == sorted([".read_text()", ".read_bytes()", "open()", ".open()", "os.open()", "json.loads()",
                            ".json()", ".aread()", ".aiter_lines()", "client.get()", "httpx.post()"])
