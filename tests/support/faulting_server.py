"""The reference server plus one method, `rea/fault`, whose handler always raises.

`python -m tests.support.faulting_server` serves a 500-procedure synthetic
target over stdio exactly as `python -m rea_tui.server --synthetic 500` does,
through the product's own `ReaServer`, stdio front and error middleware; the
extra method lets tests/server/test_errors.py prove that an unexpected
handler failure leaves as JSON-RPC -32603 (never code 0). The product itself
ships no such hook.
"""

from __future__ import annotations

from typing import Any

FAULT_METHOD = "rea/fault"
PROCEDURES = 500
LABEL = "synthetic target"


def main() -> int:
    from rea_tui.server.prompts.prompt_declarations import target_sentence
    from rea_tui.server.protocol.stdio_front import StdioFront

    front = StdioFront(target_sentence(None, LABEL))

    import mcp_types as types
    from mcp.server.context import ServerRequestContext

    from rea_tui.server.protocol.session_state import ServerOptions
    from rea_tui.server.protocol.stdio_serving import serve_stdio
    from rea_tui.server.providers.synthetic import SyntheticSpec
    from rea_tui.server.rea_server import ReaServer
    from rea_tui.server.target.target import open_synthetic
    from rea_tui.server.target.target_paths import StartupTarget

    async def fault(ctx: ServerRequestContext[Any, Any], params: types.RequestParams) -> types.EmptyResult:
        raise RuntimeError("injected fault")

    app = ReaServer(ServerOptions())
    app.server.add_request_handler(FAULT_METHOD, types.RequestParams, fault)
    startup = StartupTarget(lambda: open_synthetic(SyntheticSpec(PROCEDURES, 0)), LABEL)
    return serve_stdio(front, app, startup)


if __name__ == "__main__":
    raise SystemExit(main())
