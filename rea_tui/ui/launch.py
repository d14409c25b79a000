"""Start the TUI (kept apart from app.py so `rea-tui --help` never imports Textual)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rea_tui.host import DeferredInputs, ServerSpec, TrustGate, start_servers


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
    from rea_tui.ui.settings import AppSettings

    settings = AppSettings.load()
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
    result = app.run()
    return int(result or 0)


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
