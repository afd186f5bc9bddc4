"""Credentials a URL may carry (``http://user:secret@host``, ``?api_key=...``), hidden before any text is kept.

A ``--base-url`` with credentials in it works (httpx sends its user and password as Basic auth), but the run
store, its errors and its notes are files a user shares, and a password kept there is a password given away. The
store passes every text it writes through :func:`hide_credentials`, and the backends' redactors hide the same
parts of the URLs they were given from their error messages.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/?#\s@\"']+@")
_SECRET_QUERY = re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|password|secret|auth)=)[^&#\s\"']*")
HIDDEN = "***"


def hide_credentials(text: str) -> str:
    """``text`` with the user information of every URL in it and the values of secret-looking query parameters
    replaced by ``***`` (``http://u:p@h/v1?key=k`` -> ``http://***@h/v1?key=***``)."""
    if "://" not in text:
        return text
    return _SECRET_QUERY.sub(rf"\1{HIDDEN}", _USERINFO.sub(rf"\1{HIDDEN}@", text))


def url_secrets(url: str) -> tuple[str, ...]:
    """The parts of ``url`` that are secrets (its user information, raw and decoded), for a redactor."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    found = [p for p in (parts.username, parts.password) if p]
    raw = parts.netloc.rpartition("@")[0]
    found += [raw] if raw else []
    return tuple(dict.fromkeys(s for part in found for s in (part, unquote(part)) if len(s) >= 3))
