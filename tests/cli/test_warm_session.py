"""`rea-tui session`: a warm background host, driven as an analyst drives it from a shell.

Every test starts a real session (`rea-tui session start`, a real background
process) on a real server (the bundled one, or the stateful test server) and
runs real `rea-tui` commands with REA_TUI_SESSION set.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import shlex
import signal
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea_tui.cli import session_wire as wire
from rea_tui.cli.session_host import SessionHost
from rea_tui.cli.session_place import SESSION_ENV
from rea_tui.host import Session, read_transcript
from tests.cli import PYTHON, REPO, UNSAFE_CHARACTER, Run, rea_command
from tests.support.terminal import CSI, set_size, spawn_on_terminal

STATEFUL = ("--stdio", f"{shlex.quote(PYTHON)} -m tests.support.stateful_server")
# How long a background host may take to notice it should end (it looks twice a second), on a loaded machine.
ENDING_SECONDS = 60.0
# The state column of /proc/net/tcp for a listening socket.
TCP_LISTEN = "0A"
IDLE_SECONDS = 6


@pytest.fixture
def runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private XDG_RUNTIME_DIR with a short path (a Unix socket path has at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))
    folder.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


def rea(*args: str, session: str | None = None, stdin: int | None = subprocess.DEVNULL) -> Run:
    env = {**os.environ}
    env.pop(SESSION_ENV, None)
    if session is not None:
        env[SESSION_ENV] = session
    done = subprocess.run(
        [*rea_command(), *args], cwd=REPO, env=env, stdin=stdin, capture_output=True, text=True, timeout=300
    )
    return Run(args, done.returncode, done.stdout, done.stderr)


def host_pid(session: str) -> int:
    return int(Path(session).stem)


def gone(pid: int) -> bool:
    """The process has ended (a zombie not yet reaped by init counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state in ("Z", "X")


def wait_until(condition: Callable[[], bool], seconds: float = ENDING_SECONDS) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


@pytest.fixture
def warm(runtime_dir: Path) -> Iterator[Callable[..., str]]:
    """Start a warm session with these options; its socket path. Every session started is ended after the test."""
    started: list[str] = []

    def start(*options: str) -> str:
        run = rea("session", "start", *options).expect(0)
        assigned = run.out.split(";")[0]
        assert assigned.startswith(f"{SESSION_ENV}="), run.out
        path = shlex.split(assigned.split("=", 1)[1])[0]
        started.append(path)
        return path

    yield start
    for path in started:
        pid = host_pid(path)
        if not gone(pid):
            os.kill(pid, signal.SIGTERM)
            wait_until(lambda pid=pid: gone(pid))  # type: ignore[misc]


def status(session: str) -> dict[str, object]:
    data: dict[str, object] = rea("session", "status", "--json", session=session).expect(0).json()
    return data


def test_an_opened_target_stays_open_and_evidence_ids_go_on(warm: Callable[..., str]) -> None:
    session = warm()
    opened = rea("call", "--json", "open_binary", "path=/usr/bin/env", "--yes", session=session).expect(0).json()
    assert opened["structuredContent"]["evidence_id"] == "E-0001"
    found = rea("call", "--json", "search_strings", "query=ignore-environment", "--yes", session=session)
    data = found.expect(0).json()
    # The search ran on the target the previous command opened, in the same server process and ledger.
    assert {s["document"] for s in data["structuredContent"]["strings"]} == {"env"}
    assert data["structuredContent"]["evidence_id"] == "E-0002"
    assert data["rea"]["evidence"] == "E2"
    assert status(session)["evidence"] == ["E-0001", "E-0002"]
    # In text, the page of strings is a table, printed once (no JSON of it as content or structuredContent).
    text = rea("call", "search_strings", "query=ignore-environment", "--yes", session=session).expect(0)
    assert re.search(r"^ *id +document +section +address +text$", text.out, re.M), text.out
    assert re.search(r"^ *\d+ +env +\.rodata +0x[0-9a-f]+ +ignore-environment$", text.out, re.M), text.out
    assert "structuredContent" not in text.out and '"strings"' not in text.out


def test_a_stateful_servers_session_id_lasts_across_commands(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    started = rea("call", "--json", "start", "--yes", session=session).expect(0).json()
    token = started["structuredContent"]["result"]
    first = rea("call", "--json", "step", f"session={token}", "--yes", session=session).expect(0).json()
    second = rea("call", "--json", "step", f"session={token}", "--yes", session=session).expect(0).json()
    assert first["structuredContent"]["result"] == f"session {token}: step 1"
    assert second["structuredContent"]["result"] == f"session {token}: step 2"
    assert [first["rea"]["evidence"], second["rea"]["evidence"]] == ["E2", "E3"]
    # One-shot, the same id means nothing: the server that minted it is the session's.
    rea("call", "step", f"session={token}", "--yes", *STATEFUL).expect(1)


def test_approval_is_asked_as_one_shot_asks_it(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    refused = rea("call", "count", session=session).expect(1)
    assert "not sent (approve with --yes or answer y)" in refused.err
    assert status(session)["evidence"] == []
    # On a terminal: "a" allows the read-only tool for the session; the next call of it runs unasked.
    allowed = on_terminal(session, "a\n", "call", "--json", "count").expect(0)
    assert "Run this call? [y/N/a" in allowed.err
    assert allowed.json()["rea"]["approval"] == "allowed for the session"
    again = rea("call", "--json", "count", session=session).expect(0)
    assert again.json()["rea"]["approval"] == "allowed for the session"
    # A tool not declared read-only cannot be allowed for the session: "a" is no yes for it.
    denied = on_terminal(session, "a\n", "call", "start").expect(1)
    assert "[y/N]" in denied.err and "not sent" in denied.err
    yes = on_terminal(session, "y\n", "call", "--json", "start").expect(0)
    assert yes.json()["rea"]["approval"] == "interactive yes"
    assert rea("call", "start", session=session).code == 1  # still asked each time
    transcript = read_transcript(Path(str(status(session)["transcript"])))
    decisions = [(e["tool"], e["decision"]) for e in transcript.of_type("approval")]
    assert decisions == [
        ("count", "deny"),
        ("count", "session"),
        ("count", "session"),
        ("start", "deny"),
        ("start", "once"),
        ("start", "deny"),
    ]


def on_terminal(session: str, typed: str, *args: str) -> Run:
    """`rea-tui ARGS` with a terminal on stdin, on which `typed` is typed."""
    controller, terminal = pty.openpty()
    try:
        os.write(controller, typed.encode())
        return rea(*args, session=session, stdin=terminal)
    finally:
        os.close(terminal)
        os.close(controller)


def test_the_socket_and_its_folder_are_private(warm: Callable[..., str]) -> None:
    session = Path(warm(*STATEFUL))
    socket_info, folder_info = os.lstat(session), os.lstat(session.parent)
    assert stat.S_ISSOCK(socket_info.st_mode) and stat.S_IMODE(socket_info.st_mode) == 0o600
    assert stat.S_ISDIR(folder_info.st_mode) and stat.S_IMODE(folder_info.st_mode) == 0o700
    assert socket_info.st_uid == folder_info.st_uid == os.getuid()
    # Nothing listens on TCP: no socket of the host's is a listening TCP socket.
    pid = host_pid(str(session))
    host_sockets = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == TCP_LISTEN:
                listening.add(f"socket:[{fields[9]}]")
    assert any(s.startswith("socket:[") for s in host_sockets)
    assert not listening & host_sockets


def test_another_user_cannot_reach_the_socket(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    if os.getuid() != 0:
        pytest.skip("needs root to run a client as another uid")  # the CI and developer machines run as root
    child = os.fork()
    if child == 0:
        code = 0
        try:
            os.setgid(65534)
            os.setuid(65534)
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(session)
            code = 1  # connected: the folder and socket modes did not keep it out
        except PermissionError:
            code = 0
        except BaseException:
            code = 2
        os._exit(code)
    _, waited = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(waited) == 0


def test_the_host_refuses_a_peer_of_another_uid(runtime_dir: Path) -> None:
    """SO_PEERCRED through the host's real handler: a host owned by another uid than the client's says nothing."""

    async def exchange() -> tuple[bytes, int]:
        folder = runtime_dir / "s"
        folder.mkdir(mode=0o700)
        session = Session([])
        host = SessionHost(session, folder / "h.sock", idle=60, owner_uid=os.getuid() + 1)
        await host.listen()
        try:
            reader, writer = await asyncio.open_unix_connection(str(folder / "h.sock"))
            writer.write(wire.encode("status", json=True))
            await writer.drain()
            try:
                said = await reader.read()
            except ConnectionResetError:
                said = b""  # closed with the request unread: the kernel resets the connection
            writer.close()
            return said, host.refused
        finally:
            await host.close()
            await session.close()

    said, refused = asyncio.run(exchange())
    assert said == b"" and refused == 1


def test_the_host_ends_after_its_idle_timeout(warm: Callable[..., str]) -> None:
    # Long enough for one command to start on a loaded machine, short enough to wait for.
    session = warm(*STATEFUL, "--idle", str(IDLE_SECONDS))
    rea("call", "start", "--yes", session=session).expect(0)
    transcript = Path(str(status(session)["transcript"]))
    assert wait_until(lambda: gone(host_pid(session)))
    assert not Path(session).exists()
    ended = read_transcript(transcript).of_type("session_end")
    assert ended and ended[-1]["reason"] == f"idle for {IDLE_SECONDS} s"
    gone_run = rea("tools", session=session).expect(3)
    assert "no session answers" in gone_run.err


def test_a_killed_host_leaves_every_line_of_its_transcript(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    for _ in range(3):
        rea("call", "start", "--yes", session=session).expect(0)
    transcript = Path(str(status(session)["transcript"]))
    os.kill(host_pid(session), signal.SIGKILL)
    assert wait_until(lambda: gone(host_pid(session)))
    read = read_transcript(transcript)
    assert not read.truncated
    calls = read.of_type("tool_call")
    assert [c["tool"] for c in calls] == ["start"] * 3
    assert [c["outcome"] for c in calls] == ["ok"] * 3
    assert len(read.of_type("approval")) == 3


def test_session_stop_ends_the_host_and_unsets_the_variable(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    stopped = rea("session", "stop", session=session).expect(0)
    assert stopped.out.strip() == f"unset {SESSION_ENV};"
    assert wait_until(lambda: gone(host_pid(session)))
    assert not Path(session).exists()
    assert rea("session", "status", session=session).code == 3


def test_commands_without_a_server_run_here_and_other_servers_are_refused(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    listed = rea("sessions", session=session).expect(0)
    assert "transcripts in" in listed.out
    other = rea("tools", "--url", "http://127.0.0.1:9/mcp", session=session).expect(2)
    assert "--url names a server of its own" in other.err
    unknown = rea("tools", "--server", "nope", session=session).expect(2)
    assert "this session has no server 'nope'" in unknown.err
    helped = rea("call", "--help", session=session).expect(0)
    assert "approve without asking" in helped.out


def test_the_host_survives_malformed_messages(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    for junk in (b"not json\n", b"[]\n", b'{"v": 1, "type": "run", "argv": "tools"}\n', b"\xff\n", b"x" * 10_000):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(session)
            client.sendall(junk)
            client.shutdown(socket.SHUT_WR)
            assert client.recv(1024) == b""  # no answer, the connection closed
    rea("tools", session=session).expect(0)


@pytest.mark.parametrize(
    "message",
    [
        {"v": 1, "type": "run", "argv": ["tools"], "cwd": "relative", "stdin_tty": False},
        {"v": 1, "type": "run", "argv": ["tools", 3], "cwd": "/", "stdin_tty": False},
        {"v": 1, "type": "run", "argv": ["tools"], "cwd": "/", "stdin_tty": 1},
        {"v": 1, "type": "run", "argv": ["tools"], "cwd": "/", "stdin_tty": False, "env": {}},
        {"v": 2, "type": "status", "json": True},
        {"v": 1, "type": "exit", "code": 0},
        {"v": 1, "type": "answer", "text": "y" * (wire.ANSWER_LIMIT + 1)},
    ],
)
def test_requests_outside_the_protocol_are_refused(message: dict[str, object]) -> None:
    with pytest.raises(wire.WireError):
        wire.decode(json.dumps(message).encode(), wire.REQUESTS)


@pytest.mark.parametrize(
    "message",
    [
        {"v": 1, "type": "exit", "code": True},
        {"v": 1, "type": "exit", "code": 300},
        {"v": 1, "type": "out", "text": None},
        {"v": 1, "type": "run", "argv": [], "cwd": "/", "stdin_tty": False},
    ],
)
def test_replies_outside_the_protocol_are_refused(message: dict[str, object]) -> None:
    with pytest.raises(wire.WireError):
        wire.decode(json.dumps(message).encode(), wire.REPLIES)


def test_hostile_server_text_reaches_the_shell_neutralized(warm: Callable[..., str]) -> None:
    # The sample server in hostile mode puts escape sequences and markup in its names and values.
    hostile = f"SAMPLE_HOSTILE=1 {shlex.quote(PYTHON)} -m tests.support.sample_server"
    session = warm("--stdio", f"env {hostile}")
    done = rea("call", "echo", "text=hi", "--yes", session=session).expect(0)
    listed = rea("tools", session=session).expect(0)
    for output in (done.out, done.err, listed.out, listed.err):
        assert not UNSAFE_CHARACTER.search(output), output
    assert "RED" in done.out  # the text arrived, its escapes made visible


def test_a_session_whose_servers_cannot_start_says_why(runtime_dir: Path) -> None:
    failed = rea("session", "start", "--stdio", f"{shlex.quote(PYTHON)} -c 'raise SystemExit(7)'").expect(3)
    assert failed.out == ""  # nothing for the shell to eval
    assert "the session did not start: no server could be connected" in failed.err
    assert not any((runtime_dir / "rea-tui" / "sessions").glob("*.sock"))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
MESSAGE_LIKE = st.fixed_dictionaries(
    {"v": st.sampled_from([1, 2, "1", True]), "type": st.sampled_from([*wire.REQUESTS, *wire.REPLIES, "x"])},
    optional={name: JSON_VALUES for name in ("argv", "cwd", "stdin_tty", "text", "code", "json", "question")},
)


@settings(max_examples=150, deadline=None)
@given(line=st.binary(max_size=200) | JSON_VALUES.map(lambda v: json.dumps(v).encode()))
def test_any_line_is_a_message_or_a_wire_error(line: bytes) -> None:
    for allowed in (wire.REQUESTS, wire.REPLIES):
        try:
            message = wire.decode(line, allowed)
        except wire.WireError:
            continue
        assert message["type"] in allowed


@settings(max_examples=150, deadline=None)
@given(candidate=MESSAGE_LIKE)
def test_a_decoded_message_has_exactly_its_types_fields(candidate: dict[str, object]) -> None:
    for allowed in (wire.REQUESTS, wire.REPLIES):
        try:
            message = wire.decode(json.dumps(candidate).encode(), allowed)
        except wire.WireError:
            continue
        fields = allowed[str(message["type"])]
        assert set(message) == {"v", "type", *fields}
        for name, kind in fields.items():
            assert type(message[name]) is kind


def test_prompts_completion_and_resources_run_in_the_session(warm: Callable[..., str]) -> None:
    session = warm("--stdio", f"{shlex.quote(PYTHON)} -m tests.support.sample_server")
    assert "review_code" in rea("prompts", session=session).expect(0).out
    completed = rea("complete", "review_code", "language", "py", session=session).expect(0)
    assert "python" in completed.out
    rendered = rea("get", "review_code", "code=x = 1", "language=python", session=session).expect(0)
    assert "steps:" in rendered.out and "echo" in rendered.out
    assert "sample://readme" in rea("resources", session=session).expect(0).out
    assert "The sample server's readme." in rea("read", "sample://readme", session=session).expect(0).out
    # `servers --json` as one-shot prints it: the initialize result as sent, rea-tui's facts under `rea`.
    [server] = rea("servers", "--json", session=session).expect(0).json()["servers"]
    assert server["serverInfo"] == {"name": "sample-server", "version": "1.0.0"} and "capabilities" in server
    assert server["rea"]["status"] == "ready"
    # The rendered workflow is in the session's transcript, as the TUI records it.
    workflows = read_transcript(Path(str(status(session)["transcript"]))).of_type("workflow")
    assert [w.get("prompt") for w in workflows] == ["review_code"]


def test_csh_syntax_on_request(runtime_dir: Path) -> None:
    # A short idle timeout ends the session even if an assertion below fails before the stop.
    started = rea("session", "start", "-c", "--idle", "120", *STATEFUL).expect(0)
    assert started.out.startswith(f"setenv {SESSION_ENV} ") and started.out.rstrip().endswith(";")
    path = shlex.split(started.out.removeprefix(f"setenv {SESSION_ENV} ").rstrip().rstrip(";"))[0]
    assert rea("session", "stop", "-c", session=path).expect(0).out.strip() == f"unsetenv {SESSION_ENV};"


def test_a_commands_own_timeout_holds_for_that_command_only(warm: Callable[..., str]) -> None:
    session = warm("--stdio", f"{shlex.quote(PYTHON)} -m tests.support.sample_server")
    late = rea("call", "slow_task", "seconds=20", "steps=2", "--timeout", "1", "--yes", session=session)
    assert late.code == 5, (late.code, late.err)  # ExitCode.TIMEOUT, long before the tool's 20 s
    # The next command has the session's limit again (30 s): a 2 s task ends normally.
    rea("call", "slow_task", "seconds=2", "steps=2", "--yes", session=session).expect(0)


# A server whose tool `wipe` declares what the file beside it says (read at each tools/list, which is counted
# in a second file); `flip` rewrites the declaration and, when the server announces changes, says so.
CHANGING_SERVER = """
import json, sys
declared, counted, announces = sys.argv[1], sys.argv[2], sys.argv[3] == "announces"

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

def tools():
    destructive = open(declared).read().strip() == "destructive"
    with open(counted, "a") as log:
        log.write("listed\\n")
    hints = {"readOnlyHint": not destructive, "destructiveHint": destructive}
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    return [
        {"name": "wipe", "inputSchema": schema, "annotations": hints},
        {"name": "flip", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": False}},
    ]

for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        capabilities = {"tools": {"listChanged": announces}}
        info = {"name": "changing-server", "version": "1"}
        version = message["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion": version, "capabilities": capabilities, "serverInfo": info}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": tools()}})
    elif method == "tools/call" and message["params"]["name"] == "flip":
        open(declared, "w").write("destructive")
        if announces:
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "flipped"}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "wiped"}]}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
"""


@pytest.mark.parametrize("announces", [True, False], ids=["announces-changes", "silent"])
def test_a_warm_call_shows_what_the_server_declares_now(
    warm: Callable[..., str], tmp_path: Path, announces: bool
) -> None:
    script, declared, counted = tmp_path / "changing.py", tmp_path / "declared.txt", tmp_path / "listed.txt"
    script.write_text(CHANGING_SERVER)
    declared.write_text("read-only")
    mode = "announces" if announces else "silent"
    session = warm("--stdio", shlex.join([PYTHON, str(script), str(declared), str(counted), mode]))

    def listings() -> int:
        return counted.read_text().count("listed") if counted.exists() else 0

    first = rea("call", "wipe", "path=/tmp/x", session=session).expect(1)  # shown, not approved
    assert "readOnlyHint=true" in first.out, first.out
    before = listings()
    rea("call", "wipe", "path=/tmp/x", session=session).expect(1)
    # A server that announces its changes keeps its listing; one that would not say is listed again.
    assert listings() == (before if announces else before + 1)
    rea("call", "flip", "--yes", session=session).expect(0)
    after = rea("call", "wipe", "path=/tmp/x", session=session).expect(1)
    assert "destructiveHint=true" in after.out and "readOnlyHint=true" not in after.out, after.out


def test_a_usage_error_in_a_warm_session_prints_a_json_error(warm: Callable[..., str]) -> None:
    """Relayed to the session's host, a `--json` command line that fails before running prints JSON too."""
    session = warm(*STATEFUL)
    for args, message in (
        (("complete", "--json"), "required: PROMPT|URI_TEMPLATE, argument"),
        (("call", "count", "--json", "--elicit", "oops", "--yes"), "must look like name=value"),
    ):
        run = rea(*args, session=session).expect(2)
        data = run.json()
        assert data["rea"] == {"exitCode": 2, "kind": "UsageError"} and message in data["error"]["message"]
        assert message in run.err


ATTACH_COLUMNS, ATTACH_LINES = 160, 48
ATTACH_SECONDS = 90.0
CTRL_Q = b"\x11"
# Textual leaves the alternate screen as it gives the terminal back.
LEFT_ALTERNATE_SCREEN = "\x1b[?1049l"


class AttachedTerminal:
    """`rea-tui session attach` on a pseudo-terminal of its own (its controlling terminal), read as a person would."""

    def __init__(self, session: str) -> None:
        env = {**os.environ, SESSION_ENV: session, "TERM": "xterm-256color"}
        self.master, self.process = spawn_on_terminal(
            [*rea_command(), "session", "attach"], env=env, cwd=REPO, columns=ATTACH_COLUMNS, lines=ATTACH_LINES
        )
        self.raw = ""

    @property
    def text(self) -> str:
        return CSI.sub("", self.raw)

    def resize(self, columns: int, lines: int) -> None:
        """As a terminal window resized: the kernel tells the foreground process (the attaching command)."""
        set_size(self.master, columns, lines)

    def read_until(self, condition: Callable[[], bool], seconds: float = ATTACH_SECONDS) -> None:
        import select

        deadline = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < deadline, (
                f"not seen in {seconds:g} s: {self.text[:1500]!r} … {self.text[-800:]!r}"
            )
            if select.select([self.master], [], [], 0.1)[0]:
                try:
                    self.raw += os.read(self.master, 65536).decode(errors="replace")
                except OSError:  # the other end closed: nothing more will come
                    return

    def wait(self) -> int:
        self.read_until(lambda: self.process.poll() is not None)
        return self.process.wait(timeout=10)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        os.close(self.master)


def test_session_attach_opens_the_tui_on_the_same_live_session(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    token = rea("call", "--json", "start", "--yes", session=session).expect(0).json()["structuredContent"]["result"]
    attached = AttachedTerminal(session)
    try:
        # The same server, already up (not started again), and the same ledger: the shell's call is listed.
        attached.read_until(lambda: "Evidence (1)" in attached.text and " ready" in attached.text)
        assert "start" in attached.text
        # A call from the shell while the TUI is open shows in it at once.
        rea("call", "step", f"session={token}", "--yes", session=session).expect(0)
        attached.read_until(lambda: "Evidence (2)" in attached.text)
        # The terminal shrinks: the TUI follows (at 80 columns its panes become tabs).
        attached.resize(80, 24)
        attached.read_until(lambda: "Prompts  Form  Workflow  Evidence" in attached.text)
        os.write(attached.master, CTRL_Q)
        assert attached.wait() == 0
        assert LEFT_ALTERNATE_SCREEN in attached.raw
    finally:
        attached.close()
    # Quitting the TUI left the session running, with the server's state and the ledger as they were.
    third = rea("call", "--json", "step", f"session={token}", "--yes", session=session).expect(0).json()
    assert third["structuredContent"]["result"] == f"session {token}: step 2"
    assert third["rea"]["evidence"] == "E3"
    assert status(session)["commands"] == 3


def test_a_session_ending_under_an_attached_tui_gives_the_terminal_back(warm: Callable[..., str]) -> None:
    session = warm(*STATEFUL)
    attached = AttachedTerminal(session)
    try:
        attached.read_until(lambda: " ready" in attached.text)
        # One TUI at a time: a second attach is refused, and says why; without a terminal there is none.
        second = AttachedTerminal(session)
        try:
            assert second.wait() == 3
            assert "open in a TUI already" in second.text
        finally:
            second.close()
        assert rea("session", "attach", session=session).expect(2).err.endswith("needs a terminal (stdin and stdout)\n")
        rea("session", "stop", session=session).expect(0)
        assert attached.wait() == 0
        assert LEFT_ALTERNATE_SCREEN in attached.raw
    finally:
        attached.close()
    assert wait_until(lambda: gone(host_pid(session)))
