"""codegen: generated/ is the snapshot of a fresh run, the run is deterministic and fast."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("datamodel_code_generator")
pytest.importorskip("jinja2")

from codegen.__main__ import ROOT, render_all  # noqa: E402
from codegen.bindings import BindingCompiler  # noqa: E402
from codegen.schema import SchemaDocument, SchemaError  # noqa: E402


def test_generated_matches_a_fresh_codegen_run() -> None:
    files = render_all()
    stale = [name for name, text in files.items() if (ROOT / name).read_text(encoding="utf-8") != text]
    assert stale == []


def test_codegen_is_deterministic() -> None:
    # Its time is a figure, not a test: `python -m codegen --check` prints it.
    assert render_all() == render_all()


def test_check_mode_exits_non_zero_on_a_stale_file_and_writes_nothing(tmp_path: Path) -> None:
    target = ROOT / "generated" / "lux_ir_v1.py"
    original = target.read_bytes()
    try:
        target.write_bytes(original + b"# edited by hand\n")
        result = subprocess.run([sys.executable, "-m", "codegen", "--check"], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 1
        assert "stale: generated/lux_ir_v1.py" in result.stderr
        assert target.read_bytes() == original + b"# edited by hand\n"
    finally:
        target.write_bytes(original)


def test_every_generated_module_starts_with_its_source_and_do_not_edit() -> None:
    for name, text in render_all().items():
        if name.endswith(".py") and name.startswith("generated/"):
            doc = ast.get_docstring(ast.parse(text)) or ""
            assert "do not edit" in doc, name


def test_class_names_are_readable_not_numbered() -> None:
    from lucent.generated import llm_sdk, lux_ir_v1, sparktide_remote_1_0

    assert lux_ir_v1.LucentContentText.__struct_config__.tag == "text"
    assert lux_ir_v1.LucentConversationItemToolCall.__struct_config__.tag == "tool_call"
    assert sparktide_remote_1_0.RemoteModelToolDelta.__struct_config__.tag == "tool.delta"
    assert llm_sdk.ToolChoiceTool.__struct_config__.tag == "tool"
    numbered = [n for module in (lux_ir_v1, llm_sdk, sparktide_remote_1_0) for n in module.__all__ if n[-1].isdigit() and "JsonInt" not in n]
    assert numbered == []


def test_closed_objects_forbid_unknown_fields_and_open_ones_are_dicts() -> None:
    from lucent.generated import llm_sdk

    assert llm_sdk.TextPart.__struct_config__.forbid_unknown_fields is True
    assert llm_sdk.JSONSchema == dict[str, object] or str(llm_sdk.JSONSchema) == "dict[str, typing.Any]"


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"A": {"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"x": {}}}}},
        {"$defs": {"A": {"type": "string", "pattern": "(a)\\1"}}},
        {"$defs": {"A": {"type": "integer", "format": "int128"}}},
    ],
    ids=["patternProperties", "backreference", "unknown-integer-format"],
)
def test_a_keyword_that_cannot_be_compiled_exactly_fails_the_build(schema: dict[str, object]) -> None:
    document = SchemaDocument(path=Path("t.json"), stem="t", raw=dict(schema), text="")
    with pytest.raises((SchemaError, ValueError)):
        BindingCompiler(document).compile()
