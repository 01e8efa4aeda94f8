r"""Translate ECMA-262 regular expressions into Python :mod:`re` patterns.

JSON Schema's ``pattern`` keyword (draft 2020-12, Validation §6.3.3) holds an
ECMA-262 regular expression (Core §6.4) that is matched against the instance
**unanchored**. msgspec's ``Meta(pattern=...)`` uses Python's ``re.search``,
which is unanchored too, but the two dialects disagree on which strings match:
Python's ``$`` also matches before a final ``"\n"``, its ``\d`` and ``\w`` are
Unicode-wide, its ``\s`` has different members, and so on. :func:`translate`
rewrites a pattern when code is generated, so the generated code needs no
regex engine other than :mod:`re` at run time.

Choices
-------
* A pattern is read as ECMA-262 with the ``u`` flag and no other flag. Core
  §6.4 says patterns SHOULD be built with the ``u`` flag. Under it the grammar
  is strict (no Annex B leniency such as ``\a``, ``\-`` outside a class or a
  lone ``{``), and the engine works on code points, as a Python ``str`` does.
* The output only uses syntax whose meaning does not depend on ``re`` flags,
  and every literal character is escaped, so no Python-only construct (``\Z``,
  ``(?P<..>``, ``{,n}``, possessive ``*+``, nested-set syntax) can leak in.
* A pattern is translated exactly or not at all: everything else raises
  :class:`UnsupportedPattern`.

References are to ECMA-262 (2024): §22.2.1 (pattern grammar and its early
errors), §22.2.2 (pattern semantics), §12.2 (WhiteSpace), §12.3
(LineTerminator).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NoReturn

__all__ = ["UnsupportedPattern", "translate"]


class UnsupportedPattern(ValueError):
    """A pattern that :func:`translate` cannot turn into an exact Python equivalent.

    Raised for patterns that are not valid under the ECMA-262 ``u`` grammar, and
    for valid constructs whose Python counterpart would accept a different set
    of strings: backreferences (``\\1``, ``\\k<name>``), Unicode property escapes
    other than a General_Category value or ``Any``, ``ASCII``, ``Assigned`` (Python's
    :mod:`unicodedata` has no Script or binary property tables), lookbehind that Python cannot match (not fixed-width), pattern modifiers
    (``(?i:..)``), group names outside ``[A-Za-z_$][A-Za-z0-9_$]*`` and
    duplicate group names.
    """


_Ranges = list[tuple[int, int]]  # sorted, merged, inclusive code point ranges

_MAX_CODE_POINT = 0x10FFFF


def _normalize(ranges: _Ranges) -> _Ranges:
    merged: _Ranges = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _complement(ranges: _Ranges) -> _Ranges:
    out: _Ranges = []
    start = 0
    for lo, hi in _normalize(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return out


_DIGIT: _Ranges = [(0x30, 0x39)]
_WORD: _Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_LINE_TERMINATOR: _Ranges = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
# WhiteSpace (§12.2: TAB, VT, FF, ZWNBSP and every Zs character) plus
# LineTerminator (§12.3). Zs has had these members since Unicode 6.3.
_SPACE: _Ranges = _normalize(
    [
        (0x09, 0x0D),  # TAB, LF, VT, FF, CR
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
)
_CLASS_ESCAPES: dict[str, _Ranges] = {
    "d": _DIGIT,
    "D": _complement(_DIGIT),
    "w": _WORD,
    "W": _complement(_WORD),
    "s": _SPACE,
    "S": _complement(_SPACE),
}
_CONTROL_ESCAPES = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_EMIT_CONTROL = {code_point: "\\" + letter for letter, code_point in _CONTROL_ESCAPES.items()}
_SYNTAX_CHARACTERS = frozenset("^$\\.*+?()[]{}|")
_DECIMAL_DIGITS = frozenset("0123456789")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_PLAIN = frozenset("0123456789_ \"'!%,/:;<=>@`") | _ASCII_LETTERS
# General_Category values (ECMA-262 §22.2.2.9.1, table 67: the names and aliases of
# Unicode's PropertyValueAliases.txt, gc), each as the two-letter categories it covers.
_GC_GROUPS = {
    "C": "Cc Cf Cn Co Cs", "L": "Ll Lm Lo Lt Lu", "LC": "Ll Lt Lu", "M": "Mc Me Mn",
    "N": "Nd Nl No", "P": "Pc Pd Pe Pf Pi Po Ps", "S": "Sc Sk Sm So", "Z": "Zl Zp Zs",
}
_GC_ALIASES = """
C Other; Cc Control cntrl; Cf Format; Cn Unassigned; Co Private_Use; Cs Surrogate;
L Letter; LC Cased_Letter; Ll Lowercase_Letter; Lm Modifier_Letter; Lo Other_Letter;
Lt Titlecase_Letter; Lu Uppercase_Letter; M Mark Combining_Mark; Mc Spacing_Mark;
Me Enclosing_Mark; Mn Nonspacing_Mark; N Number; Nd Decimal_Number digit; Nl Letter_Number;
No Other_Number; P Punctuation punct; Pc Connector_Punctuation; Pd Dash_Punctuation;
Pe Close_Punctuation; Pf Final_Punctuation; Pi Initial_Punctuation; Po Other_Punctuation;
Ps Open_Punctuation; S Symbol; Sc Currency_Symbol; Sk Modifier_Symbol; Sm Math_Symbol;
So Other_Symbol; Z Separator; Zl Line_Separator; Zp Paragraph_Separator; Zs Space_Separator
"""
_GENERAL_CATEGORY: dict[str, tuple[str, ...]] = {
    name: tuple(_GC_GROUPS.get(names.split()[0], names.split()[0]).split())
    for names in _GC_ALIASES.split(";")
    for name in names.split()
}
_GC_PROPERTY_NAMES = frozenset({"General_Category", "gc"})
_SCRIPT_PROPERTY_NAMES = frozenset({"Script", "sc", "Script_Extensions", "scx"})


@functools.cache
def _category_table() -> dict[str, _Ranges]:
    """Every code point's two-letter General_Category, as ranges per category.

    Read from :mod:`unicodedata` when code is generated (its Unicode version:
    ``unicodedata.unidata_version``, 14.0.0 on Python 3.11); the generated pattern holds the
    ranges, so the tables used at run time are those of the build.
    """
    table: dict[str, _Ranges] = {}
    start, current = 0, unicodedata.category("\x00")
    for code_point in range(1, _MAX_CODE_POINT + 2):
        category = unicodedata.category(chr(code_point)) if code_point <= _MAX_CODE_POINT else ""
        if category != current:
            table.setdefault(current, []).append((start, code_point - 1))
            start, current = code_point, category
    return table


def _property_ranges(name: str, value: str | None) -> _Ranges | str:
    """The code points of ``\\p{name}`` or ``\\p{name=value}``, or why it is refused."""
    if value is not None:
        if name in _SCRIPT_PROPERTY_NAMES:
            return f"the Script property ({name}={value}) is not supported: Python has no Script table"
        if name not in _GC_PROPERTY_NAMES:
            return f"unknown Unicode property {name!r}"
        name = value
    elif name == "Any":
        return [(0, _MAX_CODE_POINT)]
    elif name == "ASCII":
        return [(0, 0x7F)]
    elif name == "Assigned":
        return _complement(_category_table().get("Cn", []))
    if name not in _GENERAL_CATEGORY:
        return f"the Unicode property {name!r} is not supported (only General_Category values, Any, ASCII, Assigned)"
    table = _category_table()
    return _normalize([r for category in _GENERAL_CATEGORY[name] for r in table.get(category, [])])


_QUANTIFIER = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
_PROPERTY = re.compile(r"\{([A-Za-z_]+)(?:=([A-Za-z0-9_]+))?\}")
_GROUP_NAME = re.compile(r"<([A-Za-z_$][A-Za-z0-9_$]*)>")

# §22.2.2.6: \b and \B compare IsWordChar on both sides, with ASCII word
# characters. Spelled out with lookarounds because Python's \b and \B follow
# the re.ASCII/re.UNICODE flag, and Python < 3.14's \B never matches in "".
_W = "[0-9A-Z_a-z]"
_WORD_BOUNDARY = f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))"
_NOT_WORD_BOUNDARY = f"(?:(?<={_W})(?={_W})|(?<!{_W})(?!{_W}))"


def translate(pattern: str) -> str:
    r"""Translate an ECMA-262 pattern into a Python ``re`` pattern with the same matches.

    Parameters
    ----------
    pattern : str
        A JSON Schema ``pattern``: an ECMA-262 regular expression read with the
        ``u`` flag only (ECMA-262 §22.2.1; JSON Schema Core §6.4).

    Returns
    -------
    str
        A pattern for :func:`re.compile` without flags. For every string ``s``,
        ``re.search(result, s)`` finds a match exactly when the ECMA pattern
        matches somewhere in ``s``, and the match starts at the same index.
        The end of the match can differ only when a quantified group can match
        the empty string: ECMA-262 rejects the empty iteration and backtracks
        (§22.2.2.3.1), while Python leaves the loop. Whether there is a match,
        which is all JSON Schema asks, does not change, because leaving the
        loop at that point is also a path ECMA-262 tries.
        Like the input, the result is **unanchored**
        unless the pattern itself uses ``^`` or ``$``. ``$`` becomes ``\Z``,
        ``.`` excludes the four LineTerminators, ``\d``/``\w``/``\b`` use ASCII,
        and ``\s`` becomes the explicit ECMA WhiteSpace + LineTerminator set,
        inside character classes too.

    Raises
    ------
    UnsupportedPattern
        If the pattern is invalid under the ``u`` grammar, or uses a construct
        that is not translated exactly (see :class:`UnsupportedPattern`).
    """
    try:
        result = _Parser(pattern).parse()
    except RecursionError:
        raise UnsupportedPattern(f"{pattern!r}: groups nested too deeply") from None
    try:
        re.compile(result)
    except (re.error, OverflowError, RecursionError) as exc:
        raise UnsupportedPattern(
            f"{pattern!r}: Python re rejects the translation {result!r}: {exc}"
        ) from None
    return result


class _Parser:
    """Recursive-descent reader of the §22.2.1 grammar that emits Python syntax."""

    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.group_names: set[str] = set()

    def fail(self, reason: str) -> NoReturn:
        raise UnsupportedPattern(f"{self.src!r} at offset {self.pos}: {reason}")

    def peek(self, n: int = 1) -> str:
        return self.src[self.pos : self.pos + n]

    def parse(self) -> str:
        out = self.disjunction()
        if self.pos < len(self.src):
            self.fail("unmatched ')'")
        return out

    def disjunction(self) -> str:
        alternatives = [self.alternative()]
        while self.peek() == "|":
            self.pos += 1
            alternatives.append(self.alternative())
        return "|".join(alternatives)

    def alternative(self) -> str:
        terms = []
        while self.pos < len(self.src) and self.peek() not in ("|", ")"):
            atom, quantifiable = self.atom()
            quantifier = self.quantifier()
            if quantifier and not quantifiable:
                self.fail("an assertion cannot be quantified under the u flag")
            terms.append(atom + quantifier)
        return "".join(terms)

    def quantifier(self) -> str:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            out = char
        elif char == "{":
            match = _QUANTIFIER.match(self.src, self.pos)
            if match is None:
                self.fail("'{' that does not start a quantifier")
            low, comma, high = match.groups()
            if high and int(high) < int(low):
                self.fail("quantifier range out of order")
            out = f"{{{int(low)}{comma or ''}{int(high) if high else ''}}}"
            self.pos = match.end()
        else:
            return ""
        if self.peek() == "?":  # lazy
            self.pos += 1
            out += "?"
        return out

    def atom(self) -> tuple[str, bool]:
        """Return the emitted atom and whether a quantifier may follow it."""
        char = self.src[self.pos]
        self.pos += 1
        if char == "^":
            return "^", False
        if char == "$":
            return r"\Z", False
        if char == ".":
            return _emit_set(_complement(_LINE_TERMINATOR)), True
        if char == "(":
            return self.group()
        if char == "[":
            return _emit_set(self.character_class()), True
        if char == "\\":
            return self.atom_escape()
        if char in _SYNTAX_CHARACTERS:
            self.fail(f"unexpected {char!r} (nothing to repeat, or a lone bracket)")
        return _emit_char(ord(char)), True

    def group(self) -> tuple[str, bool]:
        opener, quantifiable = "(", True
        if self.peek() == "?":
            for prefix in ("?:", "?=", "?!", "?<=", "?<!"):
                if self.src.startswith(prefix, self.pos):
                    opener, quantifiable = "(" + prefix, prefix == "?:"
                    self.pos += len(prefix)
                    break
            else:
                self.group_name()
        body = self.disjunction()
        if self.peek() != ")":
            self.fail("missing ')'")
        self.pos += 1
        return f"{opener}{body})", quantifiable

    def group_name(self) -> None:
        # Captures are unobservable without backreferences, which are rejected,
        # so a named group becomes a plain group.
        match = _GROUP_NAME.match(self.src, self.pos + 1) if self.peek(2) == "?<" else None
        if match is None:
            self.fail("unsupported group; only (, (?:, (?=, (?!, (?<=, (?<! and (?<name> are")
        if match[1] in self.group_names:
            self.fail(f"duplicate group name {match[1]!r}")
        self.group_names.add(match[1])
        self.pos = match.end()

    def atom_escape(self) -> tuple[str, bool]:
        char = self.peek()
        if char == "b":
            self.pos += 1
            return _WORD_BOUNDARY, False
        if char == "B":
            self.pos += 1
            return _NOT_WORD_BOUNDARY, False
        if char == "k" or (char in _DECIMAL_DIGITS and char != "0"):
            self.fail("backreferences are not supported")
        value = self.escape(in_class=False)
        return (_emit_char(value) if isinstance(value, int) else _emit_set(value)), True

    def escape(self, in_class: bool) -> int | _Ranges:
        """Read the escape after a backslash: a code point or a class escape's set."""
        if self.pos >= len(self.src):
            self.fail("pattern ends with '\\'")
        char = self.src[self.pos]
        self.pos += 1
        if char in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[char]
        if char in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[char]
        if char in _SYNTAX_CHARACTERS or char == "/" or (in_class and char == "-"):
            return ord(char)
        if in_class and char == "b":
            return 0x08
        if char == "0" and self.peek() not in _DECIMAL_DIGITS:
            return 0
        if char == "c" and self.peek() in _ASCII_LETTERS:
            self.pos += 1
            return ord(self.src[self.pos - 1]) % 32
        if char == "x":
            return self.hex_digits(2)
        if char == "u":
            return self.unicode_escape()
        if char in ("p", "P"):
            return self.property_escape(negated=char == "P")
        self.fail(f"invalid escape '\\{char}' under the u flag")

    def property_escape(self, negated: bool) -> _Ranges:
        """``\\p{..}`` / ``\\P{..}`` (§22.2.1 UnicodePropertyValueExpression), after the ``p``."""
        match = _PROPERTY.match(self.src, self.pos)
        if match is None:
            self.fail("malformed \\p{...} escape")
        self.pos = match.end()
        ranges = _property_ranges(match.group(1), match.group(2))
        if isinstance(ranges, str):
            self.fail(ranges)
        return _complement(ranges) if negated else ranges

    def hex_digits(self, count: int) -> int:
        digits = self.peek(count)
        if len(digits) != count or not _HEX_DIGITS.issuperset(digits):
            self.fail(f"expected {count} hex digits")
        self.pos += count
        return int(digits, 16)

    def unicode_escape(self) -> int:
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end > 0 else ""
            if not digits or not _HEX_DIGITS.issuperset(digits):
                self.fail("malformed \\u{...} escape")
            if int(digits, 16) > _MAX_CODE_POINT:
                self.fail("\\u{...} escape above U+10FFFF")
            self.pos = end + 1
            return int(digits, 16)
        value = self.hex_digits(4)
        # Under the u flag an escaped surrogate pair denotes one code point.
        trail = self.src[self.pos + 2 : self.pos + 6]
        if (
            0xD800 <= value <= 0xDBFF
            and self.peek(2) == "\\u"
            and len(trail) == 4
            and _HEX_DIGITS.issuperset(trail)
            and 0xDC00 <= int(trail, 16) <= 0xDFFF
        ):
            self.pos += 6
            return 0x10000 + ((value - 0xD800) << 10) + (int(trail, 16) - 0xDC00)
        return value

    def character_class(self) -> _Ranges:
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges: _Ranges = []
        while self.peek() != "]":
            if self.pos >= len(self.src):
                self.fail("missing ']'")
            low = self.class_atom()
            if self.peek() == "-" and self.peek(2)[1:] not in ("]", ""):
                self.pos += 1
                high = self.class_atom()
                if not isinstance(low, int) or not isinstance(high, int):
                    self.fail("a class escape cannot bound a range under the u flag")
                if low > high:
                    self.fail("character class range out of order")
                ranges.append((low, high))
            elif isinstance(low, int):
                ranges.append((low, low))
            else:
                ranges.extend(low)
        self.pos += 1
        return _complement(ranges) if negated else _normalize(ranges)

    def class_atom(self) -> int | _Ranges:
        char = self.src[self.pos]
        self.pos += 1
        return self.escape(in_class=True) if char == "\\" else ord(char)


def _emit_char(code_point: int) -> str:
    char = chr(code_point)
    if char in _PLAIN:
        return char
    if code_point in _EMIT_CONTROL:
        return _EMIT_CONTROL[code_point]
    if 0x20 < code_point < 0x7F:
        return "\\" + char  # an escaped ASCII punctuation character is literal
    if code_point <= 0xFF:
        return f"\\x{code_point:02x}"
    if code_point <= 0xFFFF:
        return f"\\u{code_point:04x}"
    return f"\\U{code_point:08x}"


def _emit_set(ranges: _Ranges) -> str:
    if not ranges:
        return "(?!)"  # [] matches nothing
    complement = _complement(ranges)
    if not complement:
        return "[\\x00-\\U0010ffff]"  # [^] matches any code point
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _emit_char(ranges[0][0])
    if len(complement) < len(ranges):
        return f"[^{_class_body(complement)}]"
    return f"[{_class_body(ranges)}]"


def _class_body(ranges: _Ranges) -> str:
    parts = []
    for low, high in ranges:
        parts.append(_emit_char(low))
        if high > low + 1:
            parts.append("-")
        if high > low:
            parts.append(_emit_char(high))
    return "".join(parts)
