"""Model endpoints a stranger typed in: https to public addresses only, checked when connecting.

On a public Space a visitor may point the model at their own endpoint. Without a guard the server would
POST wherever they say (``http://127.0.0.1:PORT``, ``http://169.254.169.254``, a name whose DNS answer
changes between a check and the connection). So a visitor's endpoint is reached only through
:func:`guarded_client`, whose network backend (:class:`PublicOnlyBackend`)

1. resolves the host itself (:data:`Resolver`, injectable), once per connection,
2. refuses unless EVERY address is public (:func:`is_public`: no loopback, private, link-local, shared
   100.64/10, reserved, multicast or unspecified address, nor one hidden in an IPv4-mapped, NAT64, 6to4
   or Teredo IPv6 address),
3. connects to the address it checked (so a second DNS answer can never be used), TLS still verifying
   the host name.

Requests that are not ``https`` are refused before any connection; the hosts of the provider presets
are trusted as they are. :func:`check_visitor_url` is the early, static half of the same rule (what a
settings panel can say at once). The owner's own endpoint (``LLM_BASE_URL``) never goes through here.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore2
import httpx2

from agent_core.errors import ConfigurationError
from agent_core.settings import base_url_problem
from agent_core.words import t

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``(host, port) -> addresses``: how a host name becomes IP addresses (tests map names here)."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598): not the internet
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class BlockedEndpointError(httpcore2.ConnectError):
    """The endpoint's address is not public (or the request is not https): no connection was made."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's answer for ``host`` (every address, IPv4 and IPv6)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def _embedded(ip: IPAddress) -> IPAddress | None:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, Teredo), if any."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def is_public(ip: IPAddress) -> bool:
    """Whether ``ip`` is an ordinary address on the public internet."""
    inner = _embedded(ip)
    if inner is not None and not is_public(inner):
        return False
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED:
        return False
    flags = (ip.is_loopback, ip.is_private, ip.is_link_local, ip.is_reserved, ip.is_multicast)
    site_local = isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local
    return ip.is_global and not any(flags) and not ip.is_unspecified and not site_local


def check_visitor_url(url: str, *, trusted_hosts: Collection[str] = ()) -> None:
    """Raise ConfigurationError (its message in English, its ``zh`` in Chinese, naming the problem)
    unless ``url`` could be a visitor's endpoint: read strictly first (:func:`base_url_problem`: port,
    credentials, octal/hex/integer hosts, IPv6 forms), then https, and not a local name nor an address
    literal that is not public. (Names are checked again when connecting.)"""
    url = url.strip()
    problem = base_url_problem(url)
    if problem is not None:
        raise _refusal(problem[0], **problem[1])
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme != "https":
        raise _refusal("url_https")
    if host in trusted_hosts:
        return
    literal = _literal(host)
    if literal is None:
        if host == "localhost" or host.removesuffix(".").endswith((".localhost", ".local", ".internal")):
            raise _refusal("url_local", host=host[:80])
        return
    if not is_public(literal):
        raise _refusal("url_not_public", host=host[:80])


def _refusal(key: str, **values: str) -> ConfigurationError:
    error = ConfigurationError(t(key, "en", **values), hint=t("url_hint", "en"))
    error.zh = f"{t(key, 'zh', **values)}（{t('url_hint', 'zh')}）"
    return error


class PublicOnlyBackend(httpcore2.AsyncNetworkBackend):
    """Connects only to public addresses, to the very address it checked (see the module docstring)."""

    def __init__(
        self,
        *,
        resolver: Resolver,
        trusted_hosts: Collection[str] = (),
        inner: httpcore2.AsyncNetworkBackend | None = None,
    ) -> None:
        self._resolver = resolver
        self._trusted = frozenset(h.lower() for h in trusted_hosts)
        self._inner = inner or httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore2's interface
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        address = host if host.lower() in self._trusted else await self._checked_address(host, port)
        return await self._inner.connect_tcp(
            address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def _checked_address(self, host: str, port: int) -> str:
        try:
            answers = [host] if _literal(host) else await self._resolver(host, port)
        except OSError as exc:
            raise httpcore2.ConnectError(f"cannot resolve the model endpoint's host: {exc}") from exc
        addresses = [_literal(a) for a in answers]
        if not addresses or any(ip is None or not is_public(ip) for ip in addresses):
            raise BlockedEndpointError("the model endpoint does not resolve to public addresses only")
        return str(addresses[0])

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore2's interface
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise BlockedEndpointError("a model endpoint cannot be a Unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def _literal(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


class HttpsOnlyTransport(httpx2.AsyncHTTPTransport):
    """``httpx2.AsyncHTTPTransport`` over :class:`PublicOnlyBackend`, refusing anything but https."""

    def __init__(self, backend: PublicOnlyBackend, *, limits: httpx2.Limits) -> None:
        super().__init__(trust_env=False, limits=limits)
        # The transport builds its own pool; this one differs only in how it connects.
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=httpx2.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend,
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.scheme != "https":
            refusal = BlockedEndpointError("a visitor's model endpoint must use https")
            raise httpx2.ConnectError(str(refusal), request=request) from refusal
        return await super().handle_async_request(request)


def guarded_client(
    *,
    timeout: httpx2.Timeout,
    resolver: Resolver,
    trusted_hosts: Collection[str] = (),
    limits: httpx2.Limits | None = None,
    inner: httpcore2.AsyncNetworkBackend | None = None,
) -> httpx2.AsyncClient:
    """A client for visitors' endpoints: https only, to public addresses only, no proxy from the
    environment, no redirects."""
    limits = limits or httpx2.Limits(max_connections=50, max_keepalive_connections=10)
    backend = PublicOnlyBackend(resolver=resolver, trusted_hosts=trusted_hosts, inner=inner)
    return httpx2.AsyncClient(
        transport=HttpsOnlyTransport(backend, limits=limits),
        timeout=timeout,
        trust_env=False,
        follow_redirects=False,
    )


def blocked(exc: BaseException) -> bool:
    """Whether an error (or anything in its cause chain) is the guard's refusal."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, BlockedEndpointError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
