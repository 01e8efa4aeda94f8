"""jsonschema validators whose ``pattern`` keyword follows ECMA-262, as JSON Schema says.

jsonschema evaluates ``pattern`` with Python's ``re``, whose ``\\s`` differs from ECMA-262's (for
example U+001F is white space to Python, not to ECMA-262). A SparkTide id of "\\x1f" matches the
schema's ``\\S``; these validators agree, through the pattern translator the bindings use
(``codegen.ecma_regex``; tests/conformance names the departure ``whitespace-class``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.validators import extend

from codegen.ecma_regex import translate

__all__ = ["ecma", "validate"]


@lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(translate(pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[jsonschema.ValidationError]:
    if isinstance(instance, str) and not _compiled(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r} (ECMA-262)")


_VALIDATORS = {
    cls: extend(cls, {"pattern": _pattern})
    for cls in (jsonschema.Draft202012Validator, jsonschema.Draft7Validator)
}


def ecma(cls: Any) -> Any:
    """The validator class `cls` (Draft202012Validator or Draft7Validator) with ECMA-262 patterns."""
    return _VALIDATORS[cls]


def validate(instance: Any, schema: dict[str, Any]) -> None:
    """jsonschema.validate with ECMA-262 patterns (raises jsonschema.ValidationError)."""
    cls = ecma(jsonschema.validators.validator_for(schema))
    error = jsonschema.exceptions.best_match(cls(schema).iter_errors(instance))
    if error is not None:
        raise error
