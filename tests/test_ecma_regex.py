"""codegen.ecma_regex: JSON Schema (ECMA-262, u flag) patterns run by Python ``re``.

The reference is ``regress``, a Rust ECMA-262 engine: each check compares
``re.search(translate(p), s)`` with ``regress.Regex(p, flags="u").find(s)``.
For the schema and common patterns the whole matched span must agree. For
random patterns only the start must agree (so also whether there is a match),
because the end legitimately differs when a quantified group can match empty:
ECMA-262 rejects an empty iteration and backtracks (§22.2.2.3.1
RepeatMatcher), Python accepts it and leaves the loop.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
import time
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
import regress
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import ecma_regex
from codegen.ecma_regex import UnsupportedPattern, translate

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent.parent / "schemas"


def _patterns_in(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            yield from _patterns_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from _patterns_in(item)


SCHEMA_PATTERNS = sorted(
    {
        p
        for path in [*SCHEMA_DIR.glob("*.json"), *SCHEMA_DIR.glob("vendor/*.json")]
        for p in _patterns_in(json.loads(path.read_text()))
    }
)

# (pattern, strings it matches): the strings seed the near-miss generator.
COMMON_PATTERNS: list[tuple[str, list[str]]] = [
    (r"^[a-zA-Z_][a-zA-Z0-9_]*$", ["foo_1", "_x"]),
    (r"^[a-z][a-z0-9-]{0,63}$", ["abc-1", "a" * 64]),
    (r"^[a-zA-Z0-9_-]{1,64}$", ["get_weather", "a-b"]),
    (r"^\d{4}-\d{2}-\d{2}$", ["2024-01-31"]),
    (
        r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$",
        ["2024-01-31T12:00:00Z", "2024-01-31T12:00:00.5+01:00"],
    ),
    (r"^[^@\s]+@[^@\s]+\.[^@\s]+$", ["a@b.co", "é@x.y"]),
    (r"^\S+$", ["abc", "a\u00e9"]),
    (r"^\S(.*\S)?$", ["a b", "x"]),
    (r"\S", ["x", " x "]),
    (r"^\s*$", ["  ", ""]),
    (r"^[^\s\d]+$", ["abc"]),
    (r"^[\s\S]*$", ["a\nb"]),
    (r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", ["123e4567-e89b-12d3-a456-426614174000"]),
    (r"^https?://[^/\s]+(/\S*)?$", ["https://x.org/a", "http://h"]),
    (r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", ["QUJD", "QQ==", "QUI="]),
    (r"^\w+$", ["abc_1"]),
    (r"^\W*$", ["!?", "é"]),
    (r"\bword\b", ["a word here", "word"]),
    (r"\Bor\B", ["words"]),
    (r"^\u00e9+\u{1F600}?$", ["\u00e9\u00e9\U0001f600"]),
    (r"^[\u0041-\u005A\u{1F600}-\u{1F64F}]+$", ["AB\U0001f600"]),
    (r"^\uD83D\uDE00$", ["\U0001f600"]),
    (r"^(cat|dog|bird)s?$", ["cats", "dog"]),
    (r"^a.*?b", ["axxb", "ab"]),
    (r"<.+?>", ["<a><b>"]),
    (r"^(?=.*\d)(?=.*[a-z])(?=.*[A-Z]).{8,}$", ["Passw0rdX"]),
    (r"^(?!.*--)[a-z-]+$", ["a-b"]),
    (r"(?<=\$)\d+(?!\d)", ["$100"]),
    (r"(?<!\w)x", ["a x"]),
    (r"^\x41\x2F\/\0?\t?$", ["A//", "A//\x00\t"]),
    (r"^.+$", ["abc"]),
    (r"^\+?[1-9]\d{1,14}$", ["+14155550123"]),
    (r"^([01]?\d|2[0-3]):[0-5]\d$", ["23:59", "7:05"]),
    (r"^v\d+(\.\d+){2}(-[\w.]+)?$", ["v1.2.3-rc.1"]),
    (r"^(?<scheme>[a-z][a-z0-9+.-]*):", ["http:", "a+b:"]),
    (r"^[\-\]\[\\^]+$", ["-[]\\^"]),
    (r"^[^]$", ["\U0001f600", "\n"]),
    (r"a{2,}?b{0}c{3}", ["aaccc"]),
    (r"^\cJ?x$", ["x", "\nx"]),
]

# Characters on which Python's and ECMA's definitions differ, or that sit at
# the edge of a class: LineTerminators, Python-only whitespace, ZWNBSP, Zs
# members, former Zs U+180E, non-ASCII digits, letters and case-fold oddities.
INTERESTING = (
    "\n\r\u2028\u2029\x1c\x1d\x1e\x1f\x85\ufeff\u00a0\u3000\u1680\u180e\u200b\u202f"
    "\t\x0b\x0c \x08\x00\u0661\u0663\u0969\uff11\u00e9\u00df\u03a9\u017f\u212a\u0131"
    "_-.@$/\\aZz09AB\U0001f600"
)
characters = st.one_of(
    st.sampled_from(INTERESTING),
    st.characters(exclude_categories=["Cs"]),  # regress cannot take lone surrogates
)
endings = st.sampled_from(["", "", "", "\n", "\r\n", "\r", "\u2028", "\n\n", " "])


@st.composite
def near_misses(draw: st.DrawFn, seeds: st.SearchStrategy[str]) -> str:
    """A seed string with a few edits from ``characters`` and an awkward ending."""
    chars = list(draw(seeds))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(chars)))
        edit = draw(st.sampled_from(("insert", "replace", "delete")))
        if edit == "insert":
            chars.insert(i, draw(characters))
        elif i < len(chars) and edit == "replace":
            chars[i] = draw(characters)
        elif i < len(chars):
            del chars[i]
    return "".join(chars) + draw(endings)


def inputs_for(seeds: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(near_misses(seeds), st.text(characters, max_size=30))


@functools.lru_cache(maxsize=None)
def ecma(pattern: str) -> regress.Regex:
    return regress.Regex(pattern, flags="u")


@functools.lru_cache(maxsize=None)
def python(pattern: str) -> re.Pattern[str]:
    return re.compile(translate(pattern))


def ecma_span(pattern: str, s: str) -> tuple[int, int] | None:
    match = ecma(pattern).find(s)
    if match is None:
        return None
    span = match.range()  # UTF-8 byte offsets
    data = s.encode()
    return len(data[: span.start].decode()), len(data[: span.stop].decode())


def python_span(pattern: str, s: str) -> tuple[int, int] | None:
    match = python(pattern).search(s)
    return None if match is None else match.span()


def assert_same(pattern: str, s: str) -> None:
    assert python_span(pattern, s) == ecma_span(pattern, s), (pattern, translate(pattern), s)


def assert_same_start(pattern: str, s: str) -> None:
    ours, theirs = python_span(pattern, s), ecma_span(pattern, s)
    assert (ours and ours[0]) == (theirs and theirs[0]), (pattern, translate(pattern), s)


def _seeds_for(pattern: str) -> st.SearchStrategy[str]:
    """Strings matching a schema pattern, via hypothesis's generator for Python regexes."""
    translated = translate(pattern)
    if "(?=" in translated or "(?!" in translated or "(?<" in translated:
        return st.text(characters, max_size=20)  # from_regex cannot handle lookarounds
    return st.from_regex(translated)


