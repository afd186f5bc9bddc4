"""What keeps the view safe to run: the host check, the access token, cross-site-request protection, headers.

- Bound to a loopback address, a request must name that host (a page on another site
  that rebinds its DNS name to 127.0.0.1 is refused).
- With a token (required off loopback), every request carries it: once as ``?token=``
  (the page then keeps it in an HttpOnly, SameSite=Strict cookie) or as a bearer header.
- Every form that writes carries a cross-site-request token the server issued: a random nonce
  and its HMAC under a secret made when the view starts, in a hidden field that must equal the
  SameSite=Strict cookie holding it. A request from another site has neither, and a pair the
  client made up (an empty one included) fails the HMAC.
- A token-mode redirect goes to a path on this server only (``//evil.com`` becomes ``/evil.com``).
- A form body is read up to ``MAX_FORM_BYTES`` and no further (413): a huge POST is never buffered.
- A Content-Security-Policy allows scripts, styles and fetches from this server only:
  the page loads nothing from the network and runs no inline script.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, quote, urlencode

from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp

TOKEN_COOKIE = "fg_token"
CSRF_COOKIE = "fg_csrf"
CSRF_FIELD = "csrf"
MAX_FORM_BYTES = 64 * 1024
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'"
"""A report page from forgegate.report: its own inline CSS, still no script and nothing from the network."""
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "Cache-Control": "no-store"}


class Refused(Exception):
    """A request the view will not serve: the status and a sentence that says why and what to do."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def new_token() -> str:
    return secrets.token_urlsafe(24)


def _csrf_mac(key: bytes, nonce: str) -> str:
    return hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()[:32]


def issue_csrf(key: bytes) -> str:
    """A cross-site-request token only this server could have made: ``nonce.HMAC(key, nonce)``."""
    nonce = secrets.token_urlsafe(18)
    return f"{nonce}.{_csrf_mac(key, nonce)}"


def csrf_is_ours(key: bytes, token: str | None) -> bool:
    """Whether ``token`` was issued by ``issue_csrf`` under ``key`` (an empty or made-up one is not)."""
    if not token or token.count(".") != 1:
        return False
    nonce, mac = token.split(".")
    return bool(nonce) and _same(mac, _csrf_mac(key, nonce))


_LEADING_SLASHES = re.compile(r"^[/\\]+")


def local_path(path: str) -> str:
    """``path`` as a redirect target on this server: one leading ``/`` (``//evil.com/x`` would name another
    host, and so would ``/\\evil.com`` to a browser), the rest percent-encoded."""
    return "/" + quote(_LEADING_SLASHES.sub("", path), safe="/:@!$&'()*+,;=-._~")


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and hmac.compare_digest(a.encode(), b.encode())


def _host_name(host_header: str) -> str:
    if host_header.startswith("["):
        return host_header.split("]")[0] + "]"
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


class Guard(BaseHTTPMiddleware):
    """Host check, token, CSRF cookie and security headers around every request."""

    def __init__(self, app: ASGIApp, *, token: str | None, allowed_hosts: frozenset[str] | None) -> None:
        super().__init__(app)
        self.token = token
        self.allowed_hosts = allowed_hosts
        self.csrf_key = secrets.token_bytes(32)
        """The server secret behind every cross-site-request token; made anew each time the view starts."""

    async def dispatch(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = self._refusal(request)
        if response is None:
            csrf = request.cookies.get(CSRF_COOKIE)
            fresh = not csrf_is_ours(self.csrf_key, csrf)
            request.state.csrf = issue_csrf(self.csrf_key) if fresh else csrf
            request.state.csrf_key = self.csrf_key
            response = await call_next(request)
            if fresh:
                response.set_cookie(CSRF_COOKIE, request.state.csrf, httponly=True, samesite="strict", path="/")
        for name, value in HEADERS.items():
            if name not in response.headers:  # a report page sets its own (still script-free) policy
                response.headers[name] = value
        return response

    def _refusal(self, request: Request) -> Response | None:
        host = _host_name(request.headers.get("host", ""))
        if self.allowed_hosts is not None and host not in self.allowed_hosts:
            return PlainTextResponse(f"host '{host}' is not served here: open the address forgegate view printed",
                                     status_code=400)
        if self.token is None:
            return None
        given = request.query_params.get("token")
        if given is not None and _same(given, self.token):  # keep it in a cookie, drop it from the address
            rest = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
            redirect = RedirectResponse(local_path(request.url.path) + (f"?{rest}" if rest else ""), status_code=303)
            redirect.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict", path="/")
            return redirect
        bearer = request.headers.get("authorization", "")
        if _same(request.cookies.get(TOKEN_COOKIE), self.token) or _same(bearer.removeprefix("Bearer "), self.token):
            return None
        return PlainTextResponse("this forgegate view needs its access token: open the address with ?token=... "
                                 "that `forgegate view` printed", status_code=401)


async def capped_body(request: Request, limit: int) -> bytes:
    """The request body, read chunk by chunk and refused (413) as soon as it passes ``limit`` bytes: a
    300 MB POST costs at most ``limit`` bytes of memory, never the whole body."""
    too_big = Refused(413, f"form larger than {limit} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise too_big
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_big
    return bytes(body)


async def verified_form(request: Request) -> dict[str, str]:
    """The fields of a form POST, after checking its CSRF token against the cookie (Refused 403 if not)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "forms are sent as application/x-www-form-urlencoded")
    body = await capped_body(request, MAX_FORM_BYTES)
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise Refused(400, "form is not UTF-8") from None
    fields = {key: values[-1] for key, values in parsed.items()}
    cookie, key = request.cookies.get(CSRF_COOKIE), getattr(request.state, "csrf_key", b"")
    if not (key and csrf_is_ours(key, cookie) and _same(cookie, fields.get(CSRF_FIELD))):
        raise Refused(403, "this form did not come from this forgegate view (its cross-site-request token is "
                           "missing or wrong): reload the page and send it again")
    return fields
