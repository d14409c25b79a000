from rea_tui.host.trust.safe_text import sanitize, sanitize_line

CSI = "\x1b[31mred\x1b[0m"
OSC8 = "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07"
OSC52 = "\x1b]52;c;cHduZWQ=\x07"


def test_escape_sequences_are_removed_and_text_kept() -> None:
    assert sanitize(f"a {CSI} b {OSC8} c {OSC52} d") == "a red b link c  d"


def test_osc_terminated_by_st_and_unterminated_osc() -> None:
    assert sanitize("x\x1b]0;title\x1b\\y") == "xy"
    assert sanitize("x\x1b]52;c;AAAA") == "x"


def test_eight_bit_csi_and_c1_controls_are_removed() -> None:
    assert sanitize("a\x9b31mb\x85c\x9dosc\x9cd") == "abcd"


def test_c0_controls_removed_but_newline_and_tab_kept() -> None:
    assert sanitize("a\x00b\x07c\td\ne\x7f") == "abc\td\ne"


def test_carriage_return_cannot_overwrite_a_line() -> None:
    assert sanitize("safe\rEVIL") == "safe\nEVIL"
    assert sanitize("a\r\nb") == "a\nb"


def test_rich_markup_is_left_as_plain_characters() -> None:
    assert sanitize("[red]x[/red] [link=http://e]y[/link]") == "[red]x[/red] [link=http://e]y[/link]"


def test_length_is_bounded_with_a_visible_marker() -> None:
    assert sanitize("x" * 30, 10) == "xxxxxxxxxx... (20 more characters)"
    huge = "y" * 1_000_000
    out = sanitize(huge, 100)
    assert out.startswith("y" * 100) and out.endswith("... (999,900 more characters)")


def test_no_limit_keeps_everything() -> None:
    assert sanitize("z" * 50_000, None) == "z" * 50_000


def test_non_strings_are_converted() -> None:
    assert sanitize(42) == "42"
    assert sanitize(None) == "None"


def test_sanitize_line_joins_lines() -> None:
    assert sanitize_line("a\nb\x1b[2Jc") == "a bc"


def test_every_format_and_control_character_is_removed_or_shown() -> None:
    """All of Unicode, one code point at a time: none that is invisible or a control survives as itself.

    Format characters (Cf: the soft hyphen, bidi controls, tag characters...) and the line and paragraph
    separators are shown as `<U+XXXX>`; controls other than newline and tab are removed.
    """
    import sys
    import unicodedata

    hidden = ("Cc", "Cf", "Zl", "Zp")
    slipped = [
        f"U+{point:04X}"
        for point in range(sys.maxunicode + 1)
        if unicodedata.category(character := chr(point)) in hidden
        and character not in "\n\t\r"
        and character in sanitize(f"a{character}b")
    ]
    assert not slipped, f"{len(slipped)} characters pass as they are: {slipped[:20]}"
    assert sanitize("ad\xadmin") == "ad<U+00AD>min"
    assert sanitize("x\U000e0041y") == "x<U+E0041>y"


def test_the_fast_check_finds_every_character_the_full_class_does() -> None:
    """`has_hidden` (the screen and ingress check, in parts for speed) against the one full class,
    for every code point, alone and beside ASCII, an accent and an emoji."""
    import sys

    from rea_tui.host.trust.safe_text import HIDDEN_CHARACTER, has_hidden

    disagree = [
        f"U+{point:04X} in {context!r}"
        for point in range(sys.maxunicode + 1)
        for context in ("{}", "a{}b", "é{}", "🔍{}")
        if has_hidden(text := context.format(chr(point))) != (HIDDEN_CHARACTER.search(text) is not None)
    ]
    assert not disagree, disagree[:20]
