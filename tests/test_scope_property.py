"""No input, however crafted, produces a request outside /repos/{owner}/{repo}/ of the named repository.

Hypothesis throws arbitrary owners, names and paths at the real tools; the emulator's request log is
the proof: every request that reached the server is inside the named repository.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import unquote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.emulator.github import GitHubEmulator
from tests.github_helpers import make_http, make_toolbox

NASTY = st.sampled_from(
    [
        "..",
        ".",
        "/",
        "\\",
        "%2e%2e",
        "%2f",
        "?",
        "#",
        "~",
        "\x00",
        "\u2028",
        "C:",
        "//",
        "..%2f",
        "%00",
        "ａ",
        " ",
    ]
)
SEGMENT = st.one_of(
    st.text(min_size=0, max_size=12), NASTY, st.sampled_from(["src", "README.md", "acme", "widgets"])
)
PATHS = st.lists(SEGMENT, min_size=0, max_size=6).map("/".join)
TOOLS = st.sampled_from(["read_file", "list_directory", "get_file_tree"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tool=TOOLS,
    path=PATHS,
    owner=st.one_of(st.just("acme"), SEGMENT),
    repo=st.one_of(st.just("widgets"), SEGMENT),
)
def test_crafted_arguments_stay_in_scope(
    emulator: GitHubEmulator, tmp_path: Path, tool: str, path: str, owner: str, repo: str
) -> None:
    async def go() -> None:
        http = make_http(emulator, None)
        try:
            toolbox, _, _ = make_toolbox(http)
            await toolbox.execute("x", tool, {"owner": owner, "repo": repo, "path": path})
        finally:
            await http.aclose()

    asyncio.run(go())
    for request in emulator.requests:
        assert request.path.startswith("/repos/acme/widgets"), request.path
        decoded = unquote(request.path)
        assert "/../" not in decoded and not decoded.endswith("/..")
        assert request.method == "GET"
