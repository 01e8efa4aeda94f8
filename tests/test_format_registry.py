"""One format registry (issue 15): lucent.formats.FORMATS is the only list of formats.

Decode, convert, streams, the CLI, snapshots and codegen read it; a literal that lists format
names anywhere else in lucent/ or codegen/ fails here.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import lucent
from lucent import cli, streams
from lucent._convert import FORMATS as CONVERT_FORMATS
from lucent.formats import FORMATS, resolve

_ROOT = Path(__file__).resolve().parents[1]
_REGISTRY_FILE = _ROOT / "lucent" / "formats" / "__init__.py"

_ALLOWED: dict[str, str] = {}
"""``path:line`` -> why that literal may list format names. Empty: every list derives from the registry."""

_STREAMING = [name for name, f in FORMATS.items() if f.stream is not None]


def _spellings() -> frozenset[str]:
    """Every way code spells a format: its name, schema stem and module, with - or _."""
    names = {spelling for f in FORMATS.values() for spelling in (f.name, f.schema, f.module)}
    return frozenset(names | {n.replace("-", "_") for n in names} | {n.replace("_", "-") for n in names})


def format_lists(source: str, spellings: frozenset[str] = _spellings()) -> list[tuple[int, list[str]]]:
    """(line, names) of each list, tuple, set or dict literal in ``source`` whose string constants
    (a dict's keys, or its values) name two formats or more."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            groups = [node.elts]
        elif isinstance(node, ast.Dict):
            groups = [[k for k in node.keys if k is not None], node.values]
        else:
            continue
        for group in groups:
            names = sorted({e.value for e in group if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in spellings})
            if len(names) >= 2:
                found.append((node.lineno, names))
    return found


def _hand_written() -> list[Path]:
    """The Python files of lucent/ and codegen/ but the registry and generated code."""
    files = []
    for folder in ("lucent", "codegen"):
        for path in sorted((_ROOT / folder).rglob("*.py")):
            if path == _REGISTRY_FILE or "generated" in path.relative_to(_ROOT).parts[:-1]:
                continue
            if "do not edit" in path.read_text(encoding="utf-8")[:2000]:
                continue  # written by codegen
            files.append(path)
    return files


def test_no_other_literal_lists_format_names() -> None:
    offenders = []
    for path in _hand_written():
        for line, names in format_lists(path.read_text(encoding="utf-8")):
            where = f"{path.relative_to(_ROOT).as_posix()}:{line}"
            if where not in _ALLOWED:
                offenders.append(f"{where}: {', '.join(names)}")
    assert offenders == [], "derive these from lucent.formats.FORMATS:\n" + "\n".join(offenders)


def test_the_scan_finds_lists_tuples_sets_and_dicts_of_format_names() -> None:
    source = (
        'a = ["lux", "gemini"]\nb = fmt in ("openai-chat", "anthropic")\nc = {"llm_sdk", "sparktide_remote_1_0"}\n'
        'd = {"htmlp": 1, "lux": 2}\ne = {1: "anthropic", 2: "openai_responses"}\nf = ("lux", "other")\n'
    )
    assert sorted(line for line, _ in format_lists(source)) == [1, 2, 3, 4, 5]


def test_the_scan_covers_lucent_and_codegen() -> None:
    scanned = {p.relative_to(_ROOT).as_posix() for p in _hand_written()}
    assert {"lucent/_convert.py", "lucent/streams.py", "lucent/cli.py", "codegen/mappings.py", "codegen/vendor.py"} <= scanned
    assert "lucent/formats/__init__.py" not in scanned


def test_the_allowlist_names_literals_that_exist() -> None:
    for where in _ALLOWED:
        path, line = where.rsplit(":", 1)
        assert int(line) in {n for n, _ in format_lists((_ROOT / path).read_text(encoding="utf-8"))}, where


# ------------------------------------------------------------------ the registry drives each place


def test_decode_and_convert_take_every_format() -> None:
    assert list(CONVERT_FORMATS) == list(FORMATS)
    for name, f in FORMATS.items():
        assert CONVERT_FORMATS[name] == f.schema
        assert lucent.SCHEMAS[f.schema] == f.module
        assert (_ROOT / "schemas" / f.schema_file).is_file(), f.schema_file
        assert (_ROOT / "generated" / f"{f.module}.py").is_file(), f.module
    assert set(lucent.SCHEMAS) == {f.schema for f in FORMATS.values()} | {"lucent-diagnostics-v1"}


def test_streams_take_every_streaming_format() -> None:
    assert list(streams.FORMATS) == _STREAMING
    for name in _STREAMING:
        stream = FORMATS[name].stream
        assert stream is not None
        assert type(streams.assembler(name)) is resolve(stream.assembler)
        for part in ("Reader", "Writer"):
            assert isinstance(resolve(stream.converter + part), type)
        for _tag, struct in stream.side_events:
            assert isinstance(resolve(struct), type)
    with pytest.raises(lucent.errors.UsageError):
        streams.assembler("htmlp")  # no stream


def test_every_stream_pair_converts() -> None:
    for source in _STREAMING:
        for target in _STREAMING:
            conversion = streams.convert_stream([], source, target)
            assert conversion.source == source and conversion.target == target


def _choices(command: str, option: str) -> list[str]:
    sub = next(a for a in cli.parser()._actions if a.dest == "command").choices[command]  # type: ignore[union-attr]
    return list(next(a for a in sub._actions if option in a.option_strings).choices or [])


def test_the_cli_takes_every_format() -> None:
    assert _choices("validate", "--format") == list(FORMATS)
    assert _choices("assemble", "--format") == _STREAMING
    assert _choices("preflight", "--format") == [n for n, f in FORMATS.items() if "request" in f.kinds]
    assert list(cli.STREAM_FORMATS) == _STREAMING


def test_convert_help_names_every_format() -> None:
    out = subprocess.run([sys.executable, "-m", "lucent", "convert", "--help"], capture_output=True, text=True, check=True, cwd=_ROOT)
    text = " ".join(out.stdout.split()).replace("- ", "-")  # argparse wraps openai-responses after its hyphen
    for option in ("--from SOURCE", "--to TARGET"):
        listed = text.rsplit(option, 1)[1].split(" --", 1)[0]  # the option's help, not the usage line
        assert re.findall(r"[a-z][a-z-]*", listed.replace(" or ", ", ")) == list(FORMATS)


def test_docstrings_list_the_registry_formats() -> None:
    def listed(doc: str | None, parameter: str) -> list[str]:
        match = re.search(rf"^\s*{re.escape(parameter)} : \{{([^}}]*)\}}", doc or "", re.M)
        assert match, parameter
        return sorted(json.loads(f"[{match.group(1)}]"))

    assert listed(lucent.convert.__doc__, "source, target") == sorted(FORMATS)
    assert listed(streams.convert_stream.__doc__, "source, target") == sorted(_STREAMING)
    assert listed(streams.assembler.__doc__, "format") == sorted(_STREAMING)


def test_snapshots_restore_the_formats_that_continue_a_conversation() -> None:
    from lucent import _continuation, snapshots

    continuing = {n: f.conversation for n, f in FORMATS.items() if f.conversation is not None}
    assert continuing == {"lux": "conversation", "openai-responses": "input"}
    assert _continuation._INPUT_FIELD == continuing
    assert set(snapshots._SOURCES) == set(continuing)


def test_codegen_reads_the_registry() -> None:
    from codegen import mappings, vendor

    assert list(mappings.FORMATS) == list(FORMATS)
    for name, f in FORMATS.items():
        assert (mappings.FORMATS[name].schema_file, mappings.FORMATS[name].module, mappings.FORMATS[name].label) == (f.schema_file, f.module, f.label)
    assert {v.name: (v.spec, v.kind, v.roots) for v in vendor.VENDORS.values()} == {
        f.schema: (f.vendor.spec, f.vendor.kind, f.vendor.roots) for f in FORMATS.values() if f.vendor is not None
    }


def test_each_format_has_the_mapping_specs_of_its_kinds() -> None:
    specs = {p.stem for p in (_ROOT / "mappings").glob("*.toml")}
    for name, f in FORMATS.items():
        if name == "lux":
            continue
        stem = name.replace("-", "_")
        for kind in f.kinds:
            assert {f"{stem}_lux_{kind}", f"lux_{stem}_{kind}"} <= specs, (name, kind)


def test_a_format_added_to_the_registry_reaches_every_place() -> None:
    """The places read the registry when imported: one added before then is listed by all."""
    script = (
        "import msgspec, lucent.formats as F\n"
        "F.FORMATS['newfmt'] = msgspec.structs.replace(F.FORMATS['llm-sdk'], name='newfmt')\n"
        "import lucent, json\n"
        "from lucent import cli, streams, _convert, _cli_preflight, _stream_read\n"
        "from codegen import mappings\n"
        "help = ' '.join(cli.parser().format_help().split())\n"
        "print(json.dumps(['newfmt' in _convert.FORMATS, 'newfmt' in streams.FORMATS, 'newfmt' in streams._ASSEMBLERS,\n"
        "    'newfmt' in _stream_read.SPECS, 'newfmt' in cli.STREAM_FORMATS, 'newfmt' in cli._FORMAT_NAMES,\n"
        "    'newfmt' in _cli_preflight._REQUEST_FORMATS, 'newfmt' in mappings.FORMATS,\n"
        "    type(streams.assembler('newfmt')).__name__]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=_ROOT)
    assert json.loads(out.stdout) == [True] * 8 + ["LlmSdkAssembler"]


def test_the_registry_imports_nothing_of_lucent_but_itself() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import sys, json, lucent.formats; print(json.dumps(sorted(m for m in sys.modules if m.startswith('lucent'))))"],
        capture_output=True, text=True, check=True, cwd=_ROOT,
    )
    assert json.loads(out.stdout) == ["lucent", "lucent._first_use", "lucent.errors", "lucent.formats"]
