"""The ``untraced`` marker (tests/conftest.py): a marked test runs without the coverage tracer, in its
own thread and in the threads it starts, and the next test is traced again. Under ``--no-cov`` there is
no tracer to stop and the marker changes nothing."""

from __future__ import annotations

import sys
import threading

import pytest

from tests.conftest import _coverage_tracer


def _coverage_on(config: pytest.Config) -> bool:
    return bool(config.getoption("cov_source", default=None)) and not config.getoption(
        "no_cov", default=False
    )


def _in_a_new_thread() -> object:
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(sys.gettrace()))
    thread.start()
    thread.join()
    return seen[0]


def test_a_test_is_traced_when_coverage_is_on(request: pytest.FixtureRequest) -> None:
    assert (_coverage_tracer() is not None) == _coverage_on(request.config)


@pytest.mark.untraced
def test_a_marked_test_and_its_threads_run_untraced() -> None:
    assert _coverage_tracer() is None
    assert _in_a_new_thread() is None


def test_the_next_test_and_its_threads_are_traced_again(request: pytest.FixtureRequest) -> None:
    on = _coverage_on(request.config)
    assert (_coverage_tracer() is not None) == on
    if on:  # a new thread installs its tracer on its first call
        assert _in_a_new_thread() is not None