# --- the schema patterns and common JSON Schema patterns ---------------------


def test_schemas_contain_patterns() -> None:
    assert SCHEMA_PATTERNS, f"no 'pattern' found under {SCHEMA_DIR}"


@pytest.mark.parametrize("pattern", SCHEMA_PATTERNS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_schema_pattern_matches_like_ecma(pattern: str, data: st.DataObject) -> None:
    assert_same(pattern, data.draw(inputs_for(_seeds_for(pattern))))


@pytest.mark.parametrize("pattern,seeds", COMMON_PATTERNS, ids=[p for p, _ in COMMON_PATTERNS])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_common_pattern_matches_like_ecma(pattern: str, seeds: list[str], data: st.DataObject) -> None:
    for seed in seeds:
        assert ecma(pattern).find(seed) is not None, "seed must match"
    assert_same(pattern, data.draw(inputs_for(st.sampled_from(seeds))))


# --- random patterns from the supported grammar ------------------------------

ATOMS = [
    "a", "b", "-", ".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", "[a-c]", r"[^a\s]",
    r"[\s\d]", r"[^\S\n]", r"[^\d\W]", r"\u00e9", r"\n", r"\r", r"\x1c", r"\ufeff",
    r"[\u2028-\u2029]", r"\/", r"\.", "[-a]", r"\u{1F600}", "[^]", "[]", r"\0", r"\x85",
]  # fmt: skip
ASSERTIONS = ["^", "$", r"\b", r"\B", "(?<=a)", r"(?<!\s)", "(?<=[ab])"]
QUANTIFIERS = ["*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?", "??", "{1,2}?", "{0}"]

random_patterns = st.recursive(
    st.one_of(
        st.sampled_from(ATOMS),
        st.sampled_from(ASSERTIONS),
        st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)).map("".join),
    ),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=4).map("".join),
        st.lists(inner, min_size=2, max_size=3).map("|".join),
        st.tuples(inner, st.sampled_from(QUANTIFIERS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
        inner.map(lambda s: f"({s})"),
        inner.map(lambda s: f"(?={s})"),
        inner.map(lambda s: f"(?!{s})"),
    ),
    max_leaves=8,
)
random_inputs = st.one_of(
    st.text(st.sampled_from("ab-\u00e9\n\r\u2028 \x1c\ufeff\x85\u00a0\u0661_1\U0001f600"), max_size=12),
    st.text(characters, max_size=12),
)


