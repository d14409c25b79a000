"""Start at once: the opening request is answered before the SDK loads; the target opens in the background.

A raw JSON-RPC client over stdio shows the early reply is the SDK's reply
(the server logs a difference, and sends no second copy), and still arrives
while the SDK import is held. With the target's opening held (LIEF gated),
completion waits for it at most the discovery time budget, then answers an
empty list that names what is opening; `doctor` names the opening target,
`rea://session` says it is opening after a short wait, tools and a completion
asked meanwhile wait for it, and its readiness is announced with
prompts/list_changed on both protocol generations.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import IO, Any

import mcp_types as types
import pytest
from mcp.client.subscriptions import PromptsListChanged

from tests.server.live import REPO, LiveServer
from tests.support.import_gate import gated_environment

REPLY_TIMEOUT_SECONDS = 30.0
EARLY_REPLY_SECONDS = 10.0
"""Bound on the early reply while the SDK import is held (the hold itself never ends on its own)."""
OPENING_HOLD_SECONDS = 0.5
"""How long a tool call is watched to be still waiting while the target is held opening."""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
DISCOVER = {
    "jsonrpc": "2.0",
    "id": "probe",
    "method": "server/discover",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}


class RawClient:
    """Newline-delimited JSON-RPC over the server's stdin and stdout, nothing else."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self._in: IO[bytes] = process.stdin
        self._lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in iter(stdout.readline, b""):
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, message: dict[str, Any]) -> None:
        self._in.write(json.dumps(message).encode() + b"\n")
        self._in.flush()

    def receive_line(self, timeout: float = REPLY_TIMEOUT_SECONDS) -> bytes:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message within {timeout} s") from None
        assert line, "the server closed stdout"
        return line

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.receive_line())
        return message

    def arriving(self, seconds: float) -> list[dict[str, Any]]:
        """Every message that arrives within `seconds`."""
        found = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line:
                found.append(json.loads(line))
        return found

    def next_response(self) -> dict[str, Any]:
        """The next message that answers a request; notifications in between (list_changed when the
        target finishes opening, whenever that is) are passed over."""
        while True:
            message = self.receive()
            if "method" not in message:
                return message

    def reply_to(self, request_id: Any) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return message


