"""What each hostile API request costs a real `brain serve`: time to answer, whether `/healthz`
answers meanwhile, and the server's peak RSS.

    .venv/bin/python bench/bench_hostile_api.py [--budget 20] [--body-mb 400] [--only NAME ...]

Each case gets a fresh server (tests/hostile/api_server.py: its own process under
RLIMIT_AS), so a case that blocks the server cannot spoil the next. Every request has a
budget (`--budget` seconds): on code without the limits the figures read "> budget", and
the run still ends. Prints a table and writes bench/results/hostile_api.json. Run it on a
checkout before and after a fix to get the before/after figures of docs/security.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.api.client import ws_session  # noqa: E402
from tests.api.files import make_workspace  # noqa: E402
from tests.hostile.api_server import (  # noqa: E402
    ADMIN_TOKEN,
    AGENT_TOKEN,
    HostileServer,
    hostile_server,
    probe,
    write_tokens,
)

Outcome = dict[str, Any]


def fan_out(levels: int) -> str:
    fragments = [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)]
    return "\n".join(["query { ...F0 }", *fragments, f"fragment F{levels} on Query {{ __typename }}"])


def post(server: HostileServer, budget: float, body: bytes, token: str = AGENT_TOKEN,
         path: str = "/graphql", method: str = "POST", headers: dict[str, str] | None = None) -> Outcome:
    response = httpx.request(method, server.base + path, content=body, timeout=budget, headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}", **(headers or {}),
    })
    return {"status": response.status_code, "answer": response.text[:160], "bytes": len(response.content)}


def fanout_post(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, json.dumps({"query": fan_out(40)}).encode())


def fanout_ws(server: HostileServer, budget: float, _: int) -> Outcome:
    async def run() -> Outcome:
        async with ws_session(server.ws, {"token": AGENT_TOKEN}) as session:
            stream = await session.subscribe(fan_out(40))
            message = await stream.next(timeout=budget)
            return {"status": message["type"], "answer": json.dumps(message)[:160]}

    return asyncio.run(run())


def big_body(server: HostileServer, budget: float, megabytes: int) -> Outcome:
    """Declare and send `megabytes` MB; stop when the server answers or closes."""
    host, port = server.base.removeprefix("http://").split(":")
    total = megabytes * 1024**2
    with socket.create_connection((host, int(port)), timeout=budget) as sock:
        sock.sendall(f"POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     f"Authorization: Bearer {AGENT_TOKEN}\r\nContent-Length: {total}\r\n\r\n".encode())
        chunk, sent = b" " * (1024 * 1024), 0
        try:
            while sent < total:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        try:
            answer = sock.recv(300)
        except OSError:
            answer = b""
    return {"status": answer[9:12].decode() or "closed", "sent_mb": round(sent / 1024**2)}


def deep_variables(server: HostileServer, budget: float, _: int) -> Outcome:
    nested = b"[" * 100_000 + b"]" * 100_000
    query = b'{"query": "query($v: String) { __typename }", "variables": {"v": '
    return post(server, budget, query + nested + b"}}")


def invalid_utf8(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, b'{"query": "{ __typename }", "x": "\xff\xfe"}')


def subscription_over_post(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, b'{"query": "subscription { graphChanged { id } }"}', ADMIN_TOKEN)


def huge_cursor(server: HostileServer, budget: float, _: int) -> Outcome:
    query = "query($c: String) { memories(first: 1, after: $c) { totalCount } }"
    return post(server, budget, json.dumps({"query": query, "variables": {"c": "A" * 400_000}}).encode(),
                ADMIN_TOKEN)


def introspection_agent(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, b'{"query": "{ __schema { queryType { name } } }"}')


def ghost_token(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, b"", "ghost-token-0123456789", "/api/memory", "GET")


NOTE = json.dumps({"content": "---\ndescription: x\ntype: project\n---\nx\n"}).encode()


def if_match_star(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, NOTE, ADMIN_TOKEN, "/api/memory/bot/notes.md", "PUT", {"If-Match": "*"})


def empty_if_match(server: HostileServer, budget: float, _: int) -> Outcome:
    return post(server, budget, NOTE, ADMIN_TOKEN, "/api/memory/bot/notes.md", "PUT", {"If-Match": ""})


def wrong_init_token(server: HostileServer, budget: float, _: int) -> Outcome:
    async def run() -> Outcome:
        from websockets.asyncio.client import connect

        headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        async with connect(server.ws, subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
                           additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "connection_init", "payload": {"token": "wrong"}}))
            try:
                reply = await asyncio.wait_for(ws.recv(), budget)
            except Exception:  # closed: that is the outcome we report
                reply = ""
            return {"status": ws.close_code or json.loads(reply).get("type")}

    return asyncio.run(run())


CASES: dict[str, Callable[[HostileServer, float, int], Outcome]] = {
    "fragment-fan-out-post": fanout_post,
    "fragment-fan-out-ws": fanout_ws,
    "big-body": big_body,
    "deep-json-variables": deep_variables,
    "invalid-utf8-body": invalid_utf8,
    "subscription-over-post": subscription_over_post,
    "cursor-400kb": huge_cursor,
    "introspection-agent-token": introspection_agent,
    "tokens-file-unknown-agent": ghost_token,
    "if-match-star": if_match_star,
    "if-match-empty": empty_if_match,
    "connection-init-wrong-token": wrong_init_token,
}


def healthz_latency(server: HostileServer, budget: float) -> float | None:
    start = time.perf_counter()
    try:
        httpx.get(server.base + "/healthz", timeout=budget)
    except httpx.HTTPError:
        return None
    return time.perf_counter() - start


def run_case(name: str, budget: float, body_mb: int, root: Path) -> Outcome:
    workspace = make_workspace(root / name / "ws")
    tokens = root / name / "tokens.json"
    write_tokens(tokens)
    tokens.write_text(json.dumps({ADMIN_TOKEN: "*", AGENT_TOKEN: "bot", "ghost-token-0123456789": "ghost"}))
    with hostile_server(workspace, env={"BRAIN_TOKENS_FILE": str(tokens)}) as server:
        probe(server)  # warm: the first request of a process pays for lazy imports
        rss_before = server.peak_rss()
        outcome: Outcome = {}

        def attack() -> None:
            start = time.perf_counter()
            try:
                outcome.update(CASES[name](server, budget, body_mb))
                outcome["seconds"] = round(time.perf_counter() - start, 3)
            except Exception as exc:  # a timeout is a figure, not a crash
                outcome["error"] = type(exc).__name__

        thread = threading.Thread(target=attack, daemon=True)
        thread.start()
        time.sleep(0.2)
        health = healthz_latency(server, budget)
        thread.join(budget)
        return {
            "case": name,
            "seconds": None,
            "healthz_during_s": None if health is None else round(health, 3),
            "peak_rss_mb": round(server.peak_rss() / 1024**2, 1),
            "peak_rss_growth_mb": round((server.peak_rss() - rss_before) / 1024**2, 1),
            **outcome,
        }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--body-mb", type=int, default=400)
    parser.add_argument("--only", nargs="*", default=list(CASES))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "hostile_api.json")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only:
            result = run_case(name, args.budget, args.body_mb, Path(tmp))
            results.append(result)
            shown = "> budget" if result["seconds"] is None else f"{result['seconds']:.3f} s"
            health = result["healthz_during_s"]
            print(f"{name:30} {shown:>10}  healthz during: "
                  f"{'none' if health is None else f'{health:.3f} s':>8}  peak RSS "
                  f"{result['peak_rss_mb']:7.1f} MB (+{result['peak_rss_growth_mb']:.1f})  "
                  f"{result.get('status', result.get('error'))}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
