"""Issue 20's attacks against the app in hosted mode, and what another visitor's page request costs
meanwhile: ``PYTHONPATH=. python bench/hosted_attacks.py`` (the code of this checkout; point PYTHONPATH
at another checkout to measure that one, e.g. the code before the fix).

Offline figures are CPU seconds (``time.process_time``) of one call; served figures are the latency of
``GET /config`` for a second visitor (another address) while the attacker's requests are in flight,
and the time of a whole analysis by that visitor. Everything runs on 127.0.0.1 over the GitHub emulator.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import httpx

from agent_core import events as ev
from agent_core.event_json import event_to_dict
from agent_core.settings import Settings
from agent_core.web.limits import MAX_CHARS
from agent_core.web.markdown import safe_markdown
from agent_core.web.render import TraceView
from agent_core.web.replay import MAX_EVENTS, MAX_TOOL_CALLS, MAX_UPLOAD_BYTES, parse_recording
from testing.app import api_client, running_app
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project


def cpu(fn: Callable[[], object]) -> tuple[float, str]:
    start = time.process_time()
    try:
        fn()
        outcome = "accepted"
    except Exception as exc:  # noqa: BLE001 - a bench reports what happened
        outcome = f"refused ({str(exc)[:60]})"
    return time.process_time() - start, outcome


def forged_trace(calls: int) -> str:
    events: list[ev.Event] = [
        ev.RunStarted(t=0, run_id="r", targets=("a/b",), question="", model="m", mode="model"),
        ev.TurnStarted(t=0, turn=1),
        ev.TurnFinished(t=0, turn=1, tool_calls=calls),
    ]
    for i in range(calls):
        events.append(ev.ToolCallStarted(t=0, call_id=f"c{i}", tool="get_file_tree", arguments={}, turn=1))
        events.append(
            ev.ToolCallFinished(
                t=0, call_id=f"c{i}", tool="get_file_tree", turn=1, ok=True, preview="{}", duration_s=0
            )
        )
    return "\n".join(json.dumps(event_to_dict(e)) for e in events)


def max_size_trace(*, preview_chars: int = 750, delta_chars: int = 12) -> str:
    """A trace at the upload limits (:mod:`agent_core.web.replay`): :data:`MAX_EVENTS` events, of them
    :data:`MAX_TOOL_CALLS` tool calls with previews of ``preview_chars``, the rest reasoning and a report
    streamed in deltas of ``delta_chars``; the defaults fill :data:`MAX_UPLOAD_BYTES` (just under)."""
    start = ev.RunStarted(t=0, run_id="r", targets=("acme/widgets",), question="?", model="m", mode="model")
    events: list[ev.Event] = [start]
    turns, calls = 20, 0
    for turn in range(1, turns + 1):
        events.append(ev.TurnStarted(t=turn, turn=turn))
        events.extend(ev.ReasoningDelta(t=turn, turn=turn, text="thinking ") for _ in range(20))
        events.append(ev.TurnFinished(t=turn, turn=turn, tool_calls=MAX_TOOL_CALLS // turns))
        for _ in range(MAX_TOOL_CALLS // turns):
            calls += 1
            path = f"src/m{calls}.py"
            body = json.dumps({"path": path, "text": "x = 1\n" * (preview_chars // 6)})
            events.append(ev.ToolCallStarted(t=turn, call_id=f"c{calls}", tool="read_file", arguments={"path": path}, turn=turn))  # fmt: skip
            events.append(ev.ToolCallFinished(t=turn, call_id=f"c{calls}", tool="read_file", turn=turn, ok=True, preview=body, duration_s=0.1))  # fmt: skip
    last = turns + 1
    events.append(ev.TurnStarted(t=last, turn=last, purpose="report"))
    line = ("word " * delta_chars)[: delta_chars - 1] + "\n"
    events.extend(ev.TextDelta(t=last, turn=last, text=line) for _ in range(MAX_EVENTS - len(events) - 2))
    events.append(ev.TurnFinished(t=last, turn=last, tool_calls=0))
    events.append(ev.RunFinished(t=last, report=line * 1000, degraded=False))
    text = "\n".join(json.dumps(event_to_dict(e)) for e in events)
    assert len(text.encode()) <= MAX_UPLOAD_BYTES, len(text.encode())
    return text


def tree_call(preview: str) -> None:
    view = TraceView()
    for event in (
        ev.RunStarted(t=0, run_id="r", targets=("a/b",), question="", model="m", mode="model"),
        ev.TurnStarted(t=0, turn=1),
        ev.TurnFinished(t=0, turn=1, tool_calls=1),
        ev.ToolCallStarted(t=0, call_id="c1", tool="get_file_tree", arguments={}, turn=1),
        ev.ToolCallFinished(
            t=0, call_id="c1", tool="get_file_tree", turn=1, ok=True, preview=preview, duration_s=0
        ),
    ):
        view.apply(event)
    view.messages()


def offline() -> None:
    print("## offline: CPU seconds of one call")
    for n in (8_000, 20_000):
        spent, _ = cpu(lambda n=n: safe_markdown("[" * n))
        print(f"- safe_markdown of '[' x {n:,}: {spent:.3f} CPU-s")
    preview = '{"files":1,,' + "[" * 10_000 + "," * 10_000
    spent, _ = cpu(lambda: tree_call(preview))
    print(f"- the trace item of a get_file_tree call with a forged 20 KB preview: {spent:.3f} CPU-s")
    trace = max_size_trace()
    spent, outcome = cpu(lambda: parse_recording(trace))
    print(
        f"- checking a maximum-size trace (2 MB, 20,000 events; off the event loop): {spent:.3f} CPU-s, {outcome}"
    )
    trace = forged_trace(6_000)
    spent, outcome = cpu(lambda: parse_recording(trace))
    print(
        f"- loading a forged trace of 6,000 tool calls ({len(trace) / 1e6:.1f} MB): {spent:.3f} CPU-s, {outcome}"
    )


class LoopWatch:
    """How late the server's event loop runs a 5 ms heartbeat while an attack is served, and what its
    thread runs whenever it is more than ``late`` seconds late (sampled from ``sys._current_frames()``):
    the work that holds every visitor's requests, found rather than guessed."""

    def __init__(self, late: float = 0.05) -> None:
        self.late = late
        self.thread, self.loop = _server_loop()
        self.beat = time.perf_counter()
        self.worst = 0.0
        self.culprits: Counter[str] = Counter()
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> LoopWatch:
        self._clock = time.pthread_getcpuclockid(self.thread)
        self.cpu = time.clock_gettime(self._clock)  # the loop thread's own CPU time: load does not inflate it
        self.loop.call_soon_threadsafe(self._heartbeat)
        self._watcher.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._watcher.join()
        self.cpu = time.clock_gettime(self._clock) - self.cpu

    def _heartbeat(self) -> None:
        self.beat = time.perf_counter()
        if not self._stop.is_set():
            self.loop.call_later(0.005, self._heartbeat)

    def _watch(self) -> None:
        while not self._stop.is_set():
            lag = time.perf_counter() - self.beat
            self.worst = max(self.worst, lag)
            frame = sys._current_frames().get(self.thread) if lag > self.late else None
            stack = traceback.extract_stack(frame) if frame else []
            # The innermost frame of ours below the queue gate (which wraps every request: it is on
            # every stack), else the innermost frame at all (Gradio's, uvicorn's: named by module).
            ours = [f for f in stack if "agent_core" in f.filename and "queue_gate" not in f.filename]
            top = ours[-1] if ours else stack[-1] if stack else None
            if top is not None:
                where = Path(top.filename)
                package = "" if ours else f"{where.parent.name}/"
                self.culprits[f"{package}{where.name}:{top.name}"] += 1
            time.sleep(0.002)

    def summary(self) -> str:
        top = ", ".join(f"{name} ({n})" for name, n in self.culprits.most_common(3)) or "nothing"
        return (
            f"the loop thread used {self.cpu:.2f} CPU-s, its worst lag {self.worst * 1000:.0f} ms; "
            f"seen running while it was late: {top}"
        )


