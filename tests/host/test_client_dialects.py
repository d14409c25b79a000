"""Each client's variables and file format, piece by piece (the CLI table test drives them whole).

JSONC is fuzzed against `json`: plain JSON reads the same, and the same value
written with comments between tokens and trailing commas reads back equal,
whatever its strings hold (`//`, `/*`, `,]`). Each dialect is tried on what
its client expands and what it refuses, and an expanded value is never
expanded again (an environment value holding `${X}` is sent as it is).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea_tui.host import TrustGate, folder_listing
from rea_tui.host.config import jsonc
from rea_tui.host.config.client_variables import VariableContext, VariableError, codex_headers, dialect_for
from rea_tui.host.trust.trust_store import FolderFile, digest

# Text that looks like JSONC syntax inside strings and keys.
TRICKY = st.sampled_from(["//", "/*", "*/", ",", ",]", ",}", '"', "\\", "\n", " ", "a", "\u2028", "é"])
STRINGS = st.one_of(st.text(max_size=10), st.lists(TRICKY, max_size=6).map("".join))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), STRINGS)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(STRINGS, inner, max_size=4)),
    max_leaves=20,
)
COMMENTS = st.sampled_from(["", " ", "// a comment, with \"quotes\" and ]\n", "/* block */", "/* multi\nline */",
                            "/**/", "\n\t"])  # fmt: skip


@st.composite
def jsonc_text(draw: st.DrawFn, value: Any) -> str:
    """`value` written as JSONC: a comment (or none) around every token, a trailing comma where drawn."""

    def gap() -> str:
        return draw(COMMENTS)

    def write(item: Any) -> str:
        if isinstance(item, list):
            parts = [gap() + write(v) + gap() for v in item]
            trailing = "," + gap() if parts and draw(st.booleans()) else ""
            return "[" + ",".join(parts) + trailing + "]"
        if isinstance(item, dict):
            parts = [gap() + json.dumps(k) + gap() + ":" + gap() + write(v) + gap() for k, v in item.items()]
            trailing = "," + gap() if parts and draw(st.booleans()) else ""
            return "{" + ",".join(parts) + trailing + "}"
        return json.dumps(item)

    return gap() + write(value) + gap()


@settings(max_examples=400, deadline=None)
@given(value=VALUES, indent=st.sampled_from([None, 0, 2]))
def test_plain_json_reads_as_json_reads_it(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert jsonc.loads(text) == json.loads(text)
    assert jsonc.loads(text, trailing_commas=False) == json.loads(text)


@settings(max_examples=400, deadline=None)
@given(data=st.data(), value=VALUES)
def test_comments_and_trailing_commas_read_back_the_same_value(data: st.DataObject, value: Any) -> None:
    text = data.draw(jsonc_text(value))
    assert jsonc.loads(text) == value


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='{}[],:"\\/*\n 01ab-.etrufnl', max_size=30))
def test_arbitrary_text_without_comments_or_commas_agrees_with_json(text: str) -> None:
    """Where there is no comment and no trailing comma to drop, JSONC is JSON: the same value or a refusal."""
    if "/" in text or "," in text:
        text = text.replace("/", "").replace(",", "")
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            jsonc.loads(text)
        return
    assert jsonc.loads(text) == expected


@pytest.mark.parametrize(
    "text",
    ["[,]", "{,}", "[1,,]", "/* never closed", "{'single': 1}", "{unquoted: 1}", "[0x10]", "[1] /", "// only"],
)
def test_what_the_editors_refuse_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        jsonc.loads(text)


def test_an_error_names_the_files_line_and_column() -> None:
    text = '{\n  // a comment\n  "a": 1,\n  "b": oops\n}'
    with pytest.raises(json.JSONDecodeError) as caught:
        jsonc.loads(text)
    assert (caught.value.lineno, caught.value.colno) == (4, 8)


def test_gemini_allows_comments_not_trailing_commas() -> None:
    assert jsonc.loads('// x\n{"a": 1}', trailing_commas=False) == {"a": 1}
    with pytest.raises(ValueError):
        jsonc.loads('{"a": 1,}', trailing_commas=False)


# ------------------------------------------------------------------ dialects

HOME, WORKSPACE = Path("/home/ana"), Path("/work/repo")
ENV = {"TOKEN": "t0k", "EMPTY": "", "NESTED": "${TOKEN} $TOKEN ${env:TOKEN}"}


def expand(client: str, value: str, environ: dict[str, str] = ENV) -> str:
    return dialect_for(client).expand(value, VariableContext(environ, HOME, WORKSPACE))


@pytest.mark.parametrize(
    ("client", "written", "expanded"),
    [
        ("VS Code", "${workspaceFolder}/x:${userHome}", "/work/repo/x:/home/ana"),
        ("VS Code", "${workspaceFolderBasename}${/}${pathSeparator}", "repo//"),
        ("VS Code", "Bearer ${env:TOKEN}|${env:MISSING}|", "Bearer t0k||"),
        ("VS Code", "$TOKEN", "$TOKEN"),
        ("Cursor", "${userHome}/${env:TOKEN}/${env:MISSING}.", "/home/ana/t0k/."),
        ("Windsurf", "${env:TOKEN} ${workspaceFolder} $TOKEN", "t0k ${workspaceFolder} $TOKEN"),
        ("Claude Code", "${TOKEN}-${MISSING:-dflt}-${EMPTY:-dflt}-$TOKEN", "t0k-dflt--$TOKEN"),
        ("Claude Code", "${MISSING:-a:-b}", "a"),
        ("Claude Code", "${MISSING:-}", ""),
        ("Claude Code (local)", "${TOKEN}", "t0k"),
        ("Gemini CLI", "$TOKEN-${TOKEN}-$MISSING-${MISSING}-$TOKENé", "t0k-t0k-$MISSING-${MISSING}-t0ké"),
        ("Gemini CLI", "${env:TOKEN} $", "${env:TOKEN} $"),
        ("Claude Desktop", "${TOKEN} $TOKEN ${env:TOKEN}", "${TOKEN} $TOKEN ${env:TOKEN}"),
        ("Zed", "$HOME ${TOKEN}", "$HOME ${TOKEN}"),
        ("Codex", "${TOKEN}", "${TOKEN}"),
    ],
)
def test_each_dialect_expands_as_its_client(client: str, written: str, expanded: str) -> None:
    assert expand(client, written) == expanded


@pytest.mark.parametrize(
    ("client", "written", "message"),
    [
        ("Claude Code", "${MISSING}", "environment variable MISSING is not set (used as ${MISSING}; Claude Code"),
        ("Windsurf", "${env:MISSING}", "environment variable MISSING is not set"),
        ("Windsurf", "${file:/etc/passwd}", "${file:/etc/passwd} is a Windsurf variable rea-tui does not support"),
        ("VS Code", "${config:editor.fontSize}", "is a VS Code variable rea-tui does not support"),
        ("VS Code", "${command:pickFile}", "is a VS Code variable rea-tui does not support"),
        ("VS Code", "${TOKEN}", "${TOKEN} is a VS Code variable rea-tui does not support"),
        ("Cursor", "${input:key}", "${input:key} is a Cursor variable rea-tui does not support"),
    ],
)
def test_what_a_client_refuses_or_rea_tui_cannot_resolve_is_an_error(client: str, written: str, message: str) -> None:
    with pytest.raises(VariableError) as caught:
        expand(client, written)
    assert message in str(caught.value)


@pytest.mark.parametrize("client", ["VS Code", "Cursor", "Windsurf", "Claude Code", "Gemini CLI"])
def test_a_value_is_expanded_once(client: str) -> None:
    written = {"VS Code": "${env:NESTED}", "Cursor": "${env:NESTED}", "Windsurf": "${env:NESTED}"}
    assert expand(client, written.get(client, "${NESTED}")) == ENV["NESTED"]


@settings(max_examples=200, deadline=None)
@given(secret=st.text(max_size=20))
def test_an_environment_value_is_sent_verbatim(secret: str) -> None:
    environ = {"TOKEN": secret}
    for client, written in (("VS Code", "${env:TOKEN}"), ("Claude Code", "${TOKEN}"), ("Gemini CLI", "$TOKEN")):
        assert expand(client, f"<{written}>", environ) == f"<{secret}>"


def test_codex_headers_follow_codex() -> None:
    entry = {"env_http_headers": {"X-Team": "TEAM", "X-Blank": "BLANK", "X-None": "NONE"},
             "bearer_token_env_var": "TOKEN"}  # fmt: skip
    environ = {"TEAM": "red", "BLANK": "  ", "TOKEN": "abc"}
    assert codex_headers(entry, environ, "s") == {"X-Team": "red", "Authorization": "Bearer abc"}
    with pytest.raises(VariableError, match=r"TOKEN .* is empty"):
        codex_headers(entry, {**environ, "TOKEN": ""}, "s")
    with pytest.raises(VariableError, match=r"TOKEN .* is not set"):
        codex_headers(entry, {"TEAM": "red"}, "s")


# ------------------------------------------------------------------ the trust listing speaks each dialect


def test_the_trust_listing_shows_each_clients_variables_as_written(tmp_path: Path) -> None:
    files = []
    for name, client, data in (
        (".gemini/settings.json", "Gemini CLI",
         {"mcpServers": {"g": {"httpUrl": "http://h:$PORT/mcp", "headers": {"Authorization": "Bearer $SECRET"}}}}),
        (".mcp.json", "Claude Code", {"mcpServers": {"c": {"url": "${BASE:-http://h}/mcp"}}}),
        (".cursor/mcp.json", "Cursor", {"mcpServers": {"z": {"command": "zsrv", "args": ["$HOME", "${userHome}"]}}}),
    ):  # fmt: skip
        text = json.dumps(data)
        path = tmp_path / name
        files.append(FolderFile(name, client, path, text, digest(text.encode()), "untrusted"))
    listing = "\n".join(folder_listing(TrustGate(tmp_path, tuple(files))))
    assert "  expands: $PORT, $SECRET" in listing
    assert "  expands: ${BASE:-http://h}" in listing
    assert '  runs: "zsrv" "$HOME" "${userHome}"' in listing and "  expands: ${userHome}" in listing
    assert listing.count("expands:") == 3  # Cursor's `$HOME` is text, not a variable


def test_a_folders_zed_settings_do_not_ask_for_trust(tmp_path: Path) -> None:
    """Repositories carry `.zed/settings.json` for editor settings: it is not a folder config file."""
    from rea_tui.host import trust_gate

    (tmp_path / ".zed").mkdir()
    (tmp_path / ".zed" / "settings.json").write_text('{"tab_size": 2, "context_servers": {"z": {"command": "z"}}}')
    assert trust_gate(tmp_path).files == ()


def test_a_file_nested_too_deep_is_a_problem_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder's `.mcp.json` of a hundred thousand `[` is reported as unreadable (json's recursion is not an
    exception the readers expected)."""
    from rea_tui.host import discover, folder_listing, trust_gate

    depth = 100_000
    (tmp_path / ".mcp.json").write_text("[" * depth + "]" * depth)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    found = discover(home=tmp_path / "home", cwd=tmp_path)
    assert found.servers == [] and found.problems == [
        f"{tmp_path / '.mcp.json'} (Claude Code): cannot read it: nested too deeply to read"
    ]
    assert folder_listing(trust_gate(tmp_path))[1:] == ["  (no servers in it)"]
    with pytest.raises(ValueError, match="nested too deeply"):
        jsonc.loads("[" * depth + "]" * depth)