@settings(max_examples=1500, deadline=None)
@given(pattern=random_patterns, s=random_inputs)
def test_random_supported_pattern_matches_like_ecma(pattern: str, s: str) -> None:
    assert_same_start(pattern, s)


def test_empty_iteration_may_end_a_match_earlier_but_never_changes_whether_it_matches() -> None:
    # The one known span difference (see the module docstring); JSON Schema
    # and msgspec only ask whether there is a match.
    assert python_span("((?:.*?)*)", "1") == (0, 0)
    assert ecma_span("((?:.*?)*)", "1") == (0, 1)


# --- named behaviours ---------------------------------------------------------


def search(pattern: str, s: str) -> bool:
    return re.search(translate(pattern), s) is not None


def test_dollar_does_not_match_before_final_newline() -> None:
    assert search("^abc$", "abc")
    assert not search("^abc$", "abc\n")
    assert not search("c$", "abc\n")


def test_caret_matches_only_at_start_of_input() -> None:
    assert not search("^abc", "x\nabc")
    assert search("^abc", "abc\nx")


def test_pattern_is_unanchored_like_json_schema() -> None:
    assert search("b", "abc")
    assert search("[a-z][a-z0-9-]{0,63}", "!!ok!!")


@pytest.mark.parametrize("char", ["\n", "\r", "\u2028", "\u2029"])
def test_dot_excludes_ecma_line_terminators(char: str) -> None:
    assert not search("^.$", char)


@pytest.mark.parametrize("char", ["\x85", "\x1c", "\ufeff", "\x0b", "\U0001f600"])
def test_dot_matches_python_only_line_breaks_and_astral_code_points(char: str) -> None:
    assert search("^.$", char)


def test_S_treats_feff_as_whitespace() -> None:
    assert not search(r"\S", "\ufeff")
    assert search(r"^\s$", "\ufeff")


@pytest.mark.parametrize("char", ["\x1c", "\x1d", "\x1e", "\x1f", "\x85"])
def test_s_excludes_python_only_whitespace(char: str) -> None:
    assert not search(r"\s", char)
    assert search(r"^\S$", char)
    assert search(r"^[^\s]$", char)


@pytest.mark.parametrize("char", ["\u00a0", "\u3000", "\u1680", "\u2000", "\u202f", "\u2028", "\x0b"])
def test_s_includes_every_ecma_whitespace_and_line_terminator(char: str) -> None:
    assert search(r"^\s$", char)
    assert not search(r"\S", char)
    assert not search(r"[^\s]", char)


def test_s_is_not_former_zs_mongolian_vowel_separator() -> None:
    assert not search(r"\s", "\u180e")


@pytest.mark.parametrize("char", ["\u0661", "\u0969", "\uff11"])
def test_d_matches_only_ascii_digits(char: str) -> None:
    assert not search(r"\d", char)
    assert search(r"^\D$", char)