def _server_loop() -> tuple[int, asyncio.AbstractEventLoop]:
    """The thread and event loop uvicorn serves the app on (found from the threads' frames)."""
    for ident, top in sys._current_frames().items():
        frame: FrameType | None = top if ident != threading.main_thread().ident else None
        while frame is not None:
            loop = frame.f_locals.get("self")
            if frame.f_code.co_name == "run_forever" and isinstance(loop, asyncio.AbstractEventLoop):
                return ident, loop
            frame = frame.f_back
    raise RuntimeError("no server event loop found")


# -- the clients: each in its own process, as real visitors are (in the server's process their Python
# work held the server's GIL: the figures measured the bench's own clients as much as the server)


def started() -> None:
    """A client's first line: what it sends starts now (its imports and preparation are done)."""
    print("started", flush=True)


def page_latency(url: str, address: str) -> None:
    """``GET /config`` every 50 ms until stdin closes; prints the latencies (JSON list of seconds)."""
    stop = threading.Event()

    def until_closed() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=until_closed, daemon=True).start()
    samples: list[float] = []
    with httpx.Client(base_url=url, timeout=120) as http:
        while not stop.is_set():
            start = time.perf_counter()
            http.get("config", headers={"x-forwarded-for": address})
            samples.append(time.perf_counter() - start)
            time.sleep(0.05)
    print(json.dumps(samples))


