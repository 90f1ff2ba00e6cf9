"""``python -m bench --only hosted_attacks``: issue 35's attack classes 1-9 against the app in hosted
mode, each with its figure (worst latency of another visitor's ``GET /config`` while it runs, memory,
GitHub requests per counted call), beside the earlier classes of ``bench/hosted_attacks.py`` (issue 20's,
which still hold: their offline figures always, their served ones unless ``--quick``).

Served figures come from a running app on 127.0.0.1 (GitHub emulator, a scripted owner's model that
answers the attacker with hostile text); every client (attacker, probe, the other visitor) is a process
of its own. Offline figures are CPU seconds of one call (``time.process_time``). Classes 1 and 2
(.gitattributes patterns, workspace globs) and the ordinary analysis beside two hostile ones are served
by :mod:`bench.hosted_repos` (an app with no model: the offline planner reads the whole tree).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
from gradio.state_holder import StateHolder

from agent_core import events as ev
from agent_core.clock import SystemClock
from agent_core.errors import ConfigurationError
from agent_core.ledger import Coverage
from agent_core.llm import ReactFormatError, parse_react
from agent_core.llm.content_calls import calls_in_content
from agent_core.report.coverage import coverage_line
from agent_core.report.diagram import parse_proposal
from agent_core.settings import Settings
from agent_core.tree_shape import TreeFolder, TreeSummary
from agent_core.web.app import build_app
from agent_core.web.browser_session import BrowserSession
from agent_core.web.sessions import lighten
from agent_core.web.tree_preview import tree_preview
from bench import hosted_attacks as earlier
from bench.config import BenchConfig
from bench.hosted_repos import served_repos
from bench.table import Metric, Section
from testing.app import running_app
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo, sample_python_project
from testing.emulator.model_server import ScriptedModelServer, Turn

MIB = 1024 * 1024
DEEP = '{"a":' * 1200 + "1" + "}" * 1200
W = {"owner": "acme", "repo": "widgets"}


def hostile_model(body: dict[str, Any]) -> Turn:
    """The owner's model as an attacker's question makes it answer (any model can emit such text)."""
    asked = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    diagram = "Draw the architecture of " in str(body["messages"][-1].get("content"))
    if "attack-replies" in asked:
        if diagram:
            return Turn.final("{" * 40_000 + DEEP, usage=(100, 10))
        if not any(m["role"] == "tool" for m in body["messages"]):
            return Turn.calls(("get_languages", W), usage=(100, 10))
        return Turn.final("[" * 20_000 + "\n" + " " * 10_000 + "x\n" + DEEP, usage=(100, 10))
    if "attack-calls" in asked and not any(m["role"] == "tool" for m in body["messages"]):
        return Turn.calls(*[("get_languages", W)] * 4_000, usage=(100, 10))
    return Turn.final("# acme/widgets\n\nA small Python project.\n", usage=(100, 10))


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    with contextlib.suppress(ReactFormatError, ValueError):
        fn()
    return time.process_time() - start


def offline_replies() -> list[dict[str, str]]:
    """Class 4 off the server: each reader of model text on each hostile reply, CPU of one call."""
    rows = []
    for name, text in (
        ("40,000 '{'", "{" * 40_000),
        ("20,000 '['", "[" * 20_000),
        ("a label line of 10,000 spaces", "Thought" + " " * 10_000 + "x"),
        ("JSON nested 1,200 deep", DEEP),
    ):
        rows.append(
            {
                "reply": name,
                "text protocol": f"{cpu(lambda t=text: parse_react(t)) * 1000:.2f} ms",
                "calls in content": f"{cpu(lambda t=text: calls_in_content(t, {'read_file'})) * 1000:.2f} ms",
                "diagram proposal": f"{cpu(lambda t=text: parse_proposal(t)) * 1000:.2f} ms",
            }
        )
    return rows


def probe_during(
    url: str, attack: subprocess.Popen[str] | None, downloads: Path
) -> tuple[float, float, float, str]:
    """Another visitor's /config latencies (median, worst) and analysis seconds while ``attack`` runs;
    and the attacker's last line."""
    if attack is not None and attack.stdout is not None:
        attack.stdout.readline()
    with earlier.LoopWatch() as loop:
        figures = _probe(url, attack, downloads)
    return (*figures, loop.summary())


def _probe(
    url: str, attack: subprocess.Popen[str] | None, downloads: Path
) -> tuple[float, float, float, str]:
    probe = earlier.client("probe", url, "198.51.100.2")
    time.sleep(2.0)  # the probe's process is up and sampling before the other visitor starts
    legit = earlier.analysis_seconds(url, "198.51.100.3", downloads)
    said = ""
    if attack is not None:
        try:
            out, _ = attack.communicate(timeout=300)
            said = out.strip().splitlines()[-1] if out.strip() else "refused"
        except subprocess.TimeoutExpired:
            attack.kill()
            said = "still running after 300 s"
    samples = [float(x) for x in earlier.result(probe)] or [float("nan")]  # type: ignore[attr-defined]
    return statistics.median(samples), max(samples), legit, said