def test_gemini_switches_apply_across_its_files_a_folders_only_once_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rea_tui.host import TrustStore, discover, trust_gate

    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".gemini").mkdir(parents=True)
    (repo / ".gemini").mkdir(parents=True)
    servers = {name: {"command": name} for name in ("a", "b", "c")}
    user = {"mcpServers": servers, "mcp": {"allowed": ["a", "b"]}}
    (home / ".gemini" / "settings.json").write_text("// user settings\n" + json.dumps(user))
    (repo / ".gemini" / "settings.json").write_text(json.dumps({"mcp": {"excluded": ["b"]}, "mcpServers": {}}))
    monkeypatch.setenv("HOME", str(home))

    def disabled() -> dict[str, str]:
        return {s.name: s.disabled for s in discover(home=home, cwd=repo).servers}

    user_file = home / ".gemini" / "settings.json"
    assert disabled() == {"a": "", "b": "", "c": f"not in mcp.allowed of {user_file}"}
    gate = trust_gate(repo)
    TrustStore().trust(gate.folder, gate.files)
    folder_file = repo.resolve() / ".gemini" / "settings.json"
    assert disabled() == {
        "a": "",
        "b": f"turned off by mcp.excluded of {folder_file}",
        "c": f"not in mcp.allowed of {user_file}",
    }
