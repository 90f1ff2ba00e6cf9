"""A new page's ``GET /`` and ``GET /config``: Gradio's own answer, made once per root URL and replayed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gradio.utils
import httpx
import pytest

from agent_core.settings import Settings
from agent_core.web import page_cache
from agent_core.web.page_cache import ROOTS_KEPT, PageCache
from testing.app import running_app

pytestmark = [  # Gradio 6.31 leaves event loops and their sockets for the collector (testing.app)
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

Served = tuple[httpx.Client, list[PageCache], list[int]]


@pytest.fixture(scope="module")
def app_served() -> Iterator[Served]:
    """The real app served once; the page caches it installed; how often Gradio deep-copied its config."""
    caches: list[PageCache] = []
    install = page_cache.cache_pages

    def recorded(server: Any) -> list[PageCache]:
        made = install(server)
        caches.extend(made)
        return made

    copies = [0]
    deepcopy = gradio.utils.safe_deepcopy

    def counted(value: Any) -> Any:
        copies[0] += 1
        return deepcopy(value)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agent_core.web.app.cache_pages", recorded)
        patch.setattr(gradio.utils, "safe_deepcopy", counted)
        with running_app(Settings()) as url, httpx.Client(base_url=url, trust_env=False, timeout=30) as http:
            yield http, caches, copies


@pytest.fixture
def served(app_served: Served) -> Served:
    """The served app with its caches emptied and the counts at zero."""
    _http, caches, copies = app_served
    for cache in caches:
        cache.answers.clear()
        cache.hits = 0
    copies[0] = 0
    return app_served


def test_the_page_and_its_config_are_made_once_and_replayed_byte_for_byte(
    served: Served,
) -> None:
    http, caches, copies = served
    assert sorted(cache.route_path for cache in caches) == ["/", "/config", "/config/"]
    first_page, first_config = http.get("/"), http.get("config")
    made = copies[0]
    assert made >= 1  # Gradio made the config answer itself the first time
    again = [http.get("config") for _ in range(5)]
    pages = [http.get("/") for _ in range(5)]
    assert copies[0] == made  # and never again: five more of each, all replayed
    assert {r.content for r in again} == {first_config.content}
    assert {r.content for r in pages} == {first_page.content}
    assert all(r.status_code == 200 for r in [*again, *pages])
    assert again[0].headers["content-type"] == first_config.headers["content-type"]
    assert sum(cache.hits for cache in caches) == 10
    assert first_config.json()["components"]  # the real config, not an empty shell


def test_each_root_url_gets_its_own_answer(served: Served) -> None:
    http, _caches, _copies = served
    own = str(http.base_url).rstrip("/")
    proxied = {"x-forwarded-host": "analyst.example.org", "x-forwarded-proto": "https"}
    for _ in range(2):  # made, then replayed: each keeps its root
        assert http.get("config").json()["root"] == own
        assert http.get("config", headers=proxied).json()["root"] == "https://analyst.example.org"
        assert "https://analyst.example.org" in http.get("/", headers=proxied).text


def test_a_query_goes_to_gradio_every_time(served: Served) -> None:
    http, caches, copies = served
    http.get("config")
    for _ in range(3):
        before = copies[0]
        assert http.get("config", params={"page": ""}).status_code == 200
        assert copies[0] > before  # Gradio made this one itself
    assert sum(cache.hits for cache in caches) == 0


def test_hosts_a_visitor_makes_up_cannot_grow_it(served: Served) -> None:
    http, caches, _copies = served
    for n in range(ROOTS_KEPT * 3):
        assert http.get("config", headers={"x-forwarded-host": f"h{n}.example.org"}).status_code == 200
    config = next(cache for cache in caches if cache.route_path == "/config")
    assert len(config.answers) == ROOTS_KEPT
    assert next(iter(config.answers)) == f"http://h{ROOTS_KEPT * 2}.example.org"  # the oldest kept


class _Server:
    """What :class:`PageCache` reads of Gradio's app: its blocks (config), auth and root path."""

    def __init__(self) -> None:
        self.auth: Any = None
        self.auth_dependency: Any = None
        self.root_path = ""
        self.blocks = type(
            "Blocks", (), {"config": {"n": 1}, "custom_mount_path": "", "expects_oauth": False}
        )()

    def get_blocks(self) -> Any:
        return self.blocks


async def _call(cache: PageCache) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/config",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:7860")],
        "scheme": "http",
        "server": ("127.0.0.1", 7860),
        "root_path": "",
    }
    await cache(scope, receive, send)
    return sent


def _counting_app(status: int = 200) -> tuple[Any, list[int]]:
    calls = [0]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        calls[0] += 1
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b"answer %d" % calls[0]})

    return app, calls


async def test_with_authentication_nothing_is_kept() -> None:
    server = _Server()
    server.auth = [("owner", "secret")]
    app, calls = _counting_app()
    cache = PageCache(app, server, "/config")
    bodies = [(await _call(cache))[-1]["body"] for _ in range(3)]
    assert bodies == [b"answer 1", b"answer 2", b"answer 3"]
    assert calls[0] == 3 and not cache.answers


async def test_oauth_or_an_auth_dependency_keeps_nothing_either() -> None:
    for change in ("oauth", "dependency"):
        server = _Server()
        if change == "oauth":
            server.blocks.expects_oauth = True
        else:
            server.auth_dependency = lambda request: "someone"
        app, calls = _counting_app()
        cache = PageCache(app, server, "/config")
        for _ in range(2):
            await _call(cache)
        assert calls[0] == 2, change


async def test_a_new_config_or_an_error_is_asked_of_gradio_again() -> None:
    server = _Server()
    app, calls = _counting_app()
    cache = PageCache(app, server, "/config")
    assert (await _call(cache))[-1]["body"] == b"answer 1"
    assert (await _call(cache))[-1]["body"] == b"answer 1"  # replayed
    server.blocks.config = {"n": 2}  # Gradio rebuilt its config
    assert (await _call(cache))[-1]["body"] == b"answer 2"
    assert (await _call(cache))[-1]["body"] == b"answer 2"
    assert calls[0] == 2

    failing, failed = _counting_app(status=500)
    broken = PageCache(failing, _Server(), "/config")
    for _ in range(2):
        assert (await _call(broken))[0]["status"] == 500
    assert failed[0] == 2 and not broken.answers
