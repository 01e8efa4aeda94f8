"""The validity oracle: jsonschema, with ECMA-262 patterns and the formats lucent asserts.

The validators of ``tests.conformance.oracle.Oracle`` (each schema's own draft, the ``uint``
formats) with the ``pattern`` keyword of ``tests.ecma_jsonschema``: JSON Schema patterns are
ECMA-262 regular expressions, whose ``\\s`` is not Python's.
"""

from __future__ import annotations

from functools import lru_cache
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

    @lru_cache(maxsize=None)  # noqa: B019 - one per run
    def validator(self, schema: str, root: str | None) -> Any:
        document = self.oracle.documents[schema]
        cls = Draft7Validator if "draft-07" in document.get("$schema", "") else Draft202012Validator
        validator = ecma(cls)(document, format_checker=format_checker())
        return validator if root is None else validator.evolve(schema=self.oracle.subschema(schema, root))

    def error(self, side: Side, value: Any) -> ValidationError | None:
        """jsonschema's ``best_match`` error for ``value`` as a ``side`` document, or None."""
        validator = self.validator(side.schema, side.root)
        if validator.is_valid(value):
            return None
        found: ValidationError | None = best_match(validator.iter_errors(value))
        return found