def upload_attack(url: str, uploads: Path) -> tuple[int, int, int]:
    """Class 3: one address uploads 5 MB files until refused (at most 30): accepted files, bytes
    accepted, and how much of Gradio's upload folder their files take."""
    body = b"x" * (5 * MIB - 4096)
    accepted, paths = 0, []
    with httpx.Client(base_url=url, timeout=60, headers={"x-forwarded-for": "203.0.113.12"}) as http:
        for i in range(30):
            answer = http.post("gradio_api/upload", files={"files": (f"f{i}.jsonl", body)})
            if answer.status_code != 200:
                break
            accepted += 1
            paths += answer.json()
    on_disk = sum(Path(p).stat().st_size for p in paths if Path(p).exists())
    return accepted, accepted * len(body), on_disk


def served(config: BenchConfig, root: Path) -> tuple[list[dict[str, str]], list[Metric], list[str]]:
    rows: list[dict[str, str]] = []
    metrics: list[Metric] = []
    notes: list[str] = []
    with GitHubEmulator() as emu, ScriptedModelServer(responder=hostile_model) as model:
        emu.add_repo("acme/widgets", sample_python_project(root / "widgets"))
        emu.limit_unauthenticated = 1_000_000
        env = {
            "SPACE_ID": "bench/hosted",
            "GITHUB_API_URL": emu.base_url,
            "CACHE_DIR": str(root / "cache"),
            "LOG_LEVEL": "ERROR",
            "RUNS_PER_HOUR": "1000",
            "MAX_CONCURRENT_RUNS": "4",
            "PREFETCH": "false",
            "API_KEY": "sk-owner",
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": model.base_url,
            "LLM_MODEL": "scripted-model",
        }
        downloads = root / "d"
        with running_app(Settings.from_env(env, dotenv_path=None)) as url:
            earlier.analysis_seconds(url, "198.51.100.4", downloads)  # warm
            runs = (
                ("idle (no attack)", None),
                (
                    "4: replies of 20,000 '[', 10,000 spaces, 1,200 levels; a diagram of 40,000 '{'",
                    "attack-replies",
                ),
                ("5: one turn of 4,000 tool calls", "attack-calls"),
            )
            for name, question in runs:
                attack = (
                    earlier.client("analysis", url, "203.0.113.9", "acme/widgets", question, downloads)
                    if question
                    else None
                )
                median, worst, legit, said, late = probe_during(url, attack, downloads)
                notes.append(f"{name}: {late}")
                rows.append(
                    {
                        "class": name,
                        "another visitor's /config": f"median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms",
                        "their analysis": f"{legit:.2f} s",
                        "the attacker's run": said[:60] or "—",
                    }
                )
                if question:
                    metrics.append(
                        Metric(
                            name=f"class {name[0]}: another visitor's worst GET /config",
                            value=round(worst, 3),
                            unit="s",
                            target="<= 0.5 s",
                            met=worst <= 0.5,
                        )
                    )
            accepted, sent, on_disk = upload_attack(url, root)
            metrics.append(
                Metric(
                    name="class 3: temporary space one address's uploads take",
                    value=round(on_disk / MIB, 1),
                    unit="MiB",
                    target="<= 50 MiB, then refused",
                    met=on_disk <= 50 * MIB and accepted < 30,
                    note=f"{accepted} files of 5 MB accepted ({sent / MIB:.0f} MiB), then 413",
                )
            )
        notes.append(
            f"served figures on a machine with load average {', '.join(f'{x:.1f}' for x in _load())}"
        )
    return rows, metrics, notes


def _load() -> tuple[float, ...]:
    import os

    return os.getloadavg()


def session_bytes(root: Path) -> tuple[float, float]:
    """Class 7: what a fresh session holds once its first request made its page state, Gradio's record
    of it and ours (tracemalloc over 100 sessions), with Gradio's own record and with :func:`lighten`."""
    settings = Settings.from_env({"SPACE_ID": "a/b", "CACHE_DIR": str(root / "s")}, dotenv_path=None)
    demo = build_app(settings)
    state_id = next(k for k, b in demo.blocks.items() if type(b).__name__ == "State")
    figures = []
    for light in (False, True):
        holder = StateHolder()
        holder.set_blocks(demo)
        if light:
            lighten(SimpleNamespace(state_holder=holder))
        holder["warm"][state_id] = BrowserSession(settings, clock=SystemClock())
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for i in range(100):
            holder[f"s{i}"][state_id] = BrowserSession(settings, clock=SystemClock())
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        figures.append(sum(s.size_diff for s in after.compare_to(before, "filename")) / 100 / 1024)
    return figures[0], figures[1]


