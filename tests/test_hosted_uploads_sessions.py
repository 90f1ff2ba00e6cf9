"""Issue 35, classes 3 and 7: uploads are budgeted per visitor and deleted, and an idle fresh session
costs a few KiB (Gradio's record of it computed the whole page's config: 144-190 KiB each)."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from gradio.state_holder import StateHolder

from agent_core.clock import SystemClock
from agent_core.settings import Settings
from agent_core.web.app import build_app
from agent_core.web.browser_session import BrowserSession
from agent_core.web.queue_gate import DELETE_CACHE, UPLOAD_BYTES_PER_HOUR, QueueGate
from agent_core.web.sessions import GRADIO_SESSIONS, LightSessionState, lighten
from testing.app import release_gradio_loops, running_app
from testing.clock import FakeClock

MIB = 1024 * 1024
# Gradio 6.31 leaks event loops from its server threads and its queue monitor warns about pandas options:
# neither is ours (as in tests/test_security_suite.py).
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]


@pytest.fixture(autouse=True)
def _no_analytics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")


class Inner:
    """The app behind the gate: counts what reaches it."""

    def __init__(self) -> None:
        self.reached = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.reached += 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"[]"})


async def post(gate: QueueGate, address: str, length: int | None, path: str = "/gradio_api/upload") -> int:
    headers = [(b"x-forwarded-for", address.encode())]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {"type": "http", "method": "POST", "path": path, "headers": headers, "client": ("10.0.0.2", 1)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await gate(scope, receive, send)
    return int(sent[0]["status"])


async def test_uploads_past_a_visitors_hourly_budget_are_refused_before_a_byte_is_read() -> None:
    clock = FakeClock()
    inner = Inner()
    gate = QueueGate(inner, clock=clock)
    assert await post(gate, "203.0.113.9", 5 * MIB) == 200
    assert await post(gate, "203.0.113.9", 20 * MIB) == 200  # 25 MiB: the hour's budget, exactly
    assert await post(gate, "203.0.113.9", 1) == 413
    assert await post(gate, "203.0.113.9", None) == 413  # chunked: no length, no upload
    assert await post(gate, "203.0.113.9", 1, "/gradio_api/component_server") == 413  # files there too
    assert await post(gate, "198.51.100.2", 5 * MIB) == 200  # another visitor has their own
    assert inner.reached == 3
    clock.advance(3601)
    assert await post(gate, "203.0.113.9", 5 * MIB) == 200  # the window slides
    assert UPLOAD_BYTES_PER_HOUR <= 50 * MIB


def test_the_app_deletes_uploads_and_caps_what_gradio_remembers(tmp_path: Path) -> None:
    settings = Settings.from_env({"SPACE_ID": "a/b", "CACHE_DIR": str(tmp_path)}, dotenv_path=None)
    demo = build_app(settings)
    release_gradio_loops()  # Gradio leaves an event loop per lock it made: closed now, not at a later gc
    assert demo.delete_cache == DELETE_CACHE
    frequency, age = DELETE_CACHE
    assert frequency + age <= 3600  # no upload outlives the budget's hour: disk per visitor <= the budget


def test_a_served_space_refuses_uploads_over_the_budget(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {"SPACE_ID": "a/b", "CACHE_DIR": str(tmp_path), "LOG_LEVEL": "ERROR"}, dotenv_path=None
    )
    body = b"x" * (5 * MIB - 4096)  # under the per-file cap (MAX_UPLOAD_MB=5)
    with running_app(settings) as url, httpx.Client(base_url=url, timeout=60) as http:
        headers = {"x-forwarded-for": "203.0.113.9"}
        statuses = [
            http.post(
                "gradio_api/upload", files={"files": (f"t{i}.jsonl", body)}, headers=headers
            ).status_code
            for i in range(6)
        ]
        other = http.post(
            "gradio_api/upload",
            files={"files": ("t.jsonl", b"{}")},
            headers={"x-forwarded-for": "198.51.100.2"},
        )
    assert statuses == [200] * 5 + [413]
    assert other.status_code == 200


def _fresh_session_bytes(holder: StateHolder, state_id: int, settings: Settings, count: int) -> float:
    """What ``count`` fresh sessions hold: Gradio's record of each and the page's state a first request
    gives it (the BrowserSession the load handler makes)."""
    holder["warm"]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for i in range(count):
        holder[f"s{i}"][state_id] = BrowserSession(settings, clock=SystemClock())
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    return sum(s.size_diff for s in after.compare_to(before, "filename")) / count


def test_an_idle_fresh_session_holds_under_50_kib(tmp_path: Path) -> None:
    settings = Settings.from_env({"SPACE_ID": "a/b", "CACHE_DIR": str(tmp_path)}, dotenv_path=None)
    demo = build_app(settings)
    release_gradio_loops()  # Gradio leaves an event loop per lock it made: closed now, not at a later gc
    state_id = next(k for k, b in demo.blocks.items() if type(b).__name__ == "State")
    plain = StateHolder()
    plain.set_blocks(demo)
    light = StateHolder()
    light.set_blocks(demo)
    lighten(SimpleNamespace(state_holder=light))
    assert light.capacity == GRADIO_SESSIONS
    before, after = (_fresh_session_bytes(h, state_id, settings, 60) for h in (plain, light))
    assert after <= 50 * 1024 < before, (before, after)
    # what Gradio reads of a session still works: a block's config when asked, all of them for a deep link
    session = light["s0"]
    assert isinstance(session, LightSessionState)
    assert len(list(session.components)) == len(list(plain["s0"].components))
    session._update_value_in_config(state_id, None)
