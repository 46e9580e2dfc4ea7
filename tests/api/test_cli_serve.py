"""`brain serve` as users run it: a real process, its printed URL, and a graceful stop."""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.api.client import ws_session
from tests.api.live import until_subscribed

READY = re.compile(r"ready on (http://127\.0\.0\.1:\d+/graphql)")


@contextmanager
def brain_serve(*args: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def wait_for_url(process: subprocess.Popen[str], timeout: float = 120.0) -> str:
    """Its "ready on" line (a condition wait: a loaded CI machine took over 30 s to start it)."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        if ready:
            line = process.stdout.readline()
            found = READY.search(line)
            if found:
                return found.group(1)
        if process.poll() is not None:
            stderr = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"brain serve exited early: {stderr}")
    raise AssertionError("brain serve never printed its URL")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
async def test_serve_prints_its_url_answers_and_stops_gracefully(
    workspace: Path, stop: signal.Signals
) -> None:
    """And a stop closes the open subscriptions with "service restart" (1012), so clients
    reconnect: checked on the same start (a start is an interpreter, the server's imports
    and a first ingest), for each signal."""
    with brain_serve(env={"BRAIN_WORKSPACE": str(workspace), "BRAIN_PORT": "0"}) as process:
        url = await asyncio.to_thread(wait_for_url, process)
        async with httpx.AsyncClient(timeout=30) as client:
            health = await client.get(url.replace("/graphql", "/healthz"))
            answer = await client.post(url, json={"query": "{ stats { memories agents } }"})
        async with ws_session(url.replace("http://", "ws://")) as session:
            await session.subscribe("subscription { graphChanged { id } }")
            await until_subscribed(url.removesuffix("/graphql"))  # (was a fixed 0.2 s sleep)
            process.send_signal(stop)
            await asyncio.wait_for(session.ws.wait_closed(), 10)
            code = session.ws.close_code
        assert await asyncio.to_thread(process.wait, 60) == 0
        assert process.stderr is not None
        stderr = process.stderr.read()
    assert health.json()["status"] == "ready"
    assert answer.json() == {"data": {"stats": {"memories": 4, "agents": 3}}}
    assert "brain serve: stopped" in stderr
    assert code == 1012  # "service restart": clients reconnect


def test_serve_on_the_example_workspace(tmp_path: Path) -> None:
    # A copy: a served workspace gets brain's history and first versions under .brain/, and
    # a test never writes into the repository (tests/conftest.py fails the run if it does).
    example = shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "workspace",
                              tmp_path / "workspace", symlinks=True)
    with brain_serve(str(example), "--port", "0") as process:
        url = wait_for_url(process)
        agents = httpx.post(url, json={"query": "{ agents { name } }"}).json()
        process.send_signal(signal.SIGINT)
        assert process.wait(15) == 0
    assert len(agents["data"]["agents"]) >= 4


def test_a_taken_port_is_a_clear_error(workspace: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with brain_serve(str(workspace), "--port", str(port)) as process:
            # A bound, not a wait: it exits as soon as it finds the port taken (30 s ran out
            # once at load 20, the server's imports and the read before it binds).
            assert process.wait(120) == 2
            assert process.stderr is not None
            message = process.stderr.read()
    assert f"cannot listen on 127.0.0.1:{port}" in message
    assert "pick another --port" in message


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ((), {}, "no workspace given (pass a folder or set BRAIN_WORKSPACE)"),
        (("{missing}",), {}, "is not a folder"),
        (
            ("{ws}",), {"BRAIN_TOKENS_FILE": "{missing}/nope.json"},
            "BRAIN_TOKENS_FILE {missing}/nope.json: cannot be read",
        ),
        (
            # Whoever writes the workspace would make themselves an admin ("*"): refused.
            ("{ws}",), {"BRAIN_TOKENS_FILE": "{ws}/tokens.json"},
            "BRAIN_TOKENS_FILE: [serve] tokens_file {ws}/tokens.json lies inside the workspace",
        ),
        (
            ("{ws}",), {"BRAIN_RESCAN_SECONDS": "soon"},
            "BRAIN_RESCAN_SECONDS='soon': [serve] rescan_seconds must be a number",
        ),
        (("{ws}",), {"BRAIN_MAX_BODY_BYTES": "12"}, "BRAIN_MAX_BODY_BYTES: [serve] max_body_bytes must be"),
        (("{ws}",), {"BRAIN_PORT": "http"}, "BRAIN_PORT='http': [serve] port must be a whole number"),
        (("{ws}",), {"BRAIN_METRICS": "maybe"}, "BRAIN_METRICS='maybe': [serve] metrics must be true or"),
    ],
)
def test_bad_configuration_is_one_clear_line(
    workspace: Path, tmp_path: Path, args: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    def fill(text: str) -> str:
        return text.format(ws=workspace, missing=tmp_path / "missing")

    clean_env = {k: v for k, v in os.environ.items()
                 if not k.startswith("BRAIN_") or k == "BRAIN_SNAPSHOT_DIR"}
    completed = subprocess.run(
        [sys.executable, "-m", "brain", "serve", *map(fill, args), "--port", "0"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**clean_env, **{k: fill(v) for k, v in env.items()}},
    )
    assert completed.returncode == 2
    assert fill(message) in completed.stderr
    assert "Traceback" not in completed.stderr


def test_tokens_protect_the_served_api(workspace: Path, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"agent-token": "bot"}), encoding="utf-8")
    env = {"BRAIN_TOKEN": "admin-token", "BRAIN_TOKENS_FILE": str(tokens)}
    with brain_serve(str(workspace), "--port", "0", env=env) as process:
        url = wait_for_url(process)
        query = {"query": "{ stats { memories } }"}
        refused = httpx.post(url, json=query)
        admin = httpx.post(url, json=query, headers={"Authorization": "Bearer admin-token"})
        agent = httpx.post(url, json=query, headers={"Authorization": "Bearer agent-token"})
        process.send_signal(signal.SIGINT)
        process.wait(15)
    assert refused.status_code == 401
    assert admin.status_code == agent.status_code == 200


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine cannot bind ::1 (no IPv6 loopback)")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_serve_on_ipv6_loopback_accepts_its_own_host_header(workspace: Path, host: str) -> None:
    """Clients send `Host: [::1]:PORT`; `::1` alone in the allowed hosts refused them all."""
    with brain_serve(str(workspace), "--host", host, "--port", "0") as process:
        assert process.stdout is not None
        deadline = time.monotonic() + 120
        url = None
        while url is None and time.monotonic() < deadline and process.poll() is None:
            if select.select([process.stdout], [], [], 0.1)[0]:
                found = re.search(r"ready on (http://\[::1\]:\d+/graphql)", process.stdout.readline())
                url = found.group(1) if found else None
        assert url is not None, "brain serve --host ::1 never printed its URL"
        answer = httpx.post(url, json={"query": "{ stats { memories } }"})
        rebound = httpx.post(url, json={"query": "{ stats { memories } }"}, headers={"Host": "evil.example"})
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"data": {"stats": {"memories": 4}}}
    assert rebound.status_code == 400
