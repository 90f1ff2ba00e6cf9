"""Issue 35, class 3 across replicas: with ``REDIS_URL`` a visitor's upload budget is one, whichever
replica the uploads reach, against a real ``redis-server`` on 127.0.0.1 (skipped, with the reason, when
it is not installed). Windows move on a :class:`FakeClock`, never the wall clock."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_core.settings import Settings
from agent_core.shared_state import SharedState
from agent_core.web.queue_gate import (
    UPLOAD_BYTES_PER_HOUR,
    QueueGate,
    SharedUploadBudget,
    UploadBudget,
    upload_budget,
)
from testing.app import running_app
from testing.clock import FakeClock
from testing.redis_server import RedisServer, redis_server_path

MIB = 1024 * 1024
_BINARY = redis_server_path()
pytestmark = pytest.mark.skipif(
    _BINARY is None, reason="redis-server is not installed (apt-get install redis-server)"
)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    assert _BINARY is not None
    server = RedisServer(_BINARY)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def states(redis_server: RedisServer) -> Iterator[list[SharedState]]:
    built: list[SharedState] = []
    yield built
    for state in built:
        state.close()


async def _upload(gate: QueueGate, address: str, length: int) -> int:
    headers = [(b"x-forwarded-for", address.encode()), (b"content-length", str(length).encode())]
    scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload", "headers": headers}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await gate(scope | {"client": ("10.0.0.2", 1)}, receive, send)
    return int(sent[0]["status"])


async def _accepted(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"[]"})


async def test_two_replicas_count_one_visitors_uploads_in_one_budget(
    redis_server: RedisServer, states: list[SharedState]
) -> None:
    clock = FakeClock()
    gates = []
    for _ in range(2):  # two replicas: each its own connection and gate, one Redis
        state = SharedState.from_url(redis_server.url, clock=clock)
        states.append(state)
        budget = upload_budget(state, clock=clock)
        assert isinstance(budget, SharedUploadBudget)
        gates.append(QueueGate(_accepted, uploads=budget, clock=clock))
    one, two = gates
    assert await _upload(one, "203.0.113.9", 15 * MIB) == 200
    assert await _upload(two, "203.0.113.9", 10 * MIB) == 200  # 25 MiB over both: the budget, exactly
    assert await _upload(one, "203.0.113.9", 1) == 413
    assert await _upload(two, "203.0.113.9", 1) == 413
    assert await _upload(two, "198.51.100.2", 5 * MIB) == 200  # another visitor has their own
    assert two.uploads.used(one.key(_scope("203.0.113.9"))) == UPLOAD_BYTES_PER_HOUR
    clock.advance(3601)
    assert await _upload(two, "203.0.113.9", 5 * MIB) == 200  # the window slides, in Redis too


async def test_uploads_are_refused_while_redis_cannot_count_them(
    redis_server: RedisServer, states: list[SharedState]
) -> None:
    clock = FakeClock()
    state = SharedState.from_url(redis_server.url, clock=clock)
    states.append(state)
    gate = QueueGate(_accepted, uploads=upload_budget(state, clock=clock), clock=clock)
    assert await _upload(gate, "203.0.113.9", MIB) == 200
    redis_server.stop()
    assert await _upload(gate, "203.0.113.9", MIB) == 413  # fails closed: nothing uncounted


def test_without_shared_state_the_budget_is_this_process_own() -> None:
    assert isinstance(upload_budget(None, clock=FakeClock()), UploadBudget)


def test_the_visitor_handles_kept_are_capped(redis_server: RedisServer, states: list[SharedState]) -> None:
    clock = FakeClock()
    state = SharedState.from_url(redis_server.url, clock=clock)
    states.append(state)
    budget = SharedUploadBudget(state, 10, clock=clock, max_keys=3)
    for n in range(5):
        assert budget.take(f"ip:203.0.113.{n}", 10)
    assert len(budget._quotas) == 3
    assert not budget.take("ip:203.0.113.0", 1)  # forgotten handle, remembered count: Redis holds it


def _scope(address: str) -> dict[str, Any]:
    return {"headers": [(b"x-forwarded-for", address.encode())], "client": ("10.0.0.2", 1)}


@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")
def test_two_served_replicas_share_one_visitors_upload_budget(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    body = b"x" * (5 * MIB - 4096)  # under the per-file cap (MAX_UPLOAD_MB=5)
    statuses = []
    with contextlib.ExitStack() as stack:
        urls = []
        for n in range(2):
            env = {
                "SPACE_ID": "a/b",
                "CACHE_DIR": str(tmp_path / f"r{n}"),
                "LOG_LEVEL": "ERROR",
                "REDIS_URL": redis_server.url,
            }
            urls.append(stack.enter_context(running_app(Settings.from_env(env, dotenv_path=None))))
        for n in range(6):  # alternating replicas, as a load balancer would send them
            with httpx.Client(base_url=urls[n % 2], timeout=60) as http:
                answer = http.post(
                    "gradio_api/upload",
                    files={"files": (f"f{n}.jsonl", body)},
                    headers={"x-forwarded-for": "203.0.113.9"},
                )
                statuses.append(answer.status_code)
    assert statuses == [200, 200, 200, 200, 200, 413]  # 25 MiB in all, whichever replica took them
