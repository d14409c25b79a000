"""A real reference server process and one task that owns its client connection.

`mcp.Client` must be entered and exited in the same task, while module-scoped
fixtures set up and tear down in different ones; so a background task owns the
connection and tests call the client from their own tasks on the same loop.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext
from pydantic import ConfigDict

REPO = Path(__file__).resolve().parents[2]


class RawRequest(types.Request[dict[str, Any] | None, str]):
    """Any method with any params, for sending deliberately schema-invalid requests."""

    method: str
    params: dict[str, Any] | None = None


class AnyResult(types.Result):
    model_config = ConfigDict(extra="allow")


def fold(value: str) -> str:
    """The test's own NFKC + casefold, independent of the server's implementation."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


READY_TIMEOUT_SECONDS = 60.0
READY_POLL_SECONDS = 0.05


class LiveServer:
    """`python -m rea_tui.server ARGS` over stdio, connected in `mode`.

    The server opens its target in the background; `start()` waits until
    `rea://session` no longer says it is opening, unless `wait_ready=False`.
    `command` replaces `-m rea_tui.server` (a test-support server script).
    """

    def __init__(
        self,
        *args: str,
        mode: str = "legacy",
        elicit: bool = True,
        wait_ready: bool = True,
        command: tuple[str, ...] = ("-m", "rea_tui.server"),
        env: dict[str, str] | None = None,
    ) -> None:
        self.env = env
        self.args = list(args)
        self.mode = mode
        self.elicit = elicit
        self.wait_ready = wait_ready
        self.command = command
        self.elicit_answer: types.ElicitResult = types.ElicitResult(action="decline")
        self.elicited: list[Any] = []
        self.notifications: list[Any] = []
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def client(self) -> Client:
        assert self._client is not None, "server not started"
        return self._client

    async def _on_elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.elicited.append(params)
        return self.elicit_answer

    async def _on_message(self, message: Any) -> None:
        self.notifications.append(getattr(message, "root", message))

    async def _own(self) -> None:
        params = StdioServerParameters(
            command=sys.executable, args=[*self.command, *self.args], cwd=str(REPO), env=self.env
        )
        try:
            async with Client(
                params,
                mode=self.mode,
                cache=None,
                elicitation_callback=self._on_elicit if self.elicit else None,
                message_handler=self._on_message,
                read_timeout_seconds=60,
            ) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            raise

    async def start(self) -> LiveServer:
        self._task = asyncio.create_task(self._own())
        await self._ready.wait()
        if self._error is not None:
            raise RuntimeError(f"server {self.args} failed to start") from self._error
        if self.wait_ready:
            await self.until_settled()
        return self

    async def session_state(self) -> dict[str, Any]:
        read = await self.client.read_resource("rea://session")
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents)
        state: dict[str, Any] = json.loads(content.text)
        return state

    async def until_settled(self, timeout: float = READY_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Wait until the target is no longer opening; returns the session resource."""
        deadline = time.monotonic() + timeout
        while True:
            state = await self.session_state()
            if state["state"] != "opening":
                return state
            assert time.monotonic() < deadline, "the target is still opening"
            await asyncio.sleep(READY_POLL_SECONDS)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    # -- conveniences ---------------------------------------------------------------------

    async def raw(self, method: str, params: dict[str, Any] | None) -> AnyResult:
        return await self.client.session.send_request(RawRequest(method=method, params=params), AnyResult)

    async def complete(
        self,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
        prompt: str = "investigate_feature",
    ) -> types.Completion:
        result = await self.client.complete(
            types.PromptReference(name=prompt), {"name": argument, "value": value}, context
        )
        return result.completion

    async def tool(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return await self.client.call_tool(name, arguments or {})

    async def structured(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.tool(name, arguments)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    async def all_procedures(self, document: str) -> list[dict[str, Any]]:
        """Every procedure of `document`, paged through the list_procedures tool."""
        out: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None:
            page = await self.structured("list_procedures", {"document": document, "offset": offset, "limit": 500})
            out.extend(page["procedures"])
            offset = page["next_offset"]
        return out


def expected_procedure_values(procedures: list[dict[str, Any]], exhaustive: bool = True) -> set[str]:
    """The seeds' rule, computed independently: all addresses; names only when unique by address."""
    addresses: dict[str, set[str]] = {}
    for proc in procedures:
        for name in proc["names"]:
            addresses.setdefault(name, set()).add(proc["address"])
    values = {p["address"] for p in procedures}
    if exhaustive:
        values |= {name for name, where in addresses.items() if len(where) == 1}
    return {v for v in values if len(v) <= 4096}


def matching(values: set[str], prefix: str) -> list[str]:
    key = fold(prefix)
    return sorted(v for v in values if fold(v).startswith(key))


def expected_target_values(by_document: dict[str, list[dict[str, Any]]]) -> set[str]:
    """Whole-target procedure values by the documented rule, computed independently.

    Within a document a value is an address or a name at exactly one address.
    It is offered plain when no other document has that identifier at all
    (as a name or an address), else as `DOCUMENT!VALUE`.
    """
    per_document = {doc: expected_procedure_values(procs) for doc, procs in by_document.items()}
    seen_in: dict[str, set[str]] = {}
    for doc, procs in by_document.items():
        for proc in procs:
            for identifier in (proc["address"], *proc["names"]):
                seen_in.setdefault(identifier, set()).add(doc)
    values: set[str] = set()
    for doc, own in per_document.items():
        for value in own:
            values.add(value if seen_in[value] == {doc} else f"{value}@{doc}")
    return {v for v in values if len(v) <= 4096}


def matching_target(values: set[str], prefix: str) -> list[str]:
    """The seeds' prefix rule over the whole target's values (qualified ones start with the name)."""
    key = fold(prefix)
    return sorted(v for v in values if fold(v).startswith(key))
