"""Shared test setup: a network kill-switch, so that no test can reach anything but loopback.

Every outgoing ``socket.connect`` is checked: 127.0.0.0/8, ::1, "localhost" and Unix sockets pass;
anything else raises :class:`BlockedNetworkError` at once (the machine has no internet anyway, but a
test that *tries* would otherwise hang until a timeout or, on another machine, really go out).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

# CI must be repeatable: the same examples on every run ("repeatable"). A bug found while exploring
# (HYPOTHESIS_PROFILE=explore python -m pytest ...) becomes an explicit regression case. Exploring also
# tries each property's full count of examples; CI tries a share of it (testing/properties.py).
hypothesis_settings.register_profile("repeatable", derandomize=True, print_blob=True)
hypothesis_settings.register_profile("explore", derandomize=False, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# The compiled modules are kept (``__pycache__``, ignored by git) even where PYTHONDONTWRITEBYTECODE is
# set, as on these machines: otherwise each worker rewrote the assertions of every test module and
# compiled the checkout again, 7 s of each worker's 21 s start, on every run; and the CLI's, the bench's
# and the replicas' processes compiled it again each (they read what is kept, without writing).
sys.dont_write_bytecode = False


class BlockedNetworkError(OSError):
    """A test tried to connect somewhere other than loopback."""


def _allowed(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) and address else None
    if not isinstance(host, str):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="session")
def _network_kill_switch() -> Iterator[None]:
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _allowed(address):
            raise BlockedNetworkError(f"tests may only connect to loopback, not {address!r}")
        original_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _allowed(address):
            raise BlockedNetworkError(f"tests may only connect to loopback, not {address!r}")
        return original_connect_ex(self, address)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]


# --- in parallel (the README's command: ``-n 2 --dist loadgroup``) ---------------------------------

# Each module is one group, which ``loadgroup`` sends to one worker, so that its module-scoped servers,
# apps and browsers start once. Two exceptions: the tests of SPREAD modules (each builds its own servers,
# and together they take long) go wherever a worker is free; the modules that start the real local model
# share one worker, since two llama.cpp servers side by side would halve each other.
SPREAD = frozenset({"test_fault_suite.py"})
TOGETHER = {"test_real_model.py": "local-llm", "test_real_model_guard.py": "local-llm"}
# The groups that take longest, longest first (``--durations=0``, summed per group): they start first, and
# the many short ones fill both workers up to the end. xdist's own order (most tests first) started the
# local model's group (2 modules, ~25% of a worker's time) last, so one worker ran it alone at the end.
LONGEST = (
    "local-llm",
    "tests/test_security_suite.py",
    "tests/test_bench.py",
    "tests/browser/test_browser.py",
    "tests/browser/test_layout.py",
    "tests/test_hosted_safety.py",
    "tests/test_hosted_security.py",
    "tests/browser/test_controls.py",
    "tests/test_linear_work.py",
    "tests/test_replicas_script.py",
)


def _controller(config: pytest.Config) -> bool:
    """Whether this process is xdist's controller, which hands out the tests and runs none."""
    return bool(config.getoption("numprocesses", None)) and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # xdist: keep the order collection gives (below)
        config.option.loadscopereorder = False
    if _controller(config):
        # It runs no test: importing Gradio and the app here (5.5 s under its coverage tracer) only held
        # back the workers' start, by 4.6 s of each run.
        return
    # Before the coverage tracer, which pytest-cov starts at a worker's session start: Gradio's import
    # (3 s) is not traced; the app's modules are imported after it (below), and measured.
    import gradio  # noqa: F401


@pytest.hookimpl(trylast=True)  # after pytest-cov's: the tracer runs
def pytest_sessionstart(session: pytest.Session) -> None:
    if _controller(session.config):
        return
    # Gradio 6's safe_get_lock installs a fresh event loop per lock made outside a running loop, orphaning
    # the one before: its self-pipe was reported unclosed at a later test's gc (planning cost, in CI).
    from agent_core.web.app import quiet_gradio_locks

    quiet_gradio_locks()


def _group(item: pytest.Item) -> str | None:
    name, module = item.path.name, item.nodeid.partition("::")[0]
    return None if name in SPREAD else TOGETHER.get(name, module)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = _group(item)
        if group is not None:  # an unmarked test is a unit of its own
            item.add_marker(pytest.mark.xdist_group(group))
    rank = {group: i for i, group in enumerate(LONGEST)}
    items.sort(
        key=lambda item: rank.get(_group(item) or "", len(LONGEST))
    )  # stable: the rest keep their order


# --- shared servers and repositories --------------------------------------------------------------

from pathlib import Path  # noqa: E402

from testing.emulator.github import GitHubEmulator  # noqa: E402
from testing.emulator.gitrepo import sample_python_project  # noqa: E402
from testing.llm import LocalModel, installed, local_model  # noqa: E402


@pytest.fixture(scope="session")
def sample_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A realistic small Python project (8 commits, 3 authors), built once per test session."""
    return sample_python_project(tmp_path_factory.mktemp("sample") / "widgets")


@pytest.fixture
def emulator(sample_repo: Path) -> Iterator[GitHubEmulator]:
    """A GitHub emulator serving ``acme/widgets`` from the sample repository."""
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", sample_repo, description="Count words, fast.", stars=42, topics=["text"])
        yield emu


@pytest.fixture(scope="session")
def small_local_model() -> Iterator[LocalModel]:
    """The real Qwen2.5-Coder-0.5B behind llama.cpp, started once for every real-model test (they share
    one xdist worker, see TOGETHER): a 4,096-token window; each test bounds its own replies. Skipped with
    the reason when the model is not installed, unless ``REQUIRE_LOCAL_LLM=1`` (CI) makes that a failure."""
    if not installed("0.5b") and os.environ.get("REQUIRE_LOCAL_LLM") != "1":
        pytest.skip("the local 0.5b model is not installed (scripts/local-llm/setup.sh 0.5b)")
    # One computing thread: the suite's other worker holds the other core nearly all the time, and
    # llama.cpp's two threads spin-wait for each other whenever one of them loses its core (the analysis
    # of tests/test_real_model.py beside a one-core CPU burner: 240 s with two threads, 129 s with one).
    with local_model("0.5b", n_ctx=4096, max_tokens=320, threads=1) as model:
        yield model


# --- tests that measure cost run without the coverage tracer -----------------------------------------
#
# A test marked ``untraced`` (CPU or memory grown against input size, properties over 1,000 examples)
# runs with the coverage tracer stopped in its thread and in the threads it starts: under the tracer a
# linearity test measures the tracer, and every example after the first few covers no new line while
# costing twice the CPU. Coverage resumes for the next test. pytest-cov's own ``no_cover`` cannot do this
# on xdist workers (it leaves the worker's thread traced) and fails under ``--no-cov``.


def _coverage_tracer() -> Any:
    """This thread's coverage tracer (CTracer, or PyTracer's bound ``_trace``'s owner), else None."""
    tracer = sys.gettrace()
    owner = getattr(tracer, "__self__", tracer)
    return owner if type(owner).__module__.startswith("coverage") else None


@pytest.fixture(autouse=True)
def _untraced(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("untraced") is None:
        yield
        return
    tracer = _coverage_tracer()
    hook = threading.gettrace()
    if tracer is not None:
        tracer.stop()
        threading.settrace(None)
    try:
        yield
    finally:
        if tracer is not None:
            threading.settrace(hook)
            tracer.start()
