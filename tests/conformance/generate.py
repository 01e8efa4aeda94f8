"""Valid instances: drawn from the strategies codegen renders from each schema.

The strategies module is rendered afresh from ``schemas/`` with
``codegen.strategies.render`` and loaded in memory, so the harness always
tests the schema as it is, whether or not ``generated/`` was regenerated.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers as _providers

from codegen.strategies import render

from .kinds import MODULES, VENDOR_MODULES
from .paths import schema_path

__all__ = ["close_tool_arguments", "draw", "independent_strategy", "named_seed", "strategies_module", "strategy"]


@lru_cache(maxsize=None)
def strategies_module(schema: str) -> types.ModuleType:
    """The rendered strategies module of one schema, loaded in memory."""
    document = json.loads(schema_path(schema).read_text(encoding="utf-8"))
    modules = {**MODULES, **VENDOR_MODULES}
    name = f"_conformance_{modules[schema]}_strategies"
    source = render(modules[schema], document, schema, lenient=schema in VENDOR_MODULES)
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - our own rendering
    return module


def strategy(schema: str, definition: str | None) -> st.SearchStrategy[Any]:
    """The strategy of a definition (``None``: the schema root)."""
    module = strategies_module(schema)
    found: st.SearchStrategy[Any] = module.root() if definition is None else module.STRATEGIES[definition]
    return found


def independent_strategy(schema: str, definition: str | None) -> st.SearchStrategy[Any] | None:
    """hypothesis-jsonschema's strategy for a definition, or None where it fails.

    An independent generator, to catch what ours might never draw. It cannot
    resolve recursive references (most Lux kinds) and does not know the uint
    formats, so the runner skips the values the oracle refuses.
    """
    import warnings

    from hypothesis_jsonschema import from_schema

    document = json.loads(schema_path(schema).read_text(encoding="utf-8"))
    node: Any = document
    for section in ("$defs", "definitions"):
        if definition in document.get(section, {}):
            node = document[section][definition]
    sections = {k: document[k] for k in ("$defs", "definitions") if k in document}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found: st.SearchStrategy[Any] = from_schema({**sections, **node})
        try:
            found.validate()
            found.example()  # it raises on recursive references only when drawing
        except Exception:  # noqa: BLE001 - hypothesis-jsonschema refuses the schema
            return None
    return found


def named_seed(base: int, *names: str) -> int:
    """The hypothesis seed of one named stream of draws: *base* (``--seed``) and the names of what
    is drawn (schema, definition, purpose), hashed.

    Each kind draws from its own seed, so no kind's inputs depend on the order in which kinds run
    or share a seed by accident; with the strategies rendered per definition, the inputs of one
    kind depend only on the definitions it reaches (tests/test_conformance_seeds.py).
    """
    digest = hashlib.sha256("\x1f".join((str(base), *names)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def draw(strat: st.SearchStrategy[Any], count: int, seed_value: int = 0) -> list[Any]:
    """Draw up to *count* values with hypothesis, reproducibly for a seed.

    Fewer come back when the strategy has fewer distinct values.
    """
    out: list[Any] = []

    @seed(seed_value)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strat)
    def collect(value: Any) -> None:
        out.append(value)

    with _no_local_constants():
        collect()
    return out[:count]


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Draw without the literals hypothesis collects from the loaded local modules.

    Hypothesis (6.131 on) mixes into its draws constants it reads from the source of every local
    module in ``sys.modules`` (here lucent and codegen, generated bindings included). The draws of
    a seed would then change with which modules happen to be imported (pytest's order of test
    files) and with any literal of any schema's generated code, so the inputs of one schema would
    depend on another's shape (issue 17, point 5). The pool is an internal of hypothesis
    (``hypothesis.internal.conjecture.providers``); tests/test_conformance_seeds.py fails if this
    stops taking effect.
    """
    real = _providers._get_local_constants
    _providers._get_local_constants = _providers.Constants
    _providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        _providers._get_local_constants = real
        _providers.CONSTANTS_CACHE.cache.clear()


def close_tool_arguments(value: Any, rng: random.Random, share: float = 0.75) -> Any:
    """Make most SparkTide tool-call ``arguments`` closed JSON objects.

    The schema types ``RemoteModelToolCall.function.arguments`` as any string;
    the protocol (``codegen/protocols.toml``) requires one closed JSON object.
    A *share* of the calls get such an object, the rest keep the drawn string,
    which lucent refuses under the listed protocol departure.
    """
    if isinstance(value, list):
        return [close_tool_arguments(v, rng, share) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: close_tool_arguments(v, rng, share) for k, v in value.items()}
    function = out.get("function")
    if out.get("type") == "function" and isinstance(function, dict) and "arguments" in function:
        if rng.random() < share:
            keys = rng.sample(["query", "city", "n", "ids", "opts", "å"], rng.randint(0, 3))
            values: list[Any] = ["x", 1, 2.5, None, [1, "a"], {"k": True}]
            obj = {k: rng.choice(values) for k in keys}
            out["function"] = {**function, "arguments": json.dumps(obj, ensure_ascii=rng.random() < 0.5)}
    return out
