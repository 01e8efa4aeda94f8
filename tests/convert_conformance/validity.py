"""The validity oracle: jsonschema, with ECMA-262 patterns and the formats lucent asserts.

The validators of ``tests.conformance.oracle.Oracle`` (each schema's own draft, the ``uint``
formats) with the ``pattern`` keyword of ``tests.ecma_jsonschema``: JSON Schema patterns are
ECMA-262 regular expressions, whose ``\\s`` is not Python's.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from tests.conformance.oracle import Oracle, format_checker
from tests.ecma_jsonschema import ecma

from .pairs import Side

__all__ = ["Validity"]


class Validity:
    """jsonschema validators for the documents of each side."""

    def __init__(self, oracle: Oracle | None = None) -> None:
        self.oracle = oracle or Oracle()

    @cache  # noqa: B019 - one per run
    def validator(self, schema: str, root: str | None) -> Any:
        document = self.oracle.document(schema)
        cls = Draft7Validator if "draft-07" in document.get("$schema", "") else Draft202012Validator
        validator = ecma(cls)(document, format_checker=format_checker())
        return validator if root is None else validator.evolve(schema=self.oracle.subschema(schema, root))

    def errors(self, side: Side, value: Any) -> list[ValidationError]:
        """Every error jsonschema finds in ``value`` as a ``side`` document, each the most relevant
        one of its own tree (``best_match`` descends into ``oneOf``/``anyOf``)."""
        validator = self.validator(side.schema, side.root)
        if validator.is_valid(value):
            return []
        return [best_match([error]) for error in validator.iter_errors(value)]

    def error(self, side: Side, value: Any) -> ValidationError | None:
        """jsonschema's ``best_match`` error for ``value`` as a ``side`` document, or None."""
        validator = self.validator(side.schema, side.root)
        if validator.is_valid(value):
            return None
        found: ValidationError | None = best_match(validator.iter_errors(value))
        return found

    def accepts_member(self, side: Side, key: str, value: Any) -> bool:
        """Whether a ``side`` document accepts ``value`` as its top-level member ``key`` (true when
        the definition names no such property)."""
        definition = self.oracle.subschema(side.schema, side.root)
        member = definition.get("properties", {}).get(key)
        return member is None or self.oracle.is_valid(side.schema, member, value)
