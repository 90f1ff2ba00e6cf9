"""The kill-switch itself: loopback passes, everything else is refused before any packet leaves."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import BlockedNetworkError


def test_non_loopback_connect_is_refused() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(BlockedNetworkError):
            sock.connect(("192.0.2.1", 443))  # TEST-NET-1: documentation range
    finally:
        sock.close()


def test_loopback_connect_is_allowed() -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        client.connect(server.getsockname())
        accepted, _ = server.accept()
        with accepted:
            client.sendall(b"ping")
            assert accepted.recv(4) == b"ping"  # a real connection: the guard let it through untouched
    finally:
        client.close()
        server.close()


def test_connect_ex_is_guarded_too() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(BlockedNetworkError):
            sock.connect_ex(("198.51.100.1", 443))  # TEST-NET-2: documentation range
    finally:
        sock.close()


async def test_httpx_to_a_public_host_is_refused() -> None:
    import httpx

    async with httpx.AsyncClient(trust_env=False) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("http://192.0.2.1/")
