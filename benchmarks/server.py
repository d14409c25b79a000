"""Benchmark the reference server: start-up, the default target's inventory, completion and tracing.

Run: `python benchmarks/server.py` (no assertions; prints figures next to the targets).

- Start: wall time from spawning `python -m rea_tui.server` to the reply to
  `initialize`, with a tiny raw JSON-RPC client over stdio (target <= 0.3 s);
  and 20 servers spawned at once, until every one has answered (target: all
  within 6 s), and until every target is ready.
- The default target (the interpreter and its libraries, libpython has about
  5,400 procedures): the time to open it and build the full inventory
  (`TargetAnalysis.prepare`, what completion reads), in process.
- Procedure name completion on libpython, in process (`CompletionEngine`,
  what the `completion/complete` handler calls) and over stdio (request to
  reply): median and p95 (target: median <= 5 ms).
- `search_strings` and `find_references` on libpython over stdio: the first
  call (builds the strings index and the capstone reference index) and
  repeated calls (targets: first <= 2 s, repeated find_references <= 50 ms).
- Procedure completion over a 100,000-procedure synthetic target, against a
  naive baseline (a linear NFKC-casefold scan over every value, then a sort).
- The biggest binaries here: libLLVM (Debian's libllvm15, installed with
  apt-get when missing; the benchmark says so) and the running `node`. For
  each, `objdump -d` of the same file is timed in the same run (wall time and
  peak RSS) as the baseline; the server (over stdio, `--target FILE`) is timed
  from spawn to ready plus its first find_references (goal: no slower than
  objdump), with its peak RSS (goal: at most 3x the file's size) and the p95
  of procedure completions asked while that first find_references builds its
  index (goal: <= 5 ms). Then a server started on libc switches libc -> big
  binary -> libc four times with open_binary; its RSS at start and after.

`python benchmarks/server.py big` runs only the biggest binaries.
"""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rea_tui.server.analysis.target_analysis import TargetAnalysis  # noqa: E402
from rea_tui.server.completion.completion_engine import CompletionEngine  # noqa: E402
from rea_tui.server.completion.text_forms import fold  # noqa: E402
from rea_tui.server.limits import MAX_COMPLETION_VALUES  # noqa: E402
from rea_tui.server.protocol.session_state import ServerOptions, Session  # noqa: E402
from rea_tui.server.providers.synthetic import SyntheticSpec  # noqa: E402
from rea_tui.server.target.procedure_inventory import discover  # noqa: E402
from rea_tui.server.target.target import Target, open_default, open_synthetic  # noqa: E402

SYNTHETIC_PROCEDURES = 100_000
REQUESTS = 400
PREFIX_LENGTHS = (0, 1, 2, 3, 5, 8, 13)
START_RUNS = 7
CONCURRENT_SERVERS = 20
TRACING_REPEATS = 20
REPLY_TIMEOUT_SECONDS = 120.0
WELL_KNOWN_MESSAGE = "object of type '%.200s' has no len()"
"""A libpython error message; its references are in the sequence and mapping size functions."""

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.3f} ms"


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- a raw JSON-RPC client over stdio ------------------------------------------------------------


