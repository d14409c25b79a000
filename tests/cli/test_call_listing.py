"""`rea-tui call` lists only the tools before it calls, and lists them afresh on every run."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.cli import PYTHON, SAMPLE, rea

# A server whose one tool declares what the file beside it says, so a test can change it between runs.
DECLARING_SERVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    destructive = Path(sys.argv[1]).read_text().strip() == "destructive"
    server = MCPServer("declaring-server", version="1.0.0")


    @server.tool(annotations=ToolAnnotations(readOnlyHint=not destructive, destructiveHint=destructive))
    def wipe(path: str) -> str:
        \"\"\"Remove a file (or pretend to).\"\"\"
        return f"would remove {path}"


    server.run("stdio")
    """
)


def test_call_lists_the_tools_only() -> None:
    run = rea("call", "echo", "text=hi", "--yes", "--trace", *SAMPLE).expect(0)
    sent = run.trace_methods()
    assert "tools/list" in sent and "tools/call" in sent
    for method in ("prompts/list", "resources/list", "resources/templates/list"):
        assert method not in sent, f"call sent {method}, which it does not need"


def test_the_approval_shows_what_the_server_declares_now(tmp_path: Path) -> None:
    script = tmp_path / "declaring_server.py"
    script.write_text(DECLARING_SERVER)
    declared = tmp_path / "declared.txt"
    server = ("--", PYTHON, str(script), str(declared))

    declared.write_text("read-only")
    first = rea("call", "wipe", "path=/tmp/x", *server).expect(1)  # not approved: shown, not sent
    assert "readOnlyHint=true" in first.out and "destructiveHint=true" not in first.out

    declared.write_text("destructive")
    second = rea("call", "wipe", "path=/tmp/x", *server).expect(1)
    assert "destructiveHint=true" in second.out and "readOnlyHint=true" not in second.out


def test_a_listing_reads_like_objdump_on_the_default_target() -> None:
    """Calls through the PLT are named and RIP-relative operands quote the string they load (objdump's comments)."""
    run = rea("call", "inspect_procedure", "procedure=_PyCodec_Lookup", "max_instructions=300", "--yes").expect(0)
    lines = run.out.splitlines()
    assert any(line.endswith("<strlen@plt>") and " call " in line for line in lines), run.out
    assert any(line.endswith('; "unknown encoding: %s"') and " lea " in line for line in lines), run.out
    assert any("<_PyCodec_Lookup+0x" in line for line in lines), run.out
