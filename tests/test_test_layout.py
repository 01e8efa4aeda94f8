"""Tests mirror the layout (issue 15): a test about one format lives in tests/formats/<fmt>/,
beside the other tests of that format, as its code lives in lucent/formats/<fmt>/."""

from __future__ import annotations

from pathlib import Path

from lucent.formats import FORMATS

TESTS = Path(__file__).resolve().parent
FOLDERS = sorted(name.replace("-", "_") for name in FORMATS)
"""A format's folder name: its registry name with ``_`` for ``-`` (``openai-chat`` -> ``openai_chat``)."""


def named_for_one_format(name: str) -> list[str]:
    """The formats a test file's name names (``test_convert_gemini.py`` -> ``["gemini"]``)."""
    stem = name.removesuffix(".py")
    return [folder for folder in FOLDERS if f"_{folder}_" in f"_{stem}_"]


def test_no_file_directly_under_tests_is_named_for_one_format() -> None:
    misplaced = {p.name: named_for_one_format(p.name) for p in TESTS.glob("test_*.py")}
    assert {name: found for name, found in misplaced.items() if len(found) == 1} == {}


def test_every_format_folder_is_a_registered_format() -> None:
    folders = sorted(p.name for p in (TESTS / "formats").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert set(folders) <= set(FOLDERS), folders
    assert "anthropic" in folders and "openai_responses" in folders


def test_the_check_finds_a_misplaced_file() -> None:
    assert named_for_one_format("test_convert_gemini.py") == ["gemini"]
    assert named_for_one_format("test_streams_openai_responses_corpus.py") == ["openai_responses"]
    assert named_for_one_format("test_cases_convert.py") == []
