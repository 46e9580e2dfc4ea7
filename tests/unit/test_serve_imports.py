"""What `brain serve` imports before it is ready: nothing only a later request needs
(each costs CPU a warm start at 100,000 notes waits for)."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache

import pytest

LATER = ("mcp", "httpx", "rich.console")  # /mcp (mcp/transports/deferred.py); consolidation; a progress bar


@cache
def loaded_by_the_server() -> frozenset[str]:
    """The modules a fresh interpreter holds once the server's modules are imported: one
    interpreter for the three checks below (each started its own, the same imports each time)."""
    code = (
        "import sys, json; import brain.api.http.server, brain.api.http.app, brain.service.watch; "
        "import brain.snapshot.keeper; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    return frozenset(json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                               capture_output=True, text=True).stdout))


@pytest.mark.parametrize("module", LATER)
def test_the_server_modules_do_not_import_what_only_later_requests_need(module: str) -> None:
    loaded = loaded_by_the_server()
    assert "brain.api.http.server" in loaded  # the list is the server's, not an empty one
    assert module not in loaded


def test_a_chat_client_still_gets_its_http_client() -> None:
    from brain.maintain.consolidation.chat import ChatClient, ChatEndpoint

    client = ChatClient(ChatEndpoint(url="http://127.0.0.1:9", model="m"))
    try:
        assert type(client._client).__module__.startswith("httpx")
    finally:
        client.close()
