"""No file under generated/ defines a hand-written function (issue 15: templates are templates).

Every function a generated module defines is named for what it is compiled from, and the rule is
read from that source:

* a converter module (``convert_<source>_<target>*.py``, mappings/<spec>.toml): ``_NAME`` for
  each ``[maps.NAME]`` of its spec, and the spec's public ``function``;
* a strategies module (``<schema>_strategies.py``): one function per definition, each the value
  of a ``STRATEGIES`` entry (``st.deferred(func)``), and ``root``; the helpers they combine are
  lucent/_strategies.py's;
* a bindings module (``<schema>.py``): ``dispatch_<Type>``, ``_decoded_<Type>`` and
  ``check_protocol_<Type>`` for a type the module defines, and dunder methods of its Structs;
* the registry and the SparkTide text limits: none.

A hand-written helper copied in (``_ref``, ``_integers``, ``verbatim``...) is named for no such
source and fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from codegen.mappings import load_specs

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
BINDING_FUNCTION = re.compile(r"^(?:dispatch|_decoded|check_protocol)_(?P<type>[A-Za-z_]\w*)$")


def _top_level_names(tree: ast.Module) -> set[str]:
    """The classes and assignments of the module (its type aliases sit under ``if TYPE_CHECKING``)."""
    names: set[str] = set()
    blocks = [n for n in tree.body if isinstance(n, ast.If)]
    for node in tree.body + [n for block in blocks for n in block.body + block.orelse]:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _strategy_functions(tree: ast.Module) -> set[str]:
    """The functions the module's STRATEGIES mapping defers to, and ``root``."""
    allowed = {"root"}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id == "STRATEGIES" and isinstance(node.value, ast.Dict):  # type: ignore[union-attr]
            for value in node.value.values:  # type: ignore[union-attr]
                if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Name):
                    allowed.add(value.args[0].id)
    return allowed


def stray_functions(name: str, text: str, spec_functions: dict[str, set[str]]) -> list[str]:
    """The functions of the generated module `name` (its source `text`) that no schema or spec
    names: ``<file>:<line> <function>``. `spec_functions` maps a converter module's file name to
    the functions its spec compiles to."""
    tree = ast.parse(text)
    defined = _top_level_names(tree)
    if name in spec_functions:
        allowed = spec_functions[name]
    elif name.endswith("_strategies.py"):
        allowed = _strategy_functions(tree)
    else:
        allowed = set()
    stray = []
    methods = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body if isinstance(f, ast.FunctionDef)}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if id(node) in methods and node.name.startswith("__") and node.name.endswith("__"):
            continue  # a Struct's __post_init__ (the schema's conditional rules)
        found = BINDING_FUNCTION.match(node.name)
        if node.name in allowed or (found and found.group("type") in defined and not name.endswith("_strategies.py")):
            continue
        stray.append(f"{name}:{node.lineno} {node.name}")
    return stray


@pytest.fixture(scope="module")
def spec_functions() -> dict[str, set[str]]:
    return {spec.pair["output"]: {f"_{m}" for m in spec.maps} | {spec.pair["function"]} for spec in load_specs(ROOT)}


def test_no_generated_module_defines_a_function_no_schema_or_spec_names(spec_functions: dict[str, set[str]]) -> None:
    files = sorted(GENERATED.glob("*.py"))
    assert {p.name for p in files} >= set(spec_functions)
    stray = [s for p in files for s in stray_functions(p.name, p.read_text(encoding="utf-8"), spec_functions)]
    assert stray == [], "hand-written functions under generated/ (move them to lucent/):\n" + "\n".join(stray)


def test_a_copied_helper_is_found(spec_functions: dict[str, set[str]]) -> None:
    helper = '\n\ndef _ref(name: str) -> Any:\n    return STRATEGIES[name]\n'
    strategies = (GENERATED / "lux_ir_v1_strategies.py").read_text(encoding="utf-8")
    assert [s.split(" ")[1] for s in stray_functions("lux_ir_v1_strategies.py", strategies + helper, spec_functions)] == ["_ref"]
    transform = '\n\ndef verbatim(value: Any) -> Any:\n    return value\n'
    converter = (GENERATED / "convert_openai_chat_lux.py").read_text(encoding="utf-8")
    assert [s.split(" ")[1] for s in stray_functions("convert_openai_chat_lux.py", converter + transform, spec_functions)] == ["verbatim"]
    bindings = (GENERATED / "anthropic.py").read_text(encoding="utf-8")
    assert [s.split(" ")[1] for s in stray_functions("anthropic.py", bindings + "\n\ndef dispatch_Nothing(v):\n    return v\n", spec_functions)] == ["dispatch_Nothing"]
