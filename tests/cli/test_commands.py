"""Every read-only command, human and `--json`, over stdio and streamable HTTP."""

from __future__ import annotations

from tests.cli import SAMPLE, SAMPLE_STDIO, TEMPLATE, rea, rea_many, snake_case_keys

INVESTIGATE_STEPS = ["list_documents", "echo", "structured_info"]


def test_help_and_version_need_no_server() -> None:
    help_run, version = rea("--help").expect(0), rea("--version").expect(0)
    for command in ("servers", "prompts", "get", "complete", "tools", "call", "resources", "read"):
        assert command in help_run.out
    assert "exit codes" in help_run.out
    assert version.out.startswith("rea-tui ")
    call_help = rea("call", "--help").expect(0)
    for option in ("--yes", "--args", "--pick", "--elicit", "--server", "--url", "--stdio", "--timeout"):
        assert option in call_help.out


def test_prompts_human_and_json_with_trace() -> None:
    human, machine = rea_many(("prompts", *SAMPLE), ("prompts", "--json", "--trace", *SAMPLE))
    human.expect(0)
    lines = human.out.splitlines()
    assert "review_code - Review code" in lines
    assert "investigate - Investigate a procedure" in lines
    # Required arguments carry a star, optional ones do not.
    assert any(line.strip() == "* code:" for line in lines)
    assert any(line.strip() == "language:" for line in lines)
    assert any(line.strip() == "* feature:" for line in lines)
    assert any(line.strip() == "document:" for line in lines)
    assert "2 prompts" in human.out

    machine.expect(0)
    prompts = {p["name"]: p for p in machine.json()["prompts"]}
    assert list(prompts) == ["review_code", "investigate"]
    assert [(a["name"], a["required"]) for a in prompts["review_code"]["arguments"]] == [
        ("code", True),
        ("language", False),
    ]
    assert [(a["name"], a["required"]) for a in prompts["investigate"]["arguments"]] == [
        ("feature", True),
        ("document", False),
        ("procedure", False),
    ]
    assert prompts["investigate"]["title"] == "Investigate a procedure"
    # --trace: the traffic table goes to stderr, stdout stays pure JSON.
    assert "prompts/list" in machine.trace_methods("->", "request")
    assert "prompts/list" in machine.trace_methods("<-", "response")
    assert "process/started" in machine.err
    assert "prompts/list" not in machine.out


def test_complete_prompt_argument_context_and_template() -> None:
    narrowed, narrowed_json, large, template = rea_many(
        ("complete", "investigate", "procedure", "", "--context", "document=Helper", *SAMPLE),
        ("complete", "--json", "investigate", "procedure", "r", "--context", "document=Helper", *SAMPLE),
        ("complete", "--json", "investigate", "procedure", "search_", *SAMPLE),
        ("complete", "--template", TEMPLATE, "document", "", *SAMPLE),
    )
    narrowed.expect(0)
    assert narrowed.out.splitlines()[0].startswith("3 values (total 3")
    assert " ms" in narrowed.out.splitlines()[0]
    assert [line.strip() for line in narrowed.out.splitlines()[1:4]] == [
        "helper_main",
        "helper_sync",
        "render_page",
    ]
    assert "note_open" not in narrowed.out

    reply = narrowed_json.expect(0).json()
    page, rea_facts = reply["completion"], reply["rea"]
    assert {"values", "total", "hasMore"} <= set(page)
    assert page["values"] == ["render_page"]
    assert page["total"] == 1
    assert page["hasMore"] is False
    assert isinstance(rea_facts["latencyMs"], int | float) and rea_facts["latencyMs"] >= 0
    assert rea_facts["warnings"] == []

    many = large.expect(0).json()["completion"]
    assert len(many["values"]) == 100
    assert many["total"] == 250
    assert many["hasMore"] is True

    template.expect(0)
    assert [line.strip() for line in template.out.splitlines()[1:4]] == ["Helper", "Notes", "libsearch"]


def test_complete_human_output_reports_has_more() -> None:
    run = rea("complete", "investigate", "procedure", "search_", *SAMPLE).expect(0)
    first = run.out.splitlines()[0]
    assert first.startswith("100 values (total 250")
    assert "hasMore" in first


