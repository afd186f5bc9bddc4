"""Starting the view: the host and token rules, binding the port (a clear error when it is taken), uvicorn."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

import uvicorn

from forgegate.errors import UsageError
from forgegate.results.read import read_result_json
from forgegate.view.app import ViewConfig, create_app
from forgegate.view.security import LOOPBACK_NAMES, new_token
from forgegate.view.sheets import load_sheet

AUTO_TOKEN = "auto"
"""``--token auto``: make a random token and print it in the address."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def access(host: str, token: str | None) -> tuple[str | None, frozenset[str] | None]:
    """The token the server requires and the Host names it answers, for a server bound to ``host``.

    Loopback: no token needed, and only loopback names are answered (no DNS rebinding).
    Any other address: refused without a token, since anyone who can reach it could read
    every answer in the store and record reviews.
    """
    if token == AUTO_TOKEN:
        token = new_token()
    if token is not None and len(token) < 16:
        raise UsageError("--token must be at least 16 characters (or `--token auto` for a random one)")
    if is_loopback(host):
        return token, LOOPBACK_NAMES
    if token is None:
        raise UsageError(f"--host {host} would let anyone who can reach this machine read the run store and record "
                         "reviews: pass --token SECRET (16+ characters) or --token auto to print a random one, or "
                         "leave --host at 127.0.0.1")
    return token, None


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port; a port in use is a UsageError (exit 2) that says what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on {host} is already in use (another forgegate view or another "
                             "server): pass --port N with a free port, or --port 0 to take any free one") from None
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


def serve(config: ViewConfig, host: str, port: int, announce: Callable[[str], None]) -> None:
    """Serve ``config`` on host:port until Ctrl-C; ``announce`` gets the address to open (with the token)."""
    sock = bind(host, port)
    actual = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    announce(f"http://{shown}:{actual}/" + (f"?token={config.token}" if config.token else ""))
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning", lifespan="off",
                                           access_log=False))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def view_config(store_dir: Path, lineage: Sequence[Path], host: str, token: str | None, *,
                sheets: Sequence[Path] = (), author: str | None = None, results: Sequence[Path] = ()) -> ViewConfig:
    """The config for ``forgegate view``: the host and token rules applied, every file named checked."""
    required, hosts = access(host, token)
    for path in lineage:
        if not path.is_file():
            raise UsageError(f"--lineage {path}: no such file (the file `forgegate graduate` appends to)")
    for path in sheets:
        load_sheet(path)  # refuses a missing file or one that is not an exported sheet, now rather than on a page
    for path in results:
        read_result_json(path)  # the same: a bad result file is refused at the start
    return ViewConfig(store_dir, lineage_files=tuple(lineage), sheets=tuple(sheets), results=tuple(results),
                      author=author.strip() if author else None, token=required, allowed_hosts=hosts)
