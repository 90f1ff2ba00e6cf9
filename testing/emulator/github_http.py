"""The emulator's HTTP/1.1 plumbing: its request handler, parsed requests and the conditional-request rules.

The emulator is served by :class:`testing.loopback.LoopbackServer`; its :class:`Handler` hands every
request (any method) to its :class:`Host` (the emulator) and writes the :class:`Response` it gets back.
:func:`parse_request` turns what the handler read into an :class:`Incoming` value; the token in an
``Authorization`` header is kept only there, never logged. :func:`etag_for` and :func:`etag_matches`
are the conditional-request rules (``If-None-Match``: weak comparison, ``*``).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from types import MappingProxyType
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from testing.emulator.github_values import Response

logger = logging.getLogger(__name__)


class Host(Protocol):
    """What the handler calls on the emulator (private to the emulator's modules)."""

    def _serve(self, handler: Handler) -> None: ...


@dataclass(frozen=True, kw_only=True)
class Incoming:
    method: str
    raw_path: str
    raw_query: str
    query: Mapping[str, str]
    decoded_path: str
    token: str | None
    client_ip: str
    user_agent: str | None
    accept: str
    if_none_match: str | None


class Handler(BaseHTTPRequestHandler):
    """Reads a request for the emulator and writes its answer; built per connection by the server."""

    protocol_version = "HTTP/1.1"
    server_version = "GitHub.com"
    sys_version = ""

    def __init__(self, request: Any, client_address: Any, server: Any, *, emulator: Host) -> None:
        self.emulator = emulator  # before super().__init__, which handles the connection
        super().__init__(request, client_address, server)

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)  # keep the connection usable for the next request
        self.emulator._serve(self)

    # Other methods get GitHub's answers too (404, or 307 for a renamed repository).
    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch  # noqa: N815

    def write(self, response: Response, headers: Sequence[tuple[str, str]]) -> None:
        self.send_response(response.status)
        for name, value in headers:
            self.send_header(name, value)
        if response.status != 304:
            self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if response.status != 304 and self.command != "HEAD":
            self.wfile.write(response.body)
        self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s " + format, self.address_string(), *args)


def parse_request(handler: Handler) -> Incoming:
    parts = urlsplit(handler.path)
    authorization = handler.headers.get("Authorization") or ""
    scheme, _, credential = authorization.strip().partition(" ")
    token = credential.strip() if scheme.lower() in {"bearer", "token"} and credential.strip() else None
    return Incoming(
        method=handler.command,
        raw_path=parts.path,
        raw_query=parts.query,
        query=MappingProxyType(dict(parse_qsl(parts.query, keep_blank_values=True))),
        decoded_path=unquote(parts.path),
        token=token,
        client_ip=str(handler.client_address[0]),
        user_agent=handler.headers.get("User-Agent") or None,
        accept=handler.headers.get("Accept") or "",
        if_none_match=handler.headers.get("If-None-Match"),
    )


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak comparison) or is ``*``."""
    if not header:
        return False
    opaque = etag.removeprefix("W/")
    return any(tag.strip() == "*" or tag.strip().removeprefix("W/") == opaque for tag in header.split(","))


def etag_for(response: Response) -> str:
    """A strong or weak (``W/``) ETag over the body, as ``response.weak_etag`` says."""
    digest = hashlib.sha256(response.body).hexdigest()
    return f'W/"{digest}"' if response.weak_etag else f'"{digest}"'


def plain_headers(response: Response) -> list[tuple[str, str]]:
    """``Content-Type`` (if any) and the response's own headers: all a front-end answer carries."""
    headers = list(response.headers)
    if response.content_type:
        headers.insert(0, ("Content-Type", response.content_type))
    return headers
