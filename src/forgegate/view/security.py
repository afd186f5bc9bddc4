"""What keeps the view safe to run: the host check, the access token, cross-site-request protection, headers.

- Bound to a loopback address, a request must name that host (a page on another site
  that rebinds its DNS name to 127.0.0.1 is refused).
- With a token (required off loopback), every request carries it: once as ``?token=``
  (the page then keeps it in an HttpOnly, SameSite=Strict cookie) or as a bearer header.
- Every form that writes carries a per-browser random token in a hidden field that must
  equal the SameSite=Strict cookie holding it; a request from another site has neither.
- A Content-Security-Policy allows scripts, styles and fetches from this server only:
  the page loads nothing from the network and runs no inline script.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, urlencode

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

    async def dispatch(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = self._refusal(request)
        if response is None:
            csrf = request.cookies.get(CSRF_COOKIE)
            fresh = csrf is None or len(csrf) < 20
            request.state.csrf = new_token() if fresh else csrf
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
            redirect = RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), status_code=303)
            redirect.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict", path="/")
            return redirect
        bearer = request.headers.get("authorization", "")
        if _same(request.cookies.get(TOKEN_COOKIE), self.token) or _same(bearer.removeprefix("Bearer "), self.token):
            return None
        return PlainTextResponse("this forgegate view needs its access token: open the address with ?token=... "
                                 "that `forgegate view` printed", status_code=401)


async def verified_form(request: Request) -> dict[str, str]:
    """The fields of a form POST, after checking its CSRF token against the cookie (Refused 403 if not)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "forms are sent as application/x-www-form-urlencoded")
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise Refused(413, f"form larger than {MAX_FORM_BYTES} bytes")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise Refused(400, "form is not UTF-8") from None
    fields = {key: values[-1] for key, values in parsed.items()}
    if not _same(request.cookies.get(CSRF_COOKIE), fields.get(CSRF_FIELD)):
        raise Refused(403, "this form did not come from this forgegate view (its cross-site-request token is "
                           "missing or wrong): reload the page and send it again")
    return fields
