"""A FastMCP server (PyPI `fastmcp`, pinned in the test extras) for the protocol tests.

`python -m tests.support.fastmcp_server` runs it over stdio. It has
instructions, a tool that asks for a reason through elicitation (and one that
never answers afterwards), a tool that lists the roots the
client offers, a slow tool, and a tool that sends log messages of a level
(FastMCP speaks 2026-07-28 when asked to, where logs are opted into per
request; with `protocol: legacy` it speaks 2025-11-25 and honours
`logging/setLevel`).
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from fastmcp import Context, FastMCP

INSTRUCTIONS = "Use ask_reason before anything else. Roots come from the client."

server = FastMCP("fastmcp-test", instructions=INSTRUCTIONS)


@dataclass
class Reason:
    reason: str


async def _ask(ctx: Context, hang: bool) -> str:
    answer = await ctx.elicit("Why run this?", response_type=Reason)
    if hang:
        await anyio.sleep_forever()
    if answer.action == "accept":
        return f"reason: {answer.data.reason}"
    return f"no reason ({answer.action})"


@server.tool
async def ask_reason(ctx: Context, hang: bool = False) -> str:
    """Ask the analyst why (elicitation); with hang, never answer after the reply."""
    return await _ask(ctx, hang)


@server.tool
async def ask_then_hang(ctx: Context) -> str:
    """Ask the analyst why (elicitation), then never answer."""
    return await _ask(ctx, hang=True)


@server.tool
async def show_roots(ctx: Context) -> list[str]:
    """The roots the client offers (roots/list)."""
    result = await ctx.session.list_roots()
    return [f"{root.uri} {root.name or ''}".strip() for root in result.roots]


@server.tool
async def slow(seconds: float = 1.0) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return f"slept {seconds} s"


@server.tool
async def say(ctx: Context, level: str = "error", count: int = 3) -> str:
    """Send COUNT log messages of LEVEL."""
    for number in range(count):
        await ctx.log(f"{level} message {number + 1}", level=level)  # type: ignore[arg-type]
    return f"said {count}"


if __name__ == "__main__":
    server.run(show_banner=False)