def test_get_renders_workflow_with_steps_in_order() -> None:
    human, machine = rea_many(
        ("get", "investigate", "feature=x", *SAMPLE), ("get", "--json", "investigate", "feature=x", *SAMPLE)
    )
    human.expect(0)
    assert "Investigate 'x' in document" in human.out
    assert "[assistant]" in human.out
    steps_part = human.out.split("steps:", 1)[1]
    numbered = [line.split(".", 1)[1].split(" - ")[0].strip() for line in steps_part.strip().splitlines()]
    assert numbered == INVESTIGATE_STEPS

    # The prompts/get result as the server sent it (a message has one content block), rea-tui's under `rea`.
    workflow = machine.expect(0).json()
    assert workflow["rea"]["prompt"] == "investigate"
    assert workflow["rea"]["arguments"] == {"feature": "x"}
    assert [s["tool"] for s in workflow["rea"]["steps"]] == INVESTIGATE_STEPS
    assert [m["role"] for m in workflow["messages"]][:2] == ["user", "assistant"]
    kinds = [m["content"]["type"] for m in workflow["messages"]]
    assert kinds == ["text", "text", "resource_link", "resource", "image"]
    image = workflow["messages"][-1]["content"]
    assert image == {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def test_get_json_uses_camel_case_keys() -> None:
    """`--json` promises MCP's camelCase keys; content blocks must not leak dataclass field names."""
    workflow = rea("get", "--json", "investigate", "feature=x", *SAMPLE).expect(0).json()
    link = next(m["content"] for m in workflow["messages"] if m["content"]["type"] == "resource_link")
    assert link.get("uri") == "sample://readme"
    assert snake_case_keys(workflow, skip=("arguments",)) == [], "snake_case keys in get --json"
    assert link.get("mimeType") == "text/plain"


def test_tools_show_declared_annotations() -> None:
    human, machine = rea_many(("tools", *SAMPLE), ("tools", "--json", *SAMPLE))
    human.expect(0)
    lines = human.out.splitlines()
    assert "echo  [readOnlyHint=true]" in lines
    assert "slow_task  [idempotentHint=true, readOnlyHint=true]" in lines
    assert "crash  [destructiveHint=true]" in lines
    assert "add_prompt  [destructiveHint=false, readOnlyHint=false]" in lines
    assert "not verified" in human.out

    tools = {t["name"]: t for t in machine.expect(0).json()["tools"]}
    assert set(tools) >= {"echo", "slow_task", "crash", "confirm_run", "structured_info"}
    assert tools["echo"]["annotations"]["readOnlyHint"] is True
    assert tools["crash"]["annotations"]["destructiveHint"] is True
    assert tools["echo"]["inputSchema"]["required"] == ["text"]
    assert tools["structured_info"]["outputSchema"]["type"] == "object"


def test_resources_templates_and_read() -> None:
    listing, listing_json, read, read_json = rea_many(
        ("resources", *SAMPLE),
        ("resources", "--json", *SAMPLE),
        ("read", "sample://readme", *SAMPLE),
        ("read", "--json", "sample://readme", *SAMPLE),
    )
    listing.expect(0)
    assert "sample://readme  readme  text/plain" in listing.out
    assert f"{TEMPLATE}  (template: document, procedure)" in listing.out
    assert "1 resources, 1 templates" in listing.out

    data = listing_json.expect(0).json()
    assert [r["uri"] for r in data["resources"]] == ["sample://readme"]
    assert data["resources"][0]["mimeType"] == "text/plain"
    assert [t["uriTemplate"] for t in data["resourceTemplates"]] == [TEMPLATE]

    read.expect(0)
    assert read.out.splitlines() == [
        "<resource sample://readme (text/plain, 27 characters)>",
        "The sample server's readme.",
    ]
    contents = read_json.expect(0).json()["contents"]
    assert contents[0]["uri"] == "sample://readme"
    assert contents[0]["text"] == "The sample server's readme."
    assert contents[0]["mimeType"] == "text/plain"


def test_servers_connects_and_reports() -> None:
    human, machine = rea_many(("servers", "--stdio", SAMPLE_STDIO), ("servers", "--json", "--stdio", SAMPLE_STDIO))
    human.expect(0)
    assert "sample-server 1.0.0, protocol" in human.out
    assert "capabilities: completions, prompts, resources, tools" in human.out
    [row] = machine.expect(0).json()["servers"]
    # The initialize result as sent, rea-tui's own facts under `rea`.
    assert row["rea"]["status"] == "ok"
    assert row["rea"]["transport"] == "stdio"
    assert set(row) == {"protocolVersion", "capabilities", "serverInfo", "instructions", "rea"}
    assert row["serverInfo"] == {"name": "sample-server", "version": "1.0.0"}
    assert row["protocolVersion"]
    assert {"prompts", "tools", "resources", "completions"} <= set(row["capabilities"])


def test_every_command_over_streamable_http(sample_http_url: str) -> None:
    url = ("--url", sample_http_url, "--header", "Authorization: Bearer s3cr3t-token")
    prompts, complete, get, tools, resources, read, servers, call = rea_many(
        ("prompts", "--json", "--trace", *url),
        ("complete", "--json", "investigate", "procedure", "", "--context", "document=Notes", *url),
        ("get", "investigate", "feature=x", *url),
        ("tools", "--json", *url),
        ("resources", "--json", *url),
        ("read", "sample://readme", *url),
        ("servers", "--json", *url),
        ("call", "--json", "echo", "text=over http", "--yes", *url),
    )
    assert [p["name"] for p in prompts.expect(0).json()["prompts"]] == ["review_code", "investigate"]
    assert "prompts/list" in prompts.trace_methods()
    assert "s3cr3t-token" not in prompts.out + prompts.err
    page = complete.expect(0).json()["completion"]
    assert page["values"] == ["note_open", "note_save", "note_search", "render_page"]
    assert page["total"] == 4
    steps = get.expect(0).out.split("steps:", 1)[1]
    assert [line.split(".", 1)[1].split(" - ")[0].strip() for line in steps.strip().splitlines()] == (INVESTIGATE_STEPS)
    assert "echo" in [t["name"] for t in tools.expect(0).json()["tools"]]
    assert resources.expect(0).json()["resourceTemplates"][0]["uriTemplate"] == TEMPLATE
    assert "The sample server's readme." in read.expect(0).out
    [row] = servers.expect(0).json()["servers"]
    assert (row["rea"]["transport"], row["rea"]["status"], row["rea"]["target"]) == ("http", "ok", sample_http_url)
    assert "s3cr3t-token" not in servers.out
    result = call.expect(0).json()
    assert result["rea"]["outcome"] == "ok"
    assert result["structuredContent"] == {"result": "over http"}
