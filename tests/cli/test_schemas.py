"""`rea-tui call` against a server whose schemas attack the host (tests.support.schema_server).

Nothing a schema names is fetched or read (a listener counts the hits: zero,
sent or not), a schema that loops or a pattern that never finishes is a
clean exit 2, and `--elicit*` answers forms with their defaults, by choice
label, with formats checked, refusing fields the form does not have.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.cli import PYTHON, Run, assert_terminal_safe, rea, rea_many
from tests.support.listeners import CountingListener, SilentListener

# A command that fetched from a silent host would hang; one that does not finishes in well under this.
NO_WAIT = 30.0


def schema_server(ref: str = "", silent: str = "", file: str = "") -> tuple[str, ...]:
    options = [f"--{name}={value}" for name, value in (("ref", ref), ("silent", silent), ("file", file)) if value]
    return ("--", PYTHON, "-m", "tests.support.schema_server", *options)


def answer_seen(run: Run) -> dict[str, Any]:
    """What the server got back from its elicitation (the `ask` tool reports it as its text)."""
    line = next(line for line in run.out.splitlines() if line.startswith('{"action"'))
    answer: dict[str, Any] = json.loads(line)
    return answer


def test_a_remote_ref_is_never_fetched_whether_the_call_is_sent_or_not() -> None:
    with CountingListener() as listener:
        server = schema_server(ref=listener.url)
        sent, refused, output = rea_many(
            ("call", "remote_ref", "target=x", "--yes", *server),
            ("call", "remote_ref", "target=x", *server),
            ("call", "remote_output", "--yes", *server),
        )
        time.sleep(0.2)
        assert listener.hits == 0
    named = f"the schema refers to '{listener.url}', which rea-tui does not fetch"
    sent.expect(0)
    assert f"not checked against the schema: {named}" in sent.err
    assert 'remote_ref got {"target": "x"}' in sent.out
    refused.expect(1)
    assert "not sent" in refused.err and named in refused.err
    output.expect(0)
    assert f"schema: valid against the output schema, except what was not checked: {named}" in output.out


def test_a_file_ref_is_never_read_and_a_silent_host_is_not_waited_for(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "integer", "description": "SECRET-FILE-CONTENT-51c2"}', encoding="utf-8")
    with SilentListener() as listener:
        server = schema_server(silent=listener.url, file=secret.as_uri())
        started = time.monotonic()
        read, waited = rea_many(
            ("call", "file_ref", "path=not an integer", "--yes", *server),
            ("call", "silent_ref", "x=1", "--yes", *server),
        )
        elapsed = time.monotonic() - started
        assert listener.hits == 0
    assert elapsed < NO_WAIT
    read.expect(0)  # the file's schema (an integer) was not applied: it was never read
    assert "SECRET-FILE-CONTENT" not in read.out + read.err
    assert secret.as_uri() in read.err
    waited.expect(0)
    assert listener.url in waited.err


def test_a_looping_schema_and_catastrophic_patterns_are_clean_errors() -> None:
    looped, matched, stuck = rea_many(
        ("call", "recursive_ref", "x=1", "--yes", *schema_server()),
        ("call", "catastrophic", "text=" + "a" * 40 + "!", "--yes", *schema_server()),
        ("call", "stuck_pattern", "text=" + "a" * 40 + "!", "--yes", *schema_server()),
    )
    for run in (looped, matched, stuck):
        run.expect(2)
        assert "Traceback" not in run.err and len(run.err) < 2_000, run.err
        assert_terminal_safe(run)
    assert "not sent: the tool's inputSchema cannot be used:" in looped.err
    assert "refers to itself without end" in looped.err
    assert "text: does not match the pattern '(a+)+$'" in matched.err
    assert "the schema's pattern '(a|a)+$' took longer than" in stuck.err


def test_elicit_fills_the_rest_from_the_forms_defaults() -> None:
    defaults, chosen = rea_many(
        ("call", "ask", "form=defaults", "--yes", "--elicit-accept", *schema_server()),
        (
            "call",
            "ask",
            "form=choices",
            "--yes",
            *("--elicit", "name=Ann", "--elicit", "colour=Red", "--elicit", "tags=Alpha, b"),
            *schema_server(),
        ),
    )
    defaults.expect(0)
    assert answer_seen(defaults) == {
        "action": "accept",
        "content": {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True},
    }
    assert "age = 30  (the form's default)" in defaults.err
    chosen.expect(0)
    # A titled choice is named by its label or its value; what is sent is the const.
    assert answer_seen(chosen) == {
        "action": "accept",
        "content": {"name": "Ann", "colour": "#f00", "tags": ["a", "b"], "level": "high"},
    }


def test_elicit_refuses_unknown_fields_and_bad_formats_and_can_decline_or_cancel() -> None:
    unknown, bad, good, declined, cancelled = rea_many(
        ("call", "ask", "form=choices", "--yes", "--elicit", "name=x", "--elicit", "nickname=y", *schema_server()),
        (
            "call",
            "ask",
            "form=formats",
            "--yes",
            "--elicit",
            "email=nobody",
            "--elicit",
            "day=2023-02-29",
            *schema_server(),
        ),
        (
            "call",
            "ask",
            "form=formats",
            "--yes",
            *("--elicit", "email=a@example.org", "--elicit", "day=2024-02-29"),
            *("--elicit", "when=2024-02-29T10:00:00Z", "--elicit", "site=https://example.org/"),
            *schema_server(),
        ),
        ("call", "ask", "form=choices", "--yes", "--elicit-decline", *schema_server()),
        ("call", "ask", "form=choices", "--yes", "--elicit-cancel", *schema_server()),
    )
    unknown.expect(2)
    assert answer_seen(unknown) == {"action": "decline"}  # nothing of the answer was sent
    assert "the form has no field nickname (its fields: name, level, colour, tags, subscribe)" in unknown.err
    bad.expect(2)
    assert answer_seen(bad) == {"action": "decline"}
    assert "email: is not a valid email" in bad.err and "day: is not a valid date" in bad.err
    good.expect(0)
    assert answer_seen(good)["content"]["site"] == "https://example.org/"
    declined.expect(0)
    assert answer_seen(declined) == {"action": "decline"}
    cancelled.expect(0)
    assert answer_seen(cancelled) == {"action": "cancel"}


def test_elicit_options_that_contradict_each_other_are_a_usage_error() -> None:
    both = rea("call", "ask", "form=choices", "--yes", "--elicit", "name=x", "--elicit-decline", *schema_server())
    both.expect(2)
    assert "--elicit values cannot be given with --elicit-decline" in both.err
    assert "ask" not in both.out  # refused before anything was called
