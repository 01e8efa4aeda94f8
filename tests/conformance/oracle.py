"""The oracle: jsonschema, with the formats lucent asserts.

JSON text is parsed with Python's ``json`` (constants such as ``NaN`` are not
JSON and are refused) and validated with ``Draft202012Validator`` (llm-sdk:
``Draft7Validator``). The error the oracle names is jsonschema's
``best_match``, which is what ``INDEX.json`` records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]
from jsonschema.protocols import Validator  # type: ignore[import-untyped]

from .paths import SCHEMAS_DIR
from .verdict import Verdict

__all__ = ["UINT_FORMATS", "Oracle", "format_checker", "parse_json", "verdict_of"]

UINT_FORMATS: dict[str, int] = {"uint32": 2**32 - 1, "uint": 2**64 - 1}
"""Formats that lucent treats as assertions, with their largest value (htmlp)."""


def format_checker() -> FormatChecker:
    """A FormatChecker that knows exactly the formats lucent asserts.

    ``uint32`` and ``uint`` hold for integers (``3.0`` counts) from 0 to their
    largest value; other JSON types are left to ``type``.
    """
    checker = FormatChecker(formats=())
    for name, top in UINT_FORMATS.items():
        checker.checks(name)(_uint(top))
    return checker


def _uint(top: int) -> Any:
    def check(instance: object) -> bool:
        if isinstance(instance, bool) or not isinstance(instance, (int, float)):
            return True
        if isinstance(instance, float):
            if not instance.is_integer():
                return False
            instance = int(instance)
        return 0 <= instance <= top

    return check


def verdict_of(error: ValidationError | None) -> Verdict:
    """The verdict an error (or its absence) stands for."""
    if error is None:
        return Verdict(True)
    return Verdict(False, tuple(error.absolute_path), str(error.validator), error.message)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(data: bytes | str) -> Any:
    """Parse JSON text the way the oracle does.

    Raises
    ------
    ValueError
        For text that is not UTF-8 JSON (``json.JSONDecodeError`` is one).
    """
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return json.loads(text, parse_constant=_refuse_constant)


class Oracle:
    """jsonschema validators for the schemas in ``schemas/``, per definition."""

    def __init__(self, schemas_dir: Path = SCHEMAS_DIR) -> None:
        self.schemas_dir = schemas_dir
        self._subvalidators: dict[tuple[str, int], Validator] = {}

    @cached_property
    def documents(self) -> dict[str, dict[str, Any]]:
        """Every schema document, by file stem."""
        return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(self.schemas_dir.glob("*.json"))}

    @cached_property
    def vendor_documents(self) -> dict[str, dict[str, Any]]:
        """The vendor schemas (schemas/vendor/), by file stem."""
        folder = self.schemas_dir / "vendor"
        return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}

    def document(self, schema: str) -> dict[str, Any]:
        """A schema document, seed or vendor."""
        return self.documents[schema] if schema in self.documents else self.vendor_documents[schema]

    def pointer(self, schema: str, definition: str | None) -> str:
        """The JSON pointer of a definition in its schema (``""`` for the root)."""
        if definition is None:
            return ""
        for section in ("$defs", "definitions"):
            if definition in self.document(schema).get(section, {}):
                return f"/{section}/{definition}"
        raise KeyError(f"{schema} has no definition {definition}")

    def subschema(self, schema: str, definition: str | None) -> Any:
        """The schema of a definition (the whole document for the root)."""
        node: Any = self.document(schema)
        for part in self.pointer(schema, definition).split("/")[1:]:
            node = node[part]
        return node

    @lru_cache(maxsize=None)  # noqa: B019 - one oracle per run
    def validator(self, schema: str, definition: str | None = None) -> Validator:
        """A validator for one definition, resolving references in its document."""
        document = self.document(schema)
        cls = Draft7Validator if "draft-07" in document.get("$schema", "") else Draft202012Validator
        root = cls(document, format_checker=format_checker())
        return root if definition is None else root.evolve(schema=self.subschema(schema, definition))

    def errors(self, schema: str, definition: str | None, value: Any) -> Iterator[ValidationError]:
        """Every error jsonschema reports for *value*."""
        errors: Iterator[ValidationError] = self.validator(schema, definition).iter_errors(value)
        return errors

    def best_error(self, schema: str, definition: str | None, value: Any) -> ValidationError | None:
        """jsonschema's ``best_match`` error for *value*, or None when it is valid."""
        return best_match(self.errors(schema, definition, value))

    def judge_value(self, schema: str, definition: str | None, value: Any) -> Verdict:
        """The verdict on a parsed value: best_match's path and keyword."""
        return verdict_of(self.best_error(schema, definition, value))

    def judge(self, schema: str, definition: str | None, data: bytes | str) -> Verdict:
        """The verdict on JSON text."""
        try:
            value = parse_json(data)
        except ValueError as exc:
            return Verdict(False, (), "malformed_json", str(exc))
        return self.judge_value(schema, definition, value)

    def is_valid(self, schema: str, subschema: Any, value: Any) -> bool:
        """Whether *value* meets a subschema of a document (references resolve in it)."""
        key = (schema, id(subschema))
        validator = self._subvalidators.get(key)
        if validator is None:
            validator = self._subvalidators[key] = self.validator(schema).evolve(schema=subschema)
        return bool(validator.is_valid(value))
