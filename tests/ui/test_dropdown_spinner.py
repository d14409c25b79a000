"""The dropdown's "asking the server…" spinner never outlives the answer it was waiting for.

Textual's set_timer does not call its callback: it queues it on the widget. A spinner start that
came due while the answer was on its way therefore ran after the answer had stopped the spinner, and
the footer said "asking the server…" under the values it was asking for, for good (a loaded CI
machine caught it). Here the answer is shown from inside a handler of the dropdown itself, after
the timer came due, so the timer's callback is surely queued behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual.app import App, ComposeResult

from rea_tui.host import CompletionPage
from rea_tui.ui.widgets.dropdown import SPINNER_DELAY, SPINNER_FRAME_SECONDS, CompletionDropdown

PAGE = CompletionPage("procedure", "", ("search_01", "search_02"), 250, True, 1.0)
COUNT = "2 of 250 - keep typing to narrow"


class DropdownApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CompletionDropdown(id="dropdown")


def footer(dropdown: CompletionDropdown) -> str:
    return str(dropdown.footer.render())


async def run_on(dropdown: CompletionDropdown, job: Callable[[], Awaitable[None]]) -> None:
    """Run `job` as one of the dropdown's own callbacks: what it queues on the dropdown waits for it."""
    done = asyncio.Event()

    async def step() -> None:
        try:
            await job()
        finally:
            done.set()

    dropdown.call_later(step)
    await done.wait()


async def test_a_spinner_due_when_the_answer_came_does_not_start() -> None:
    app = DropdownApp()
    async with app.run_test() as pilot:
        dropdown = app.query_one(CompletionDropdown)

        async def ask_and_answer_late() -> None:
            dropdown.expect("")
            await asyncio.sleep(SPINNER_DELAY * 2)  # the timer comes due: its start is queued
            assert dropdown.show_page(PAGE, "")

        await run_on(dropdown, ask_and_answer_late)
        await asyncio.sleep(SPINNER_FRAME_SECONDS * 3)
        await pilot.pause()
        assert footer(dropdown) == COUNT
