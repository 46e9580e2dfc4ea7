"""What `brain serve` answers a browser outside the app: the files, their headers, and the
pages at `/` (no build) and `/graphql`. Plain HTTP against a real server; no browser needed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.ui.server import REPO, BrainServer, ensure_built


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrainServer]:
    ensure_built()
    tmp = tmp_path_factory.mktemp("static")
    root = tmp / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    tokens = tmp / "tokens.json"
    tokens.write_text(json.dumps({"t0ken": "*"}))
    server = BrainServer(root, env={"BRAIN_TOKENS_FILE": str(tokens)}).start()
    yield server
    server.stop()


def test_the_app_and_its_files_need_no_token_and_come_from_brain(served: BrainServer) -> None:
    index = httpx.get(served.base + "/")
    assert index.status_code == 200
    assert index.headers["content-type"].startswith("text/html")
    assert index.headers["cache-control"] == "no-cache"
    csp = index.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "script-src 'self'" in csp
    assert "connect-src 'self'" in csp
    assets = re.findall(r'(?:src|href)="(/?assets/[^"]+)"', index.text)
    # app.css and app.js, and the chunks app.js imports, preloaded beside it.
    assert any(a.startswith("assets/app.css?v=") for a in assets)
    assert any(a.startswith("assets/app.js?v=") for a in assets)
    preloaded = re.findall(r'<link rel="modulepreload" href="(assets/chunk-[\w-]+\.js)">', index.text)
    assert len(assets) == 2 + len(preloaded)
    for asset in assets:
        got = httpx.get(f"{served.base}/{asset.lstrip('/')}")
        assert got.status_code == 200, asset
        assert "immutable" in got.headers["cache-control"]
        # No CDN, no outside fonts: nothing the page loads names another host.
        outside = rb"https?://(?!www\.w3\.org/)[a-z0-9.-]+\.[a-z]{2,}/[\w./-]*\.(?:js|css|woff2?)"
        assert not re.search(outside, got.content)
    assert httpx.get(served.base + "/favicon.ico").headers["content-type"] == "image/svg+xml"


def test_data_still_needs_a_token(served: BrainServer) -> None:
    anonymous = httpx.post(served.base + "/graphql", json={"query": "{ memoryScopes { scope } }"})
    assert anonymous.status_code == 401
    ok = httpx.post(served.base + "/graphql", json={"query": "{ memoryScopes { scope } }"},
                    headers={"Authorization": "Bearer t0ken"})
    assert ok.json() == {"data": {"memoryScopes": [{"scope": "shared"}]}}


def test_paths_outside_the_assets_folder_are_refused(served: BrainServer) -> None:
    for path in ("/assets/%2e%2e/%2e%2e/web.py", "/assets/%2e%2e/index.html", "/assets/nope.js"):
        assert httpx.get(served.base + path).status_code == 404, path
    # A client that resolves `..` itself leaves the open folder: the token check applies.
    assert httpx.get(served.base + "/assets/../api/web.py").status_code == 401


def test_a_browser_at_graphql_gets_links_not_a_404(served: BrainServer) -> None:
    page = httpx.get(served.base + "/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert 'href="/"' in page.text
    assert 'href="/schema.graphql"' in page.text
    sdl = httpx.get(served.base + "/schema.graphql").text
    assert sdl == (REPO / "schema" / "brain.graphql").read_text()


def test_without_a_build_the_page_says_how_to_build_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    server = BrainServer(root, env={"BRAIN_WEB_DIST": str(tmp_path / "no-build")}).start()
    try:
        page = httpx.get(server.base + "/")
    finally:
        server.stop()
    assert page.status_code == 503
    assert "The web UI is not built" in page.text
    assert "make web" in page.text