@pytest.mark.parametrize("char", ["\u00e9", "\u017f", "\u212a", "\u0661"])
def test_w_matches_only_ascii_word_characters(char: str) -> None:
    assert not search(r"\w", char)
    assert search(r"^\W$", char)


def test_word_boundary_uses_ascii_word_definition() -> None:
    assert not search(r"\b", "\u00e9\u00e9")
    assert search(r"\bx\b", "\u00e9x\u00e9")


def test_not_word_boundary_matches_in_empty_string() -> None:
    assert search(r"\B", "")
    assert search(r"^\B$", "")


def test_escaped_surrogate_pair_is_one_code_point() -> None:
    assert translate(r"\uD83D\uDE00") == r"\U0001f600"
    assert search(r"^[\uD83D\uDE00]$", "\U0001f600")


def test_brace_escapes_and_quantifiers() -> None:
    assert search(r"^\{a{2}\}$", "{aa}")
    assert translate("x{007,010}?") == "x{7,10}?"


def test_empty_class_matches_nothing_and_negated_empty_class_matches_anything() -> None:
    assert not search("[]", "abc")
    assert search("^[^]$", "\n")


@pytest.mark.parametrize(
    "pattern,expected",
    [
        (r"\S", r"[^\t-\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"),
        (r"^[a-z][a-z0-9-]{0,63}$", r"^[a-z][\-0-9a-z]{0,63}\Z"),
        (".", r"[^\n\r\u2028\u2029]"),
        (r"(?<id>a)|\/", "(a)|/"),
    ],
)
def test_translation_text(pattern: str, expected: str) -> None:
    assert translate(pattern) == expected


# The full code point range, once per class escape: sets are compared exactly.
CODE_POINTS = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


@pytest.mark.parametrize(
    "pattern", [r"\s", r"\S", r"\d", r"\D", r"\w", r"\W", ".", r"[^\s]", r"[^\S\n]", r"[\s\w]", r"[^\d\W]"]
)
def test_class_escape_has_ecma_members_on_every_code_point(pattern: str) -> None:
    ours = re.compile(translate(pattern))
    theirs = ecma(f"^(?:{pattern})$")
    differ = [c for c in CODE_POINTS if (ours.fullmatch(c) is None) != (theirs.find(c) is None)]
    assert not differ, [hex(ord(c)) for c in differ[:20]]


# --- what raises ---------------------------------------------------------------

# Valid ECMA-262 (u flag), but not translated exactly.
UNSUPPORTED = [
    r"(a)\1",
    r"(?<x>a)\k<x>",
    r"\p{Script=Greek}",
    r"\P{Alphabetic}",
    r"[\p{sc=Latn}]",
    r"(?<=a+)b",
    r"(?<=a|bc)d",
    "(?i:a)",
    "(?<a>x)|(?<a>y)",
    "(?<\u00e9>x)",
]

# Invalid under the u flag, several of them Python-only syntax.
INVALID = [
    "{", "}", "]", "a{2,1}", "a{,3}", "a{1", "a*+", "a**", "*a", r"\-", r"[\d-z]", "[z-a]",
    "(?=a)*", "(?<=a){2}", "^*", "$?", r"\00", r"\u{110000}", r"\u{}", r"\x4", r"\u12", "(", ")", "[a",
    "\\", r"\c1", r"\c", r"\a", r"\Z", r"\A", "(?P<n>a)", "(?#c)", "(?i)a", r"[\B]", r"[\1]",
    r"(?<a>x)(?<a>y)",
]  # fmt: skip


@pytest.mark.parametrize("pattern", UNSUPPORTED)
def test_valid_but_untranslatable_pattern_raises(pattern: str) -> None:
    ecma(pattern)  # the reference engine accepts it
    with pytest.raises(UnsupportedPattern):
        translate(pattern)


@pytest.mark.parametrize("pattern", INVALID)
def test_pattern_invalid_under_u_flag_raises(pattern: str) -> None:
    with pytest.raises(regress.RegressError):
        regress.Regex(pattern, flags="u")
    with pytest.raises(UnsupportedPattern):
        translate(pattern)


