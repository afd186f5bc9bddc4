"""The one verifying TLS context (issue 45): what httpx builds for ``verify=True``, its CA bundle read at the first
handshake rather than when a client is built (an ``http://`` server, the usual local one, never handshakes)."""

from __future__ import annotations

import ssl
import sys

import certifi
import httpx
import pytest

from forgegate.backends import _http
from forgegate.backends._http import tls_context


def _fresh() -> ssl.SSLContext:
    tls_context.cache_clear()
    try:
        return tls_context()
    finally:
        tls_context.cache_clear()


def test_the_context_verifies_as_httpx_s_own_once_it_handshakes() -> None:
    ours, theirs = _fresh(), httpx.create_ssl_context()
    assert ours.cert_store_stats()["x509_ca"] == 0  # nothing read yet
    for setting in ("verify_mode", "check_hostname", "options", "minimum_version", "maximum_version",
                    "verify_flags", "protocol"):
        assert getattr(ours, setting) == getattr(theirs, setting), setting
    ours.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")  # what asyncio and anyio call
    assert ours.cert_store_stats() == theirs.cert_store_stats()
    assert ours.get_ca_certs() == theirs.get_ca_certs() != []


def test_a_socket_handshake_reads_the_bundle_too() -> None:
    import socket

    ours = _fresh()
    left, right = socket.socketpair()
    with left, right, ours.wrap_socket(left, server_hostname="example.org", do_handshake_on_connect=False):
        assert ours.cert_store_stats()["x509_ca"] > 0


@pytest.mark.parametrize(("env", "expected"), [
    ({"SSL_CERT_FILE": "/some/ca.pem", "SSL_CERT_DIR": "/some/dir"}, {"cafile": "/some/ca.pem"}),
    ({"SSL_CERT_DIR": "/some/dir"}, {"capath": "/some/dir"}),
    ({}, {"cafile": certifi.where()}),
])
def test_the_bundle_is_where_httpx_reads_it(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                            expected: dict[str, str]) -> None:
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _http._ca_locations() == expected


def test_an_http_eval_reads_no_bundle() -> None:
    """A client for an ``http://`` server builds, and the context stays unread (the tenth of a stored eval)."""
    import subprocess

    code = ("from forgegate.backends._http import make_client, tls_context\n"
            "make_client(5.0)\n"
            "print(tls_context().cert_store_stats()['x509_ca'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "0"
