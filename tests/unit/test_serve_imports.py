"""What `brain serve` imports before it is ready: nothing only a later request needs
(each costs CPU a warm start at 100,000 notes waits for)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

LATER = ("mcp", "httpx", "rich.console")  # /mcp (mcp/transports/deferred.py); consolidation; a progress bar


@pytest.mark.parametrize("module", LATER)
def test_the_server_modules_do_not_import_what_only_later_requests_need(module: str) -> None:
    code = (
        "import sys, json; import brain.api.http.server, brain.api.http.app, brain.service.watch; "
        "import brain.snapshot.keeper; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                       text=True).stdout)
    assert module not in loaded


def test_a_chat_client_still_gets_its_http_client() -> None:
    from brain.maintain.consolidation.chat import ChatClient, ChatEndpoint

    client = ChatClient(ChatEndpoint(url="http://127.0.0.1:9", model="m"))
    try:
        assert type(client._client).__module__.startswith("httpx")
    finally:
        client.close()