def mcp_cost(root: Path) -> tuple[float, float]:
    """Class 6: GitHub requests per MCP get_file_tree call of /tree/<commit>/d<i> (a new folder each
    time) and what the visitor's budget counted per call."""
    from agent_core.top.services import Services
    from agent_core.web.budget import SpaceBudget
    from agent_core.web.mcp import RepositoryApi, client_key

    repo = make_repo(root / "m", {f"d{i}/x.py": f"x = {i}\n" for i in range(20)})
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    request = SimpleNamespace(
        headers=httpx.Headers({"x-forwarded-for": "203.0.113.20"}), client=SimpleNamespace(host="10.0.0.2")
    )
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", repo)
        emu.limit_unauthenticated = 100_000
        env = {
            "SPACE_ID": "a/b",
            "GITHUB_API_URL": emu.base_url,
            "CACHE_DIR": str(root / "mc"),
            "RUNS_PER_HOUR": "50",
        }
        settings = Settings.from_env(env, dotenv_path=None)
        services = Services(settings)
        budget = SpaceBudget(settings, services.quotas, clock=services.clock)
        tree = {f.__name__: f for f in RepositoryApi(services, settings, budget).functions()}["get_file_tree"]
        key = client_key(request)  # type: ignore[arg-type]
        left = budget.tools.remaining(key)

        async def calls() -> None:
            try:
                for i in range(20):
                    await tree(f"https://github.com/acme/widgets/tree/{sha}/d{i}", request=request)
            finally:
                await services.aclose()

        start = len(emu.requests)
        asyncio.run(calls())
        spent = len(emu.requests) - start
    return spent / 20, (left - budget.tools.remaining(key)) / 20


def base_url_refused(root: Path) -> tuple[str, str, bool]:
    """Class 8: the base URL attack applied on a Space: the message (EN, ZH), and whether the session's
    settings stayed as they were (so no run can start on it, none is counted)."""
    base = Settings.from_env(
        {"SPACE_ID": "a/b", "CACHE_DIR": str(root / "u"), "API_KEY": "k"}, dotenv_path=None
    )
    session = BrowserSession(base, clock=SystemClock())
    try:
        session.apply_settings(
            llm_provider="custom", llm_base_url="https://0177.0.0.1:8443/v1", llm_model="m", api_key="sk-x"
        )
    except ConfigurationError as exc:
        return str(exc), exc.localized("zh"), session.settings is base
    return "accepted", "accepted", False


def bidi_names() -> int:
    """Class 9: raw bidirectional characters left in the tree preview and the coverage line of a
    repository whose folder is named with U+202E (0 when every one is shown escaped)."""
    name = "invoice\u202efdp.exe"
    tree = TreeSummary(
        files=1, dirs=1, own_files=1, top_level=(TreeFolder(name=name, files=1, own_files=1, role="source"),)
    )
    event = ev.ToolCallFinished(
        t=0, call_id="c", tool="get_file_tree", turn=1, ok=True, preview="{}", duration_s=0, tree=tree
    )
    coverage = Coverage(
        repo="a/b",
        files_read=0,
        bytes_read=0,
        own_files=1,
        own_bytes=1,
        folders_listed=0,
        top_folders=1,
        unvisited=(name,),
    )
    shown = tree_preview(event) + coverage_line(coverage) + coverage_line(coverage, "zh")
    return sum(shown.count(ch) for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def earlier_classes(config: BenchConfig) -> list[str]:
    """Issue 20's figures from ``bench/hosted_attacks.py`` (offline always; served unless quick)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        earlier.offline()
        if not config.quick:
            earlier.served(20_000, 2_000)
    return [line.removeprefix("- ") for line in out.getvalue().splitlines() if line.strip()]


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        root = Path(tmp)
        rows, metrics, notes = served_repos(root)
        more = served(config, root)
        rows, metrics, notes = rows + more[0], metrics + more[1], notes + more[2]
        gradio_kib, light_kib = session_bytes(root)
        per_call, counted = mcp_cost(root)
        message, zh, kept = base_url_refused(root)
        raw = bidi_names()
    metrics += [
        Metric(
            name="class 6: GitHub requests per MCP get_file_tree of /tree/<commit>/<path>",
            value=round(per_call, 2),
            target="<= 1.5",
            met=per_call <= 1.5,
            note=f"counted in the visitor's budget: {counted:.2f} per call (uncounted: {max(0.0, per_call - counted):.2f})",
        ),
        Metric(
            name="class 7: an idle fresh session (Gradio's record + the page state)",
            value=round(light_kib, 1),
            unit="KiB",
            target="<= 50 KiB",
            met=light_kib <= 50,
            note=f"with Gradio's own record: {gradio_kib:.1f} KiB",
        ),
        Metric(
            name="class 8: base URL https://0177.0.0.1:8443/v1 applied",
            value="refused" if kept else "ACCEPTED",
            target="a clear error, no run",
            met=kept,
            note=f"{message[:110]} / {zh[:60]}",
        ),
        Metric(
            name="class 9: raw bidi characters shown (tree preview, coverage EN+ZH)",
            value=raw,
            target="0",
            met=raw == 0,
        ),
    ]
    for row in offline_replies():
        notes.append("class 4 offline, " + ", ".join(f"{k}: {v}" for k, v in row.items()))
    notes += [f"earlier (issue 20): {line}" for line in earlier_classes(config)]
    return Section(
        key="hosted_attacks",
        title="Hosting attacks (issue 35 classes 1-9, beside issue 20's)",
        metrics=metrics,
        notes=notes,
        table=rows,
    )