@pytest.mark.parametrize("pattern", [r"\b+", r"\B*"])
def test_quantified_word_boundary_raises(pattern: str) -> None:
    # ECMA-262 §22.2.1: Term[U] :: Assertion takes no Quantifier, so V8 and
    # SpiderMonkey reject /\b+/u. regress accepts it; we follow the grammar.
    with pytest.raises(UnsupportedPattern):
        translate(pattern)


def test_unsupported_pattern_is_a_value_error() -> None:
    assert issubclass(UnsupportedPattern, ValueError)


# --- no catastrophic backtracking ------------------------------------------------


def _worst_case_inputs(pattern: str) -> Iterator[str]:
    n = 100_000
    for char in "a0-_ \n\ufeff\u00e9\U0001f600":
        yield char * n
        yield char * n + "\n"
        yield char * n + "!"
    yield "ab-" * (n // 3) + "\n"


# Schema patterns, plus translations that add lookarounds or big classes.
LINEAR_PATTERNS = [r"^\S+$", r"^[^@\s]+@[^@\s]+\.[^@\s]+$", r"\bword\B", r"^\w+$", r"^.+$", r"^\S(.*\S)?$"]


@pytest.mark.timing  # a time ratio: run by `nox -s fuzz`, not the suite (no timed test in CI)
@pytest.mark.parametrize("pattern", SCHEMA_PATTERNS + LINEAR_PATTERNS)
def test_pattern_runs_in_linear_time_on_long_input(pattern: str) -> None:
    compiled = python(pattern)
    for s in _worst_case_inputs(pattern):
        start = time.perf_counter()
        compiled.search(s)
        assert time.perf_counter() - start < 0.25, (pattern, s[:5], len(s))


# --- Unicode property escapes: every General_Category value, against regress ---------

# Every code point assigned in the Unicode version of Python's unicodedata, which gives the
# tables (surrogates left out: regress cannot take lone surrogates). regress's own tables
# are of a later Unicode version (16.0), in which two of these code points changed category:
# U+0295 LATIN LETTER PHARYNGEAL VOICED FRICATIVE (Ll -> Lo) and U+1171E AHOM CONSONANT SIGN
# MEDIAL RA (Mn -> Mc). On every other code point the two must agree.
_CHANGED_AFTER_14 = {"\u0295", "\U0001171e"}
_ASSIGNED = "".join(
    chr(c)
    for c in range(0x110000)
    if unicodedata.category(chr(c)) not in ("Cn", "Cs") and chr(c) not in _CHANGED_AFTER_14
)
PROPERTY_ESCAPES = [
    *(f"\\p{{{name}}}" for name in sorted(ecma_regex._GENERAL_CATEGORY) if name not in ("Cs", "Surrogate")),
    r"\p{Any}", r"\p{ASCII}", r"\p{Assigned}", r"\P{Letter}", r"\p{gc=Nd}",
    r"\p{General_Category=Lu}", r"[^\P{Lu}a]", r"[\p{Nd}\p{Zs}_]", r"[^\p{L}\p{N}]",
]


@pytest.mark.parametrize("pattern", PROPERTY_ESCAPES)
def test_property_escape_matches_like_ecma(pattern: str) -> None:
    data = _ASSIGNED.encode()
    theirs = [data[m.range().start : m.range().stop].decode() for m in ecma(pattern).find_iter(_ASSIGNED)]
    ours = python(pattern).findall(_ASSIGNED)
    assert ours == theirs, pattern
    assert ours or pattern in (r"\p{Cn}", r"\p{Unassigned}")  # none of _ASSIGNED is unassigned


@pytest.mark.parametrize(
    "pattern,reason",
    [
        (r"\p{Script=Greek}", "Script property"),
        (r"\p{scx=Latn}", "Script property"),
        (r"\p{Alphabetic}", "'Alphabetic' is not supported"),
        (r"\p{Foo=Bar}", "unknown Unicode property 'Foo'"),
        (r"\p{letter}", "'letter' is not supported"),  # names are case-sensitive
        (r"\pL", "malformed"),
        (r"\p{}", "malformed"),
    ],
)
def test_property_escape_refusals_name_the_property(pattern: str, reason: str) -> None:
    with pytest.raises(UnsupportedPattern, match=re.escape(reason)):
        translate(pattern)
