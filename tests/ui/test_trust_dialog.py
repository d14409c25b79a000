"""The TUI in a folder with configs of its own: a dialog lists what would run; Not now runs nothing, Trust runs it.

Started as `rea-tui` starts it in such a folder (the servers resolved there,
the untrusted files handed to the app), on the hostile folder of
`tests.support.hostile_folder`: markers for commands, a loopback listener for
URLs and their Authorization header.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from rea_tui.host import (
    DeferredInputs,
    ServerSelection,
    TrustStore,
    find_server,
    folder_listing,
    resolve_servers,
    trust_gate,
)
from rea_tui.ui.app import ReaApp
from tests.cli import sample_entry, write_config
from tests.support.hostile_folder import SECRET, HostileFolder, RecordingListener, hostile_folder
from tests.support.pilot import make_app, screen_text, wait_for
from tests.support.scenarios import SIZE, click, connected, screen_named


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileFolder]:
    with RecordingListener() as listener:
        made = hostile_folder(tmp_path, listener)
        monkeypatch.chdir(made.root)
        monkeypatch.setenv("SECRET", SECRET)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        yield made


def started_here() -> ReaApp:
    """The app as `rea-tui` with no arguments starts it in the current folder (rea_tui.cli.main)."""
    inputs = DeferredInputs()
    specs, _ = resolve_servers(ServerSelection(), resolver=inputs, fallback=find_server)
    app = make_app(specs)
    app.session.inputs = inputs
    gate = trust_gate()
    app.untrusted_folder = gate if gate.untrusted else None
    return app


async def test_not_now_is_focused_and_runs_nothing(folder: HostileFolder) -> None:
    app = started_here()
    assert app.session.names == ["rea (bundled)"]
    async with app.run_test(size=SIZE) as pilot:
        dialog = await screen_named(pilot, "TrustFolderScreen")
        listing = str(dialog.query_one("#trust-folder-text", Static).render())
        assert listing == "\n".join(folder_listing(trust_gate(), only_untrusted=True))
        for name in folder.stdio_names:
            assert str(folder.marker(name)) in listing
        for name in folder.http_names:
            assert folder.listener.url(name) in listing
        assert SECRET not in screen_text(app)
        assert app.focused is not None and app.focused.id == "trust-folder-not-now-button"
        await pilot.press("enter")  # one Enter: the safe choice
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", "the dialog to close")
        await wait_for(pilot, lambda: any("not used" in str(n.message) for n in app._notifications), "the note")
        await connected(pilot)
        assert app.session.names == ["rea (bundled)"]
        # Listed under f12 as not used, and not offered.
        await pilot.press("f12")
        await screen_named(pilot, "DiscoveredServersScreen")
        assert screen_text(app).count("not used (folder not trusted)") == 8
        await pilot.press("escape")
    assert folder.marked() == [] and folder.listener.hits == 0
    assert TrustStore().folders() == {}


async def test_trust_records_the_folder_and_connects_what_it_listed(
    folder: HostileFolder, isolated_user_dirs: Path
) -> None:
    # The analyst's own config names one of the folder's servers: theirs is kept, even after trust.
    user_config = isolated_user_dirs / "xdg_config_home" / "rea-tui" / "config.json"
    user_config.parent.mkdir(parents=True)
    write_config(user_config, {"mcpServers": {"cc-stdio": sample_entry()}})
    app = started_here()
    assert app.session.names == ["cc-stdio"]
    async with app.run_test(size=SIZE) as pilot:
        await screen_named(pilot, "TrustFolderScreen")
        await click(pilot, "#trust-folder-trust")
        expected = {*folder.stdio_names, *folder.http_names}
        await wait_for(pilot, lambda: expected <= set(app.session.names), "the folder's servers to be added")
        await connected(pilot)
        for name in folder.stdio_names:
            assert app.session.state(name).status == "ready", name
    assert folder.marked() == sorted(set(folder.stdio_names) - {"cc-stdio"})
    assert folder.listener.hits >= len(folder.http_names)
    assert set(folder.listener.authorizations) == {f"Bearer {SECRET}"}
    assert list(TrustStore().folders()) == [str(folder.root.resolve())]
    assert not trust_gate().untrusted
