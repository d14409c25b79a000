"""Start the TUI (kept apart from app.py so `rea-tui --help` never imports Textual)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rea_tui.host import DeferredInputs, ServerSpec, TrustGate, start_servers

USAGE_EXIT_CODE = 2  # ExitCode.USAGE, without importing the CLI from the UI


def run_app(
    specs: Sequence[ServerSpec],
    *,
    timeout: float,
    transcript: Path | None,
    replay: Path | None = None,
    offline: bool = False,
    inputs: DeferredInputs | None = None,
    offer_discovered: bool = False,
    max_reply_size: int | None = None,
    untrusted_folder: TrustGate | None = None,
) -> int:
    """`offer_discovered`: nothing is configured, so the servers of other clients' configs are offered.

    `max_reply_size`: `--max-reply-size`, which wins over the settings' `max_reply_size`.
    `untrusted_folder`: the folder's own config files that are not trusted, to ask about.
    """
    from rea_tui.host import set_max_reply_bytes
    from rea_tui.ui.runtime import apply_frame_rate
    from rea_tui.ui.settings import AppSettings, SettingsError

    try:
        settings = AppSettings.load()
    except SettingsError as error:
        print(f"rea-tui: {error}", file=sys.stderr)
        return USAGE_EXIT_CODE
    apply_frame_rate(settings.fps)
    set_max_reply_bytes(max_reply_size or settings.max_reply_size)
    started = start_servers(specs)
    from rea_tui.host import Session, plan_replay, read_transcript
    from rea_tui.ui.app import create_app

    plan = plan_replay(read_transcript(replay)) if replay is not None else None
    session = Session(specs, timeout=timeout, transcript=transcript, started=started, inputs=inputs)
    app = create_app(session, settings=settings, replay=plan, offline=offline)
    app.offer_discovered = offer_discovered
    app.untrusted_folder = untrusted_folder
    # A runner of our own rather than asyncio.run, which would run the teardown a quit left behind.
    with asyncio.Runner() as runner:
        result = int(app.run(loop=runner.get_loop()) or 0)
        if session.abandoned_closes:
            leave_now(result)
    return result


def leave_now(code: int) -> None:
    """End the process without the SDK's teardown of the connections the quit stopped waiting for (their
    servers are stopped and the transcript is closed): it answers each request a server left pending, one
    by one, and 10,000 of them took 20 to 45 s after the screen was gone."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    logging.shutdown()
    os._exit(code)


def run_tui(
    specs: Sequence[ServerSpec],
    *,
    timeout: float = 30.0,
    inputs: DeferredInputs | None = None,
    offer_discovered: bool = False,
    max_reply_size: int | None = None,
    untrusted_folder: TrustGate | None = None,
) -> int:
    from rea_tui.host import new_transcript_path

    return run_app(
        specs,
        timeout=timeout,
        transcript=new_transcript_path(),
        inputs=inputs,
        offer_discovered=offer_discovered,
        max_reply_size=max_reply_size,
        untrusted_folder=untrusted_folder,
    )


def run_replay(transcript: Path, specs: Sequence[ServerSpec], *, offline: bool, timeout: float = 30.0) -> int:
    from rea_tui.host import new_transcript_path

    # An offline replay only shows what was recorded, so it writes no transcript of its own.
    return run_app(
        specs,
        timeout=timeout,
        transcript=None if offline else new_transcript_path(),
        replay=transcript,
        offline=offline,
    )
