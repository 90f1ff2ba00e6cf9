"""What an analysis costs GitHub, read from the emulator's request log (issue: the GitHub data layer).

Prints, for the analyst's sequence (repo info, root listing, README, manifest, commits):
requests cold; requests and rate-limit-counted requests warm (second run, token, shared cache);
redirects paid for a renamed repository; requests for a 404; time to fail on an exhausted limit.

    python -m benchmarks.github_costs
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from agent_core.clock import SystemClock
from tests.emulator.github import GitHubEmulator
from tests.emulator.gitrepo import sample_python_project
from tests.github_helpers import make_http, make_toolbox
from tests.test_github_layer import ANALYST_SEQUENCE, TOKEN, run_sequence


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = sample_python_project(Path(folder) / "widgets")
        with GitHubEmulator() as emu:
            emu.add_repo("acme/widgets", repo)
            http = make_http(emu, Path(folder) / "cache")
            toolbox, _, _ = make_toolbox(http, token=TOKEN)
            await run_sequence(toolbox, ANALYST_SEQUENCE)
            cold = len(emu.requests)
            emu.clear_log()
            toolbox, _, _ = make_toolbox(http, token=TOKEN)
            await run_sequence(toolbox, ANALYST_SEQUENCE)
            warm, counted = len(emu.requests), sum(r.counted for r in emu.requests)
            emu.cache_control = "private, max-age=0"  # past the 60 s freshness: revalidate everything
            emu.clear_log()
            http2 = make_http(emu, Path(folder) / "cache2")
            toolbox, _, _ = make_toolbox(http2, token=TOKEN)
            await run_sequence(toolbox, ANALYST_SEQUENCE)
            emu.clear_log()
            toolbox, _, _ = make_toolbox(http2, token=TOKEN)
            await run_sequence(toolbox, ANALYST_SEQUENCE)
            reval = emu.requests
            await http.aclose()
            await http2.aclose()
        with GitHubEmulator() as emu:
            emu.add_repo("acme/widgets", repo)
            emu.rename("acme/widgets", "acme/gadgets")
            http = make_http(emu, None)
            toolbox, _, _ = make_toolbox(http)
            await run_sequence(toolbox, ANALYST_SEQUENCE)
            redirects = sum(r.status == 301 for r in emu.requests)
            renamed_total = len(emu.requests)
            emu.clear_log()
            toolbox, _, _ = make_toolbox(http, clock=SystemClock())
            emu.exhaust(reset_in=3600)
            started = time.perf_counter()
            result = await toolbox.execute("y", "get_commits", {"owner": "acme", "repo": "widgets"})
            fail_fast = time.perf_counter() - started
            await http.aclose()
        with GitHubEmulator() as emu:
            http = make_http(emu, None)
            from agent_core.sources.models import RepoRef

            toolbox, _, _ = make_toolbox(http, scope=(RepoRef(owner="acme", name="nope"),))
            await toolbox.execute("z", "get_repo_info", {"owner": "acme", "repo": "nope"})
            not_found = len(emu.requests)
            await http.aclose()
    calls = len(ANALYST_SEQUENCE)
    print(f"analyst sequence: {calls} tool calls")
    print(f"cold:  {cold} requests")
    print(f"warm (token, fresh cache): {warm} requests, {counted} counted against the rate limit")
    print(
        f"warm (token, after max-age): {len(reval)} requests, {sum(r.status == 304 for r in reval)} were 304, "
        f"{sum(r.counted for r in reval)} counted"
    )
    print(f"renamed repository: {redirects} redirect(s) for the whole sequence ({renamed_total} requests)")
    print(f"404 repository: {not_found} request(s)")
    print(f"exhausted primary limit (reset in 1 h): failed in {fail_fast * 1000:.1f} ms: {result.error}")


if __name__ == "__main__":
    asyncio.run(main())
