"""A request that never got an answer, as an error that says why: the name did not resolve (DNS), TLS
failed, the connection failed or was reset, or GitHub did not answer in time — with the host, for the
run's diagnosis (:mod:`agent_core.diagnosis`)."""

from __future__ import annotations

import httpx

from agent_core.diagnosis import connection_cause
from agent_core.errors import TransientError

_CONNECTION_FAILED = {
    "dns": "GitHub could not be reached: its host name did not resolve (DNS)",
    "tls": "the secure connection to GitHub failed (TLS)",
    "network": "the connection to GitHub failed or was reset",
}


def transport_error(exc: httpx.TransportError, request: httpx.Request, *, requests: int) -> TransientError:
    """``exc`` (a timeout, a network or protocol error of ``request``) as a retryable error."""
    if isinstance(exc, httpx.TimeoutException):
        return TransientError(
            "GitHub did not answer in time",
            status=None,
            requests=requests,
            cause="timeout",
            host=request.url.host,
        )
    cause = connection_cause(exc)
    return TransientError(
        _CONNECTION_FAILED[cause], status=None, requests=requests, cause=cause, host=request.url.host
    )
