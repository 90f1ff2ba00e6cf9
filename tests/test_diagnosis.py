"""Failures name their cause and the next step: no network (connection refused, DNS, TLS), a rate limit
with its reset time, a repository that is missing or private, a model that is unreachable or refuses the
key — each diagnosed where it happens, carried by the events, and said in English and Chinese.

Real sockets throughout: a closed loopback port refuses, a plain-HTTP listener fails a TLS handshake;
only the name lookup is simulated, at the HTTP transport seam (this machine has no resolver to fail).
"""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from agent_core import events as ev
from agent_core.diagnosis import connection_cause, explain
from agent_core.event_json import dump_events, load_events
from agent_core.github.http import GitHubHTTP
from agent_core.top.services import Services
from agent_core.top.wiring import new_board, open_analysis
from testing.analysis import make_settings, run_once
from testing.app import free_port
from testing.clock import FakeClock
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn
from testing.github import WIDGETS, make_toolbox


async def test_a_closed_port_is_a_network_failure_with_a_way_out(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    port = free_port()  # nothing listens there: every connection is refused
    settings = make_settings(emulator, tmp_path, github_api_url=f"http://127.0.0.1:{port}")
    run = await run_once(settings, clock=FakeClock())  # backoff without waiting
    failed = run.events[-1]
    assert isinstance(failed, ev.RunFailed), run.kinds
    assert failed.diagnosis == ev.Diagnosis(cause="network", source="github", host="127.0.0.1")
    assert "the connection to 127.0.0.1 failed" in failed.message
    assert "analyse a local path" in (failed.hint or "")
    assert "temporarily disabled" not in failed.message  # the symptom is not the explanation
    chinese = explain(failed.diagnosis, "zh")
    assert "无法连接 GitHub" in chinese.what and "本地路径" in chinese.next_step
    # Every failed call says why, so the page can tell the story call by call.
    finished = [e for e in run.of(ev.ToolCallFinished) if not e.ok]
    assert finished and {e.cause for e in finished} == {"network"}


async def test_tls_that_fails_is_named(emulator: GitHubEmulator, tmp_path: Path) -> None:
    # The emulator speaks plain HTTP: an https:// client gets no TLS handshake from it.
    settings = make_settings(
        emulator, tmp_path, github_api_url=emulator.base_url.replace("http://", "https://")
    )
    run = await run_once(settings, clock=FakeClock())  # backoff without waiting
    failed = run.events[-1]
    assert isinstance(failed, ev.RunFailed) and failed.diagnosis is not None
    assert failed.diagnosis.cause == "tls", failed
    assert "TLS" in failed.message and "SSL_CERT_FILE" in (failed.hint or "")


class NoResolver(httpx.AsyncBaseTransport):
    """The network seam as a machine without a working resolver presents it."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        except socket.gaierror as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc


async def test_a_name_that_does_not_resolve_is_dns() -> None:
    http = GitHubHTTP(api_url="https://api.github.com", transport=NoResolver())
    try:
        toolbox, _, _ = make_toolbox(http)
        result = await toolbox.execute("c1", "get_repo_info", {"owner": WIDGETS.owner, "repo": WIDGETS.name})
    finally:
        await http.aclose()
    assert not result.ok and result.cause == "dns" and result.host == "api.github.com"
    assert "did not resolve" in (result.error or "")
    # The breaker that opened remembers why: the next call it refuses is explained by the same cause.
    again = await toolbox.execute("c2", "get_repo_info", {"owner": WIDGETS.owner, "repo": WIDGETS.name})
    assert "temporarily disabled" in (again.error or "") and again.cause == "dns"


def test_connection_causes_come_from_the_exception_chain() -> None:
    def chained(inner: BaseException) -> httpx.ConnectError:
        try:
            raise inner
        except BaseException as exc:
            try:
                raise httpx.ConnectError("connection failed") from exc
            except httpx.ConnectError as outer:
                return outer

    import ssl

    assert connection_cause(chained(socket.gaierror(-2, "Name or service not known"))) == "dns"
    assert connection_cause(chained(ssl.SSLCertVerificationError("certificate verify failed"))) == "tls"
    assert connection_cause(chained(ConnectionRefusedError(111, "Connection refused"))) == "network"


async def test_an_exhausted_rate_limit_says_when_it_resets(emulator: GitHubEmulator, tmp_path: Path) -> None:
    emulator.exhaust(reset_in=3600)
    run = await run_once(make_settings(emulator, tmp_path))
    end = run.events[-1]
    diagnosis = end.diagnosis if isinstance(end, (ev.RunFailed, ev.RunFinished)) else None
    assert diagnosis is not None and diagnosis.cause == "rate_limit" and diagnosis.reset_at is not None
    said = explain(diagnosis)
    assert "UTC" in said.what and "GITHUB_TOKEN" in said.next_step


async def test_a_missing_repository_is_not_found_or_private(emulator: GitHubEmulator, tmp_path: Path) -> None:
    run = await run_once(make_settings(emulator, tmp_path), target="acme/no-such-repo")
    failed = run.events[-1]
    assert isinstance(failed, ev.RunFailed) and failed.diagnosis is not None
    assert failed.diagnosis.cause == "not_found"
    assert "private" in failed.message and "spelling" in (failed.hint or "")


@pytest.mark.parametrize(
    ("turn", "cause"),
    [
        (Turn.error(401), "model_auth"),
        (Turn.error(402), "model_no_balance"),
        (Turn.error(500), "model_server"),
    ],
)
async def test_a_failed_model_is_blamed_and_the_data_still_reported(
    emulator: GitHubEmulator, tmp_path: Path, turn: Turn, cause: str
) -> None:
    with ScriptedModelServer([turn] * 8) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
    finished = run.finished
    assert finished.writer == "fallback" and finished.report.startswith("# acme/widgets")
    assert finished.diagnosis is not None
    assert (finished.diagnosis.cause, finished.diagnosis.source) == (cause, "model")
    assert finished.diagnosis.host == "127.0.0.1"
    assert explain(finished.diagnosis).next_step


async def test_an_unreachable_model_is_named_with_its_host(emulator: GitHubEmulator, tmp_path: Path) -> None:
    port = free_port()
    settings = make_settings(emulator, tmp_path, llm_base_url=f"http://127.0.0.1:{port}/v1")
    settings = settings.with_overrides(api_key="k", llm_provider="custom", llm_model="m")
    run = await run_once(settings)
    finished = run.finished
    assert finished.writer == "fallback"
    assert finished.diagnosis == ev.Diagnosis(cause="model_unreachable", source="model", host="127.0.0.1")
    assert "could not be reached" in explain(finished.diagnosis).what


def test_events_carry_the_diagnosis_through_a_saved_trace(tmp_path: Path) -> None:
    diagnosis = ev.Diagnosis(cause="rate_limit", source="github", host="api.github.com", reset_at=1.7e9)
    events: list[ev.Event] = [
        ev.RunFailed(t=1.0, message="m", hint="h", diagnosis=diagnosis),
        ev.RunFinished(t=2.0, report="r", degraded=True, diagnosis=diagnosis),
    ]
    dump_events(events, tmp_path / "run.jsonl")
    assert load_events(tmp_path / "run.jsonl") == events


async def test_a_local_run_right_after_a_github_outage_succeeds(
    emulator: GitHubEmulator, sample_repo: Path, tmp_path: Path
) -> None:
    """One session's board (as the page keeps it): GitHub's breakers open, the local tools' stay closed."""
    clock = FakeClock()
    settings = make_settings(emulator, tmp_path, github_api_url=f"http://127.0.0.1:{free_port()}")
    services = Services(settings, clock=clock)
    board = new_board(settings, clock)
    try:
        for target in ("acme/widgets", str(sample_repo)):
            opened = await open_analysis(services, target, "", breakers=board)
            try:
                events = [e async for e in opened.analysis.run("")]
            finally:
                await opened.aclose()
            if target == "acme/widgets":
                assert isinstance(events[-1], ev.RunFailed)
                opened_breakers = {s.name for s in board.snapshot() if s.state == "open"}
                assert opened_breakers and all(name.startswith("github:") for name in opened_breakers)
    finally:
        await services.aclose()
    end = events[-1]
    assert isinstance(end, ev.RunFinished), end
    assert not end.degraded and end.diagnosis is None
    assert any(s.name.startswith("local:") and s.state == "closed" for s in board.snapshot())