def analysis(url: str, address: str, target: str, question: str, downloads: str) -> None:
    """One analysis through the public API; prints its seconds."""
    client = api_client(url, downloads)
    client.headers["X-Forwarded-For"] = address
    started()
    start = time.perf_counter()
    client.predict(target, question, api_name="/run_analysis")
    print(json.dumps(time.perf_counter() - start))


def analyses(url: str, address: str, targets: str, downloads: str) -> None:
    """Analyses of each of ``targets`` (comma-separated) in turn, one after another (a visitor has one at a time) until stdin closes, as
    fast as the queue gate lets one address join (a refused join waits a second); prints how many ended."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    client = api_client(url, downloads)
    client.headers["X-Forwarded-For"] = address
    started()
    done = 0
    names = targets.split(",")
    while not stop.is_set():
        try:
            client.predict(names[done % len(names)], "", api_name="/run_analysis")
            done += 1
        except httpx.HTTPStatusError:
            stop.wait(1.0)
    print(json.dumps(done))


def flood(url: str, address: str, joins: int) -> None:
    """``joins`` queue/join calls without ever reading a stream, one after another."""
    body = {"data": [], "fn_index": 0, "session_hash": "flood", "event_data": None}
    with httpx.Client(base_url=url, timeout=30) as http:
        started()
        for _ in range(joins):
            http.post("gradio_api/queue/join", json=body, headers={"x-forwarded-for": address})
    print(json.dumps(joins))


def replays(url: str, address: str, count: int) -> None:
    """``count`` replays of a maximum-size uploaded trace (:func:`max_size_trace`) at once, at the
    fastest speed, from one address, through the page's own protocol (upload, queue/join, the stream);
    prints how many the server played to the end (the others were refused: one at a time per visitor)."""
    trace = max_size_trace().encode()
    with httpx.Client(base_url=url, timeout=180, headers={"x-forwarded-for": address}) as http:
        config = http.get("config").json()
        kinds = {c["id"]: c["type"] for c in config["components"]}
        fn = next(
            d["id"]
            for d in config["dependencies"]
            if [kinds.get(i) for i in d["inputs"]][:2] == ["dropdown", "file"]
        )
        path = http.post("gradio_api/upload", files={"files": ("forged.jsonl", trace)}).json()[0]

    def one(number: int) -> None:
        file = {"path": path, "orig_name": "forged.jsonl", "meta": {"_type": "gradio.FileData"}}
        body = {"data": [None, file, 8, None], "fn_index": fn, "session_hash": f"replay{number}"}
        with httpx.Client(base_url=url, timeout=180, headers={"x-forwarded-for": address}) as http:
            http.post("gradio_api/queue/join", json=body | {"event_data": None, "trigger_id": None})
            with http.stream(
                "GET", "gradio_api/queue/data", params={"session_hash": body["session_hash"]}
            ) as r:
                for line in r.iter_lines():
                    message = json.loads(line[5:]) if line.startswith("data:") else {}
                    if message.get("msg") == "process_completed":
                        played.append("Replay finished" in json.dumps(message.get("output")))
                        return

    played: list[bool] = []
    workers = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    started()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print(json.dumps(sum(played)))


CLIENTS: dict[str, Callable[..., None]] = {
    "probe": page_latency,
    "analysis": analysis,
    "analyses": analyses,
    "flood": flood,
    "replays": replays,
}


def client(kind: str, *args: object) -> subprocess.Popen[str]:
    """A client of ``kind`` (:data:`CLIENTS`) in its own process; its result is its last stdout line."""
    command = [sys.executable, __file__, "--client", kind, *map(str, args)]
    root = str(Path(__file__).resolve().parents[1])  # after PYTHONPATH (another checkout may be measured)
    env = os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, (os.environ.get("PYTHONPATH"), root)))}
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)


def result(process: subprocess.Popen[str], timeout: float = 180) -> object:
    out, _ = process.communicate(timeout=timeout)
    return json.loads(out.strip().splitlines()[-1])


def analysis_seconds(url: str, address: str, downloads: Path) -> float:
    return float(result(client("analysis", url, address, "acme/widgets", "", downloads)))  # type: ignore[arg-type]


def under_attack(url: str, name: str, attack: subprocess.Popen[str] | None, downloads: Path) -> None:
    if attack is not None and attack.stdout is not None:
        attack.stdout.readline()  # "started": the attacker's process is ready and sends from now on
    with LoopWatch() as loop:
        time.sleep(0.2)
        probe = client("probe", url, "198.51.100.2")
        legit = analysis_seconds(url, "198.51.100.3", downloads)
        still = ""
        if attack is not None:
            try:
                out, _ = attack.communicate(timeout=180)
                last = out.strip().splitlines()[-1] if out.strip() else "nothing (refused)"
                still = f"; the attacker's result: {last}"
            except subprocess.TimeoutExpired:
                attack.kill()
                still = " (attack still running after 180 s)"
        samples = [float(x) for x in result(probe)]  # type: ignore[attr-defined]
    worst = max(samples) if samples else float("nan")
    median = statistics.median(samples) if samples else float("nan")
    print(
        f"- {name}: another visitor's GET /config median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
        f"over {len(samples)} requests; their analysis took {legit:.2f} s{still}; {loop.summary()}"
    )


def served(question_chars: int, joins: int) -> None:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"## served: a second visitor while one attacks (hosted mode, 127.0.0.1; load average {load})")
    with tempfile.TemporaryDirectory() as tmp, GitHubEmulator() as emu:
        root = Path(tmp)
        emu.add_repo("acme/widgets", sample_python_project(root / "widgets"))
        emu.limit_unauthenticated = 1_000_000
        env = {
            "SPACE_ID": "bench/hosted",
            "GITHUB_API_URL": emu.base_url,
            "CACHE_DIR": str(root / "cache"),
            "LOG_LEVEL": "ERROR",
            "RUNS_PER_HOUR": "1000",
            "MAX_CONCURRENT_RUNS": "4",
        }
        with running_app(Settings.from_env(env, dotenv_path=None)) as url:
            downloads = root / "d"
            analysis_seconds(url, "198.51.100.4", downloads)  # warm: imports, caches, the first session
            under_attack(url, "idle", None, downloads)
            limit = MAX_CHARS["question"]
            for target, chars, note in (
                ("nope/nope", question_chars, "refused at the door"),
                ("acme/widgets", limit, "the limit, analysed"),
            ):
                attack = client("analysis", url, "203.0.113.9", target, "[" * chars, downloads)
                under_attack(url, f"a question of '[' x {chars:,} ({note}, {target})", attack, downloads)

            attack = client("replays", url, "203.0.113.11", 4)
            under_attack(
                url, "4 replays at once of a maximum-size uploaded trace from one address", attack, downloads
            )

            with LoopWatch() as alone:
                result(client("flood", url, "203.0.113.10", joins))
            print(
                f"- {joins:,} queue/join calls alone (no other visitor): the server loop thread's CPU "
                f"{alone.cpu * 1000 / joins:.2f} ms per call"
            )
            attack = client("flood", url, "203.0.113.9", joins)
            under_attack(url, f"{joins:,} queue/join calls from one address", attack, downloads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question-chars", type=int, default=20_000)
    parser.add_argument("--joins", type=int, default=2_000)
    parser.add_argument("--served-only", action="store_true", help="skip the offline figures")
    parser.add_argument("--client", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.add_argument("--h11", action="store_true", help="serve with uvicorn's pure-Python HTTP parser")
    args = parser.parse_args()
    if args.h11:  # as without httptools installed (the "before" of the queue flood)
        import uvicorn.config

        uvicorn.config.HTTP_PROTOCOLS["auto"] = uvicorn.config.HTTP_PROTOCOLS["h11"]
    if args.client:
        kind, *rest = args.client
        CLIENTS[kind](*(int(x) if x.isdigit() else x for x in rest))
        return
    if not args.served_only:
        offline()
    served(args.question_chars, args.joins)


if __name__ == "__main__":
    main()