@contextlib.contextmanager
def raw_server(*args: str, env: dict[str, str] | None = None) -> Iterator[RawClient]:
    process = subprocess.Popen(
        [sys.executable, "-m", "rea_tui.server", *args],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        yield RawClient(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=REPLY_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def stderr_of(client: RawClient) -> str:
    assert client.process.stderr is not None
    return client.process.stderr.read().decode(errors="replace")


@pytest.mark.parametrize("opening", [INITIALIZE, DISCOVER], ids=["initialize", "server/discover"])
def test_the_early_reply_is_the_sdk_reply_and_sent_once(opening: dict[str, Any]) -> None:
    with raw_server("--synthetic", "100") as client:
        client.send(opening)
        reply = client.reply_to(opening["id"])
        assert reply["result"]["serverInfo" if opening is INITIALIZE else "supportedVersions"]
        if opening is INITIALIZE:
            client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        else:
            client.send({**opening, "id": 2, "method": "tools/list"})
        # The SDK answers the next request; no other reply (no second opening reply) comes before it.
        assert client.next_response()["id"] == 2
    log = stderr_of(client)
    assert "differs" not in log, log


def test_initialize_is_answered_while_the_sdk_is_still_loading(tmp_path: Path) -> None:
    gate = tmp_path / "sdk-gate"
    with raw_server("--synthetic", "100", env=gated_environment("gate_sdk", gate)) as client:
        started = time.monotonic()
        client.send(INITIALIZE)
        reply = client.reply_to(1)
        assert time.monotonic() - started < EARLY_REPLY_SECONDS
        assert reply["result"]["protocolVersion"] == "2025-11-25"
        assert not gate.exists(), "answered while the SDK import is still held"
        gate.touch()
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        client.send({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"})
        prompts = client.reply_to(2)["result"]["prompts"]
        assert len(prompts) == 6
    assert "differs" not in stderr_of(client)


def test_an_unusual_opening_request_is_left_to_the_sdk() -> None:
    with raw_server("--synthetic", "100") as client:
        client.send({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 5}})
        reply = client.reply_to(7)
        assert reply["error"]["code"] == -32602


@contextlib.asynccontextmanager
async def held_opening(tmp_path: Path, mode: str, *args: str) -> AsyncIterator[tuple[LiveServer, Path]]:
    """The default target, with its opening held in `import lief` until the gate file exists."""
    gate = tmp_path / "lief-gate"
    live = await LiveServer(*args, mode=mode, wait_ready=False, env=gated_environment("gate_lief", gate)).start()
    try:
        yield live, gate
    finally:
        gate.touch()
        await live.stop()


COMPLETION_WAIT_SECONDS = 1.0
"""The discovery time budget these servers run with: how long a completion waits for the opening target."""


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_while_the_target_opens_completion_and_tools_wait(tmp_path: Path, mode: str) -> None:
    budget = ("--discovery-time-budget", str(COMPLETION_WAIT_SECONDS))
    async with held_opening(tmp_path, mode, *budget) as (server, gate):
        session = await server.session_state()
        assert session["state"] == "opening" and "interpreter" in session["opening"]
        for argument in ("procedure", "document"):
            started = time.monotonic()
            result = await server.client.complete(
                types.PromptReference(name="investigate_feature"), {"name": argument, "value": ""}
            )
            assert time.monotonic() - started >= COMPLETION_WAIT_SECONDS, "the completion waited for the target"
            assert result.completion.values == [] and result.completion.total == 0
            target = (result.meta or {}).get("rea/target")
            assert target is not None and target["state"] == "opening" and "interpreter" in target["label"]
            assert target["waited_seconds"] >= COMPLETION_WAIT_SECONDS
        doctor = await server.structured("doctor")
        opening = doctor["session"]["opening"]
        assert doctor["session"]["state"] == "opening" and "interpreter" in opening
        assert f"{opening} is still opening" in doctor["session"]["note"], "doctor names the opening target"
        prompts = (await server.client.list_prompts()).prompts
        assert all("(still opening)" in str(p.description) for p in prompts)
        assert (await server.session_state())["state"] == "opening", "none of that waited for the target"

        async with contextlib.AsyncExitStack() as stack:
            subscription = None
            if mode != "legacy":
                subscription = await stack.enter_async_context(server.client.listen(prompts_list_changed=True))
            server.notifications.clear()
            waiting = asyncio.create_task(server.structured("list_documents"))
            await asyncio.sleep(OPENING_HOLD_SECONDS)
            assert not waiting.done(), "a tool call waits for the target"
            gate.touch()
            documents = await asyncio.wait_for(waiting, REPLY_TIMEOUT_SECONDS)
            assert documents["documents"][0]["name"].startswith("python")
            if subscription is not None:
                event = await asyncio.wait_for(anext(aiter(subscription)), REPLY_TIMEOUT_SECONDS)
                assert isinstance(event, PromptsListChanged)
            else:
                deadline = time.monotonic() + REPLY_TIMEOUT_SECONDS
                while not any(isinstance(n, types.PromptListChangedNotification) for n in server.notifications):
                    assert time.monotonic() < deadline, "no prompts/list_changed when the target became ready"
                    await asyncio.sleep(0.05)
        ready = await server.session_state()
        assert ready["state"] == "ready" and ready["kind"] == "default"
        described = (await server.client.list_prompts()).prompts[0].description
        assert "Active target: Python" in str(described) and "still opening" not in str(described)
        page = await server.complete("procedure", "PyList_Append")
        assert page.values == ["PyList_Append"]


async def test_what_is_asked_while_the_target_opens_waits_for_it(tmp_path: Path) -> None:
    """A completion waits (up to the discovery time budget) and answers from the target; `rea://session`
    and a rendered prompt wait a short while, and name what is opening if it still is."""
    budget = ("--discovery-time-budget", str(REPLY_TIMEOUT_SECONDS))
    async with held_opening(tmp_path, "legacy", *budget) as (server, gate):
        asked = asyncio.create_task(
            server.client.complete(
                types.PromptReference(name="investigate_feature"), {"name": "procedure", "value": "PyList_Appen"}
            )
        )
        reading = asyncio.create_task(server.session_state())
        rendering = asyncio.create_task(server.client.get_prompt("investigate_feature", {"feature": "lists"}))
        await asyncio.sleep(OPENING_HOLD_SECONDS)
        assert not asked.done(), "the completion waits for the target instead of answering empty"
        assert not reading.done() and not rendering.done(), "a cold read waits a moment for the target"
        gate.touch()
        result = await asyncio.wait_for(asked, REPLY_TIMEOUT_SECONDS)
        assert result.completion.values == ["PyList_Append"]
        target = (result.meta or {})["rea/target"]
        assert target["state"] == "ready" and target["waited_seconds"] >= OPENING_HOLD_SECONDS
        session = await asyncio.wait_for(reading, REPLY_TIMEOUT_SECONDS)
        # The read's wait is short and bounded: under load the target may still be opening, and then says what.
        assert session["state"] == "ready" or "interpreter" in session["opening"]
        rendered = await asyncio.wait_for(rendering, REPLY_TIMEOUT_SECONDS)
        text = rendered.messages[0].content
        assert isinstance(text, types.TextContent)
        assert "still opening" not in text.text or "interpreter" in text.text


def test_the_early_handshake_speaks_the_sdk_versions() -> None:
    from mcp_types import version

    from rea_tui.server.protocol import server_identity

    assert server_identity.HANDSHAKE_PROTOCOL_VERSIONS == version.HANDSHAKE_PROTOCOL_VERSIONS
    assert server_identity.LATEST_HANDSHAKE_VERSION == version.LATEST_HANDSHAKE_VERSION
    assert server_identity.MODERN_PROTOCOL_VERSIONS == version.MODERN_PROTOCOL_VERSIONS


@pytest.mark.parametrize("requested", ["2024-11-05", "2025-06-18", "1999-01-01"])
def test_the_early_reply_negotiates_like_the_sdk(requested: str) -> None:
    opening = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": requested}}
    with raw_server("--synthetic", "10") as client:
        client.send(opening)
        negotiated = client.reply_to(1)["result"]["protocolVersion"]
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        client.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert client.next_response()["id"] == 2
    assert negotiated == (requested if requested != "1999-01-01" else "2025-11-25")
    assert "differs" not in stderr_of(client)


async def test_open_first_answers_the_first_lists_with_the_target_open(tmp_path: Path) -> None:
    """`--open-first`: initialize is answered at once, the lists wait for the target and describe it;
    no prompts/list_changed follows (nothing changed since the client first asked)."""
    gate = tmp_path / "lief-gate"
    env = gated_environment("gate_lief", gate)
    server = await LiveServer("--open-first", wait_ready=False, env=env).start()
    try:
        listing = asyncio.create_task(server.client.list_prompts())
        await asyncio.sleep(OPENING_HOLD_SECONDS)
        assert not listing.done(), "the first prompts/list waits for the target"
        gate.touch()
        prompts = (await asyncio.wait_for(listing, REPLY_TIMEOUT_SECONDS)).prompts
        assert all("still opening" not in str(p.description) for p in prompts)
        assert "Active target: Python" in str(prompts[0].description)
        assert (await server.session_state())["state"] == "ready"
        assert not any(isinstance(n, types.PromptListChangedNotification) for n in server.notifications)
    finally:
        gate.touch()
        await server.stop()
