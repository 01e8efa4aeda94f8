"""The generated inputs of one kind do not depend on another's shape (issue 17, point 5).

A user adds a property to one definition and runs ``nox -s conformance``: the inputs drawn for
every kind that does not reach that definition must be the same bytes as before, so that a
failure on them is not a new input shaken loose by an unrelated change. The schema is changed
in a copy (tmp_path); schemas/ is not touched.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import generate
from tests.conformance.generate import draw, named_seed, strategy
from tests.conformance.kinds import KINDS, Kind
from tests.conformance.oracle import Oracle
from tests.conformance.paths import SCHEMAS_DIR
from tests.conformance.runner import Runner, reached
from tests.conformance.subject import Subject
from tests.convert_conformance import inputs as convert_inputs
from tests.convert_conformance.pairs import side

_LUX = "lux-ir-v1"
_CHANGED = "LucentRequest"
_ADDED = "x_added_for_the_test"
_COUNT = 25


def test_named_seeds_are_stable_and_differ_by_every_name() -> None:
    assert named_seed(0, _LUX, "LucentRequest") == named_seed(0, _LUX, "LucentRequest")
    seeds = {
        named_seed(0, _LUX, "LucentRequest"),
        named_seed(0, _LUX, "LucentResponse"),
        named_seed(0, "llm-sdk", "LucentRequest"),
        named_seed(1, _LUX, "LucentRequest"),
        named_seed(0, "independent", _LUX, "LucentRequest"),
        named_seed(0, f"{_LUX}LucentRequest"),  # names are separated, not concatenated
    }
    assert len(seeds) == 6
    assert all(0 <= s < 2**64 for s in seeds)


@pytest.fixture(scope="module")
def changed_schemas(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of schemas/ whose Lux ``LucentRequest`` has one more optional property."""
    folder = tmp_path_factory.mktemp("schemas")
    shutil.copytree(SCHEMAS_DIR, folder, dirs_exist_ok=True)
    path = folder / f"{_LUX}.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    definitions = document.get("$defs") or document["definitions"]
    assert _ADDED not in definitions[_CHANGED]["properties"]
    definitions[_CHANGED]["properties"][_ADDED] = {"type": "string", "minLength": 1}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return folder


def _with_schemas(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    """Make the harness render its strategies from *folder* (None: schemas/)."""
    if folder is not None:
        monkeypatch.setattr(generate, "schema_path", lambda stem: folder / f"{stem}.json" if (folder / f"{stem}.json").is_file() else folder / "vendor" / f"{stem}.json")
    else:
        monkeypatch.undo()
    generate.strategies_module.cache_clear()
    convert_inputs._drawn.cache_clear()


def _reaches_changed(kind: Kind, oracle: Oracle) -> bool:
    changed = oracle.subschema(_LUX, _CHANGED)
    return any(node is changed for node in reached(oracle.document(kind.schema), oracle.subschema(kind.schema, kind.definition)))


def _decode_inputs(kind: Kind, oracle: Oracle) -> list[bytes]:
    """What ``python -m tests.conformance`` judges for a kind: the drawn values and the mutations."""
    runner = Runner(oracle, Subject(oracle=oracle), seed=0)
    values = draw(strategy(kind.schema, kind.definition), _COUNT, named_seed(0, kind.schema, kind.label))
    mutations = runner._mutations(kind, values, _COUNT, random.Random(f"0:{kind.schema}:{kind.label}"))
    return [json.dumps(v, sort_keys=True).encode() for v in values] + [data for _, _, data in mutations]


def _convert_inputs(fmt: str, kind: str) -> list[str]:
    """What ``python -m tests.convert_conformance`` converts for a side (generated part)."""
    return [json.dumps(i.doc, sort_keys=True) + f"*{i.weight}" for i in convert_inputs.generated_inputs(side(fmt, kind), _COUNT, 0)]


def test_adding_a_property_to_one_definition_leaves_every_other_kinds_inputs_byte_identical(
    changed_schemas: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before_oracle, after_oracle = Oracle(), Oracle(changed_schemas)
    others = [k for k in KINDS if not _reaches_changed(k, before_oracle)]
    assert Kind(_LUX, "LucentResponse") in others and Kind(_LUX, _CHANGED) not in others
    sides = [("lux", "response"), ("sparktide", "request"), ("llm-sdk", "request"), ("htmlp", "request")]

    _with_schemas(monkeypatch, None)
    before = {k: _decode_inputs(k, before_oracle) for k in others}
    before_convert = {s: _convert_inputs(*s) for s in sides}
    changed_before = draw(strategy(_LUX, _CHANGED), _COUNT, named_seed(0, _LUX, _CHANGED))

    _with_schemas(monkeypatch, changed_schemas)
    try:
        changed_after = draw(strategy(_LUX, _CHANGED), _COUNT, named_seed(0, _LUX, _CHANGED))
        # the copy is what the harness read: the changed kind now draws the new member
        assert any(_ADDED in v for v in changed_after) and not any(_ADDED in v for v in changed_before)
        for kind in others:
            assert _decode_inputs(kind, after_oracle) == before[kind], kind
        for s in sides:
            assert _convert_inputs(*s) == before_convert[s], s
    finally:
        _with_schemas(monkeypatch, None)


def _values(found: list[Any]) -> set[str]:
    return {json.dumps(v, sort_keys=True) for v in found}


def test_two_kinds_of_one_schema_do_not_share_a_seed() -> None:
    # The same definition drawn under two kinds' seeds gives different inputs: the seed is per kind.
    a = draw(strategy(_LUX, "LucentUsage"), 20, named_seed(0, _LUX, "LucentRequest"))
    b = draw(strategy(_LUX, "LucentUsage"), 20, named_seed(0, _LUX, "LucentResponse"))
    assert _values(a) != _values(b)


def test_a_draw_does_not_change_with_the_literals_of_the_loaded_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hypothesis mixes the literals of loaded local modules into its draws; the harness must not.

    A regenerated binding is such a module: without the guard, a new property name in one
    schema's generated code would shift the inputs drawn for every other schema.
    """
    usage = strategy(_LUX, "LucentUsage")
    before = draw(usage, _COUNT, 7)
    module = tmp_path / "many_literals.py"
    module.write_text("".join(f"V{i} = ({i * 7919 + 3}, 'lit{i}', {i}.25)\n" for i in range(400)), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__("many_literals")
    assert draw(usage, _COUNT, 7) == before
    # the control: hypothesis itself does draw those literals, so the check above can fail
    import contextlib

    monkeypatch.setattr(generate, "_no_local_constants", contextlib.nullcontext)
    assert draw(usage, _COUNT, 7) != before
    sys.modules.pop("many_literals")
