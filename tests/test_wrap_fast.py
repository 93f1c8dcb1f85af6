"""The text renderer's line wrapping (``textutil.wrap_line``): its fast path for lines spaced by " " only
lays out the same lines as ``textwrap.wrap`` with the renderer's options."""
import random
import textwrap

from bandkit.render.textutil import _wrap_spaces, wrap_line


def _textwrap(text, width, indent):
    return textwrap.wrap(text, width=width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def test_wrap_spaces_equals_textwrap_on_random_lines():
    rng = random.Random(7)
    words = ["a", "bb", "ccc", "1", "%", "ms", "\u00a0", "\u2003", "-", "x" * 30, " ", "  ", "   "]
    for _ in range(20_000):
        s = "".join(rng.choice(words) + " " * rng.randint(0, 2) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.3:
            s = " " * rng.randint(1, 6) + s
        width, indent = rng.randint(1, 40), " " * rng.randint(0, 8)
        assert _wrap_spaces(s, width, indent) == _textwrap(s, width, indent), (s, width, indent)


def test_wrap_line_keeps_units_and_long_words():
    line = "  suspect cpu_freq_mhz.cpu13: 1,838 MHz in the affected runs vs 3,332 MHz, 72 % of them " + "y" * 50
    out = wrap_line(line, 30)
    assert out.split("\n")[0] == "  suspect cpu_freq_mhz.cpu13:"
    assert "1,838 MHz" in out and "72 %" in out and "y" * 50 in out
    assert all(ln.startswith("    ") for ln in out.split("\n")[1:])
    glued = line.replace(" MHz", "\u00a0MHz").replace(" %", "\u00a0%")
    assert out == "\n".join(w.replace("\u00a0", " ") for w in _textwrap(glued, 30, "    "))


def test_wrap_line_with_a_tab_goes_through_textwrap():
    line = "a\tb " * 20
    assert wrap_line(line, 20) == "\n".join(textwrap.wrap(line, width=20, subsequent_indent="  ",
                                                         break_long_words=False, break_on_hyphens=False))
