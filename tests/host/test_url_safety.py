"""What a URL a server asks the analyst to open looks like before it may be opened."""

from __future__ import annotations

import pytest

from rea_tui.host import view_url


def test_a_cyrillic_look_alike_host_is_shown_in_punycode_with_a_mixed_script_warning() -> None:
    view = view_url("https://\u0430pple.com/login")  # the first letter is CYRILLIC SMALL LETTER A
    assert view.host == "xn--pple-43d.com" and view.openable
    assert any("punycode" in w for w in view.warnings)
    assert any("mixes Cyrillic and Latin" in w for w in view.warnings)


def test_a_punycode_host_written_out_is_decoded_and_checked_too() -> None:
    view = view_url("https://xn--pple-43d.com/")
    assert any("stands for" in w and "mixes Cyrillic and Latin" in w for w in view.warnings)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<b>x</b>", "ftp://example.org/x", "mailto:a@b"]
)
def test_only_http_and_https_are_ever_opened(url: str) -> None:
    view = view_url(url)
    assert not view.openable and any("never opened" in w for w in view.warnings)


def test_credentials_before_the_host_are_called_out() -> None:
    view = view_url("https://bank.example@evil.example/")
    assert view.host == "evil.example" and any("before @ is not the host" in w for w in view.warnings)


def test_a_plain_url_needs_no_warning() -> None:
    assert view_url("https://example.org/path?q=1") == view_url("https://example.org/path?q=1")
    assert view_url("https://example.org/path?q=1").warnings == ()


def test_escape_sequences_in_a_url_are_not_shown_and_make_it_unopenable() -> None:
    view = view_url("https://exa\x1b]0;t\x07mple.org/")
    assert "\x1b" not in view.text and "\x07" not in view.text