class RawServer:
    """`python -m rea_tui.server ARGS` driven with newline-delimited JSON-RPC, nothing else."""

    def __init__(self, *args: str) -> None:
        self.spawned = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rea_tui.server", *args],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in: IO[bytes] = self.process.stdin
        self._lines: SimpleQueue[tuple[float, bytes]] = SimpleQueue()
        self._next_id = 1
        self._early: dict[int, tuple[float, dict[str, Any]]] = {}
        """Replies that arrived while another was awaited."""
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in iter(stdout.readline, b""):
            self._lines.put((time.perf_counter(), line))

    def send(self, message: dict[str, Any]) -> None:
        self._in.write(json.dumps(message).encode() + b"\n")
        self._in.flush()

    def reply(self, request_id: int, timeout: float = REPLY_TIMEOUT_SECONDS) -> tuple[float, dict[str, Any]]:
        """`(arrival time, message)` of the response to `request_id`."""
        if request_id in self._early:
            return self._early.pop(request_id)
        while True:
            try:
                arrived, line = self._lines.get(timeout=timeout)
            except Empty:
                raise TimeoutError(f"no reply to request {request_id}") from None
            message = json.loads(line)
            if "method" in message or not isinstance(message.get("id"), int):
                continue
            if message["id"] == request_id:
                return arrived, message
            self._early[message["id"]] = (arrived, message)

    def arrived(self, request_id: int) -> bool:
        """Whether the reply to `request_id` is in (without waiting)."""
        while True:
            try:
                arrived, line = self._lines.get_nowait()
            except Empty:
                return request_id in self._early
            message = json.loads(line)
            if "method" not in message and isinstance(message.get("id"), int):
                self._early[message["id"]] = (arrived, message)

    def start(self, method: str, params: dict[str, Any]) -> tuple[int, float]:
        """Send a request without waiting: `(its id, when it was sent)`."""
        request_id = self._next_id
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id, time.perf_counter()

    def status(self, field: str) -> int:
        """A `/proc/PID/status` size (`VmRSS`, `VmHWM`), in bytes."""
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError(f"no {field} in /proc status")

    def initialize(self) -> float:
        """Seconds from spawn to the initialize reply; then completes the handshake."""
        self.send(INITIALIZE)
        arrived, _ = self.reply(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return arrived - self.spawned

    def request(self, method: str, params: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        """`(round-trip seconds, result)`."""
        request_id = self._next_id
        self._next_id += 1
        started = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        arrived, message = self.reply(request_id)
        if "error" in message:
            raise RuntimeError(f"{method} failed: {message['error']}")
        return arrived - started, message["result"]

    def tool(self, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        elapsed, result = self.request("tools/call", {"name": name, "arguments": arguments})
        return elapsed, result.get("structuredContent") or {}

    def until_ready(self) -> float:
        """Seconds from spawn until `rea://session` no longer says the target is opening."""
        while True:
            _, result = self.request("resources/read", {"uri": "rea://session"})
            if json.loads(result["contents"][0]["text"])["state"] != "opening":
                return time.perf_counter() - self.spawned
            time.sleep(0.02)

    def close(self) -> None:
        self._in.close()
        try:
            self.process.wait(timeout=REPLY_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# -- start-up --------------------------------------------------------------------------------------


def bench_start() -> None:
    print("\nstart-up (default target, stdio, raw JSON-RPC client)")
    samples: list[float] = []
    ready: list[float] = []
    for _ in range(START_RUNS):
        server = RawServer()
        samples.append(server.initialize())
        ready.append(server.until_ready())
        server.close()
    print(f"  spawn -> initialize reply, median of {START_RUNS}  {ms(statistics.median(samples))}   (target <= 300 ms)")
    print(f"  spawn -> target ready, median            {ms(statistics.median(ready))}")
    servers = [RawServer() for _ in range(CONCURRENT_SERVERS)]
    started = min(s.spawned for s in servers)
    for server in servers:
        server.send(INITIALIZE)
    answered = [server.reply(0)[0] for server in servers]
    print(
        f"  {CONCURRENT_SERVERS} servers at once: all answered initialize  {ms(max(answered) - started)}"
        "   (target <= 6000 ms)"
    )
    for server in servers:
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    all_ready = max(server.until_ready() for server in servers)
    print(f"  {CONCURRENT_SERVERS} servers at once: all targets ready      {ms(all_ready)}")
    for server in servers:
        server.close()


# -- the default target ------------------------------------------------------------------------------


def libpython(target: Target) -> str:
    return max(target.documents, key=lambda d: len(d.backend.inventory.records)).name


def bench_default_inventory(runs: int = 5) -> None:
    options = ServerOptions()
    open_default()  # warm LIEF's import and the page cache
    opens: list[float] = []
    builds: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        target = open_default()
        opened = time.perf_counter()
        analysis = TargetAnalysis(target, options.discovery())
        analysis.prepare()
        opens.append(opened - started)
        builds.append(time.perf_counter() - opened)
    procedures = sum(len(d.backend.inventory.records) for d in target.documents)
    name = libpython(target)
    print(f"\ndefault target: {len(target.documents)} documents, {procedures:,} procedures ({name} is the largest)")
    print(f"  open (LIEF parse), median of {runs}        {ms(statistics.median(opens))}")
    print(f"  full inventory build, median            {ms(statistics.median(builds))}   (discovery + indexes)")
    bench_default_completion(analysis, name)


def bench_default_completion(analysis: TargetAnalysis, document: str) -> None:
    session = Session(ServerOptions())
    session.activate(analysis)
    engine = CompletionEngine(session)
    rng = random.Random(7)
    doc = analysis.target.document(document)
    assert doc is not None
    names = [n for r in doc.backend.inventory.records for n in r.names]
    prefixes = [rng.choice(names)[: rng.choice(PREFIX_LENGTHS[1:])] for _ in range(REQUESTS)]
    scoped = [time_call(lambda p=p: engine.complete("procedure", p, {"document": document})) for p in prefixes]
    whole = [time_call(lambda p=p: engine.complete("procedure", p, {})) for p in prefixes]
    print(f"  name completion in {document}, {REQUESTS} prefixes, in process")
    print(f"    document in context     median {ms(statistics.median(scoped))}   p95 {ms(percentile(scoped, 0.95))}")
    print(f"    whole target            median {ms(statistics.median(whole))}   p95 {ms(percentile(whole, 0.95))}")


def time_call(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def bench_default_over_stdio() -> None:
    server = RawServer()
    server.initialize()
    server.until_ready()
    _, listed = server.tool("list_documents", {})
    document = max(listed["documents"], key=lambda d: d.get("procedure_count", 0))["name"]
    rng = random.Random(11)
    _, page = server.tool("list_procedures", {"document": document, "limit": 500})
    names = [n for p in page["procedures"] for n in p["names"]]
    samples: list[float] = []
    for _ in range(REQUESTS):
        prefix = rng.choice(names)[: rng.choice(PREFIX_LENGTHS[1:])]
        params = {
            "ref": {"type": "ref/prompt", "name": "investigate_feature"},
            "argument": {"name": "procedure", "value": prefix},
            "context": {"arguments": {"document": document}},
        }
        samples.append(server.request("completion/complete", params)[0])
    print(f"\n{document} over stdio (request to reply)")
    print(
        f"  name completion, {REQUESTS} requests   median {ms(statistics.median(samples))}   "
        f"p95 {ms(percentile(samples, 0.95))}   (target median <= 5 ms)"
    )
    first_search, found = server.tool("search_strings", {"query": "has no len()"})
    again = [server.tool("search_strings", {"query": "has no len()"})[0] for _ in range(TRACING_REPEATS)]
    string = next(s for s in found["strings"] if s["text"] == WELL_KNOWN_MESSAGE)
    print(f"  search_strings first call        {ms(first_search)}   (builds every document's strings)")
    print(f"  search_strings repeated, median  {ms(statistics.median(again))}")
    first_refs, refs = server.tool("find_references", {"string": str(string["id"])})
    repeated = [server.tool("find_references", {"string": str(string["id"])})[0] for _ in range(TRACING_REPEATS)]
    by_text = [server.tool("find_references", {"string": WELL_KNOWN_MESSAGE})[0] for _ in range(TRACING_REPEATS)]
    print(f"  find_references first call       {ms(first_refs)}   (capstone pass over {document}; target <= 2000 ms)")
    print(f"  find_references repeated, median {ms(statistics.median(repeated))}   (by id; target <= 50 ms)")
    print(f"  find_references by text, median  {ms(statistics.median(by_text))}   (resolves the text first)")
    referring = ", ".join(n for r in refs["references"] for n in r["procedure"]["names"])
    print(f"    {WELL_KNOWN_MESSAGE!r} is referred to by: {referring}")
    server.close()


# -- synthetic scale ----------------------------------------------------------------------------------


def naive_baseline(target: Target, options: ServerOptions) -> Callable[[str, str], object]:
    """Per request: fold every candidate value and keep the prefix matches, then sort."""
    provider = target.providers["auto"]
    candidates = {
        doc.name: discover(
            provider, doc.name, limit=options.discovery_limit, page_size=options.page_size, time_budget=float("inf")
        ).values()
        for doc in target.documents
    }

    def run(document: str, prefix: str) -> object:
        key = fold(prefix)
        matches = sorted({v for v in candidates[document] if fold(v).startswith(key)})
        return matches[:MAX_COMPLETION_VALUES], len(matches)

    return run


def bench_synthetic(documents: int) -> None:
    options = ServerOptions()
    started = time.perf_counter()
    target = open_synthetic(SyntheticSpec(SYNTHETIC_PROCEDURES, 0, documents=documents))
    analysis = TargetAnalysis(target, options.discovery())
    analysis.prepare()
    build = time.perf_counter() - started
    session = Session(options)
    session.activate(analysis)
    engine = CompletionEngine(session)
    rng = random.Random(7)
    requests: list[tuple[str, str]] = []
    weights = [len(d.backend.inventory.records) for d in target.documents]
    for _ in range(REQUESTS):
        doc = rng.choices(target.documents, weights=weights)[0]
        record = rng.choice(doc.backend.inventory.records)
        source = rng.choice([*record.names, f"0x{record.address:x}"])
        requests.append((doc.name, source[: rng.choice(PREFIX_LENGTHS)]))
    samples = [time_call(lambda d=d, p=p: engine.complete("procedure", p, {"document": d})) for d, p in requests]
    baseline_run = naive_baseline(target, options)
    baseline = [time_call(lambda d=d, p=p: baseline_run(d, p)) for d, p in requests]
    median, base_median = statistics.median(samples), statistics.median(baseline)
    print(f"\n{SYNTHETIC_PROCEDURES:,} synthetic procedures in {len(target.documents)} document(s)")
    print(f"  open + full inventory build     {ms(build)}")
    print(f"  completion, {REQUESTS} requests    median {ms(median)}   p95 {ms(percentile(samples, 0.95))}")
    print(f"  naive linear NFKC scan          median {ms(base_median)}   p95 {ms(percentile(baseline, 0.95))}")
    print(f"  speed-up (median)               {base_median / median:8.1f}x")


# -- the biggest binaries ----------------------------------------------------------------------------

LLVM_PACKAGE = "libllvm15"
LLVM_GLOB = "/usr/lib/x86_64-linux-gnu/libLLVM-1[0-9]*.so.1"
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
WELL_CALLED = {"libLLVM": "_ZN4llvm4errsEv", "node": "uv_close"}
"""Functions the binaries call from many places (`llvm::errs()`: about 1,100 calls and jumps in objdump -d)."""
SWITCH_CYCLES = 4
MB = 1024 * 1024


def mb(count: float) -> str:
    return f"{count / MB:8.1f} MB"


def llvm_library() -> str | None:
    found = sorted(glob.glob(LLVM_GLOB))
    if not found and shutil.which("apt-get"):
        print(f"  libLLVM is missing: installing Debian's {LLVM_PACKAGE} with apt-get")
        subprocess.run(["apt-get", "install", "-y", "-q", LLVM_PACKAGE], check=False, stdout=subprocess.DEVNULL)
        found = sorted(glob.glob(LLVM_GLOB))
    return found[-1] if found else None


def objdump_baseline(path: str) -> tuple[float, int]:
    """`objdump -d -w` of the whole file: (wall seconds, peak RSS bytes)."""
    started = time.perf_counter()
    child = subprocess.Popen(["objdump", "-d", "-w", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    return time.perf_counter() - started, usage.ru_maxrss * 1024


def completion_params(document: str, prefix: str) -> dict[str, Any]:
    return {
        "ref": {"type": "ref/prompt", "name": "investigate_feature"},
        "argument": {"name": "procedure", "value": prefix},
        "context": {"arguments": {"document": document}},
    }


def bench_big_binary(label: str, path: str) -> None:
    size = os.path.getsize(path)
    print(f"\n{label}: {path} ({mb(size).strip()})")
    if shutil.which("objdump"):
        objdump_seconds, objdump_rss = objdump_baseline(path)
        print(f"  objdump -d -w (baseline)                {ms(objdump_seconds)}   peak RSS {mb(objdump_rss)}")
    else:
        objdump_seconds = float("nan")
        print("  objdump is not installed: no baseline")
    server = RawServer("--target", path)
    server.initialize()
    ready = server.until_ready()
    _, listed = server.tool("list_procedures", {"limit": 500})
    document = listed["document"]["name"]
    names = [n for p in listed["procedures"] for n in p["names"] if n.isidentifier()]
    plain = [n for n in names if not n.startswith("__")]
    # A function the binary's own code calls often where it defines one, else one in the middle of the first page,
    # by name where it has a plain one, else by address.
    middle = listed["procedures"][len(listed["procedures"]) // 2]
    subject = WELL_CALLED.get(label) or (plain[len(plain) // 2] if plain else middle["address"])
    names = names or [middle["address"]]
    rng = random.Random(5)
    find_id, sent = server.start("tools/call", {"name": "find_references", "arguments": {"procedure": subject}})
    during: list[float] = []
    while not server.arrived(find_id):
        prefix = rng.choice(names)[: rng.choice(PREFIX_LENGTHS[1:])]
        during.append(server.request("completion/complete", completion_params(document, prefix))[0])
    arrived, reply = server.reply(find_id)
    first_find = arrived - sent
    result = reply.get("result") or {}
    found = result.get("structuredContent") or {}
    if result.get("isError") or "total" not in found:
        print(f"  find_references did not answer a list: {json.dumps(result)[:300]}")
    peak = server.status("VmHWM")
    idle: list[float] = []
    for _ in range(max(len(during), REQUESTS)):
        prefix = rng.choice(names)[: rng.choice(PREFIX_LENGTHS[1:])]
        idle.append(server.request("completion/complete", completion_params(document, prefix))[0])
    total = ready + first_find
    print(f"  server spawn -> ready                   {ms(ready)}")
    print(f"  first find_references ({subject[:24]}) {ms(first_find)}   {found.get('total', '?')} referring procedures")
    ratio = total / objdump_seconds
    print(f"  ready + first find_references           {ms(total)}   {ratio:5.2f}x objdump (goal <= 1x)")
    print(f"  server peak RSS                         {mb(peak)}   {peak / size:5.2f}x the file (goal <= 3x)")
    if during:
        print(
            f"  completion while the index builds, {len(during)} requests   median {ms(statistics.median(during))}"
            f"   p95 {ms(percentile(during, 0.95))}   (goal p95 <= 5 ms)"
        )
    else:
        print("  completion while the index builds: the index was built before the first completion was answered")
    print(
        f"  completion once it is built, {len(idle)} requests   median {ms(statistics.median(idle))}"
        f"   p95 {ms(percentile(idle, 0.95))}   (the same server idle: what the machine's load alone costs)"
    )
    server.close()


def bench_switches(big: str) -> None:
    server = RawServer("--target", LIBC)
    server.initialize()
    server.until_ready()
    start = server.status("VmRSS")
    for _ in range(SWITCH_CYCLES):
        server.tool("open_binary", {"path": big})
        server.tool("open_binary", {"path": LIBC})
    after = server.status("VmRSS")
    print(f"\nswitching libc -> {os.path.basename(big)} -> libc, {SWITCH_CYCLES} times (open_binary over stdio)")
    print(f"  RSS on libc at start                    {mb(start)}")
    print(f"  RSS on libc after {SWITCH_CYCLES} switches             {mb(after)}   ({after / start:4.2f}x the start)")
    print(f"  peak RSS                                {mb(server.status('VmHWM'))}")
    server.close()


def bench_biggest() -> None:
    print("\nthe biggest binaries")
    llvm = llvm_library()
    node = shutil.which("node")
    subjects = [("libLLVM", llvm), ("node", os.path.realpath(node) if node else None)]
    for label, path in subjects:
        if path is None:
            print(f"  {label}: not found on this machine, skipped (say so when quoting figures)")
            continue
        bench_big_binary(label, path)
    if llvm is not None:
        bench_switches(llvm)


def main() -> None:
    print("rea-tui reference server benchmark")
    if sys.argv[1:] == ["big"]:
        bench_biggest()
        return
    bench_start()
    bench_default_inventory()
    bench_default_over_stdio()
    bench_synthetic(documents=5)
    bench_synthetic(documents=1)
    bench_biggest()


if __name__ == "__main__":
    main()
