"""The hypothesis strategies are behind the ``strategies`` extra (issue 15, point 5).

Without hypothesis, ``import lucent``, decode, convert and streams work, and importing a
strategies module raises UsageError(code=missing_dependency) naming the extra.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
_STRATEGIES = sorted(p.stem for p in (_ROOT / "generated").glob("*_strategies.py"))

_BLOCK_HYPOTHESIS = """
import sys
class _NoHypothesis:
    def find_spec(self, name, path=None, target=None):
        if name == "hypothesis" or name.startswith("hypothesis."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoHypothesis())
for name in [m for m in sys.modules if m == "hypothesis" or m.startswith("hypothesis.")]:
    del sys.modules[name]
"""


def _without_hypothesis(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", _BLOCK_HYPOTHESIS + code], capture_output=True, text=True, cwd=_ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_there_is_a_strategies_module_per_schema() -> None:
    assert len(_STRATEGIES) == len(list((_ROOT / "schemas").glob("*.json"))) + len(list((_ROOT / "schemas" / "vendor").glob("*.json")))


def test_importing_a_strategies_module_without_hypothesis_raises_missing_dependency() -> None:
    code = f"""
import json
from lucent.errors import UsageError
found = {{}}
try:
    import lucent._strategies
except UsageError as exc:
    found["_strategies"] = [exc.code, exc.args[0]]
for name in {_STRATEGIES!r}:
    try:
        __import__("lucent.generated." + name)
    except UsageError as exc:
        found[name] = [exc.code, exc.args[0]]
print(json.dumps(found))
"""
    found = json.loads(_without_hypothesis(code))
    assert found == {
        "_strategies": ["missing_dependency", "lucent._strategies needs hypothesis: pip install 'lucent[strategies]'"],
        **{name: ["missing_dependency", f"lucent.generated.{name} needs hypothesis: pip install 'lucent[strategies]'"] for name in _STRATEGIES},
    }


def test_the_runtime_works_without_hypothesis() -> None:
    code = """
import json, sys
import lucent
from lucent import streams
doc = open("examples/sparktide-request.json", "rb").read()
lucent.decode(doc, "sparktide-remote-1.0")
result = lucent.convert(doc, source="sparktide", target="openai-chat")
for fmt in streams.FORMATS:
    streams.assembler(fmt)
lucent.warm_up()
print(json.dumps([result.value is not None, sorted(m for m in sys.modules if "hypothesis" in m or m.endswith("_strategies"))]))
"""
    assert json.loads(_without_hypothesis(code)) == [True, []]


def test_the_strategies_extra_installs_hypothesis() -> None:
    project = tomllib.loads((_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert [d for d in project["dependencies"] if "hypothesis" in d] == []
    assert any(d.startswith("hypothesis") for d in project["optional-dependencies"]["strategies"])


def test_with_hypothesis_the_strategies_draw_documents() -> None:
    pytest.importorskip("hypothesis")
    from hypothesis import given, settings

    from lucent.generated.llm_sdk_strategies import STRATEGIES

    import lucent

    @settings(max_examples=5, deadline=None, database=None)
    @given(STRATEGIES["TextPart"])
    def decodes(value: object) -> None:
        lucent.decode(json.dumps(value).encode(), "llm-sdk", "TextPart")

    decodes()
