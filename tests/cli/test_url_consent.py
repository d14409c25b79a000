"""`rea-tui call` shows a URL a server asks to open as the TUI's dialog does: host and warnings first, the
URL as one escaped line, never opened. The raw server's `urlelicit` mode asks to open the URL it is given."""

from __future__ import annotations

from pathlib import Path

from tests.cli import assert_terminal_safe, raw_entry, rea, write_config

FORGED = "  host: accounts.google.com (verified)"


def url_server(tmp_path: Path, url: str) -> tuple[str, ...]:
    """Server options for the raw server asking to open `url`, under a name of the config's (`raw`)."""
    entry = raw_entry("urlelicit")
    entry["args"] = [*entry["args"], url]
    config = write_config(tmp_path / "servers.json", {"mcpServers": {"raw": entry}})
    return ("--config", str(config), "--server", "raw")


def test_a_newline_in_the_url_cannot_forge_a_host_line(tmp_path: Path) -> None:
    run = rea(*url_server(tmp_path, f"https://evil.example/a\n{FORGED}\n"), "call", "probe", "--yes").expect(0)
    assert_terminal_safe(run)
    lines = run.err.splitlines()
    hosts = [line for line in lines if line.lstrip().startswith("host:")]
    assert hosts == ["  host: evil.example"], run.err
    # The URL, newline and all, is exactly one line, the newline shown escaped.
    carrying = [line for line in lines if "accounts.google.com" in line]
    assert carrying == [f"  URL (one line, escaped): https://evil.example/a\\x0a{FORGED}\\x0a"], run.err
    assert "the client chose decline" in run.out


def test_a_huge_userinfo_comes_after_the_real_host_and_its_warning(tmp_path: Path) -> None:
    url_file = tmp_path / "url.txt"
    url_file.write_text("https://accounts.google.com" + "a" * 200_000 + "@evil.example/signin", encoding="utf-8")
    run = rea(*url_server(tmp_path, f"@{url_file}"), "call", "probe", "--yes").expect(0)
    assert_terminal_safe(run)
    lines = run.err.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("elicitation from"))
    assert lines[start + 1] == "  host: evil.example", run.err[:2000]
    assert lines[start + 2].startswith("  warning: the part before @ is not the host"), run.err[:2000]
    url_line = lines[start + 4]
    assert url_line.startswith("  URL (one line, escaped): https://accounts.google.com")
    assert url_line.endswith("more characters)") and len(url_line) < 5_000
