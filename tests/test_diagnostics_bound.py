"""A conversion's diagnostics are bounded: past MAX_DIAGNOSTICS, one per class with its count,
and the counts add up to what an unbounded list would hold (issue 14, class 8b)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import lucent
from lucent.errors import ConversionError
from lucent import _conversion
from lucent._conversion import FOLDED, MAX_CLASSES, MAX_DIAGNOSTICS, Diagnostics, represented
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic

BOUND = MAX_DIAGNOSTICS + MAX_CLASSES + 8


def _chat(schema: Any, messages: list[dict[str, Any]] | None = None) -> bytes:
    return json.dumps({
        "model": "m", "max_tokens": 16,
        "messages": messages or [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": schema}}],
    }).encode()


def _duplicates(count: int) -> bytes:
    """A Chat request whose tool schema holds ``count`` objects that each name ``a`` twice."""
    items = ",".join(['{"a":0,"a":1}'] * count)
    return _chat({"type": "object", "properties": {"x": "@"}}).replace(b'"@"', b"[" + items.encode() + b"]")


def _unbounded(monkeypatch: pytest.MonkeyPatch, *args: Any, **kwargs: Any) -> list[ConversionDiagnostic]:
    with monkeypatch.context() as patch:
        patch.setattr(_conversion, "MAX_DIAGNOSTICS", 10**9)
        return list(lucent.convert(*args, **kwargs).diagnostics)


def _counts(diagnostics: list[ConversionDiagnostic]) -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for d in diagnostics:
        detail = d.detail if isinstance(d.detail, str) else ""
        match = FOLDED.search(detail)
        key = (d.status, detail[: match.start()] if match else detail)
        found[key] = found.get(key, 0) + represented(d)
    return found


def test_many_duplicate_properties_give_a_bounded_list_that_counts_them_all() -> None:
    body = _duplicates(20_000)
    result = lucent.convert(body, "openai-chat", "lux")
    diagnostics = result.diagnostics
    assert len(diagnostics) == MAX_DIAGNOSTICS + 1
    holder = "$.tools[0].function.parameters.properties.x"
    assert [d.field for d in diagnostics[:MAX_DIAGNOSTICS]] == [f"{holder}[{i}].a" for i in range(MAX_DIAGNOSTICS)]
    folded = diagnostics[-1]
    assert (folded.field, folded.status) == (holder, "Unsupported")
    assert isinstance(folded.detail, str) and folded.detail.endswith(f" [folded: {20_000 - MAX_DIAGNOSTICS} diagnostics at paths inside this field]")
    assert represented(folded) == 20_000 - MAX_DIAGNOSTICS
    assert sum(map(represented, diagnostics)) == 20_000
    # the folded list still validates as a DiagnosticReport (the seed schema is unchanged)
    lucent.decode(lucent.encode({"source": "openai-chat", "target": "lux", "kind": "request", "diagnostics": diagnostics}),
                  "lucent-diagnostics-v1", "DiagnosticReport")


@pytest.mark.parametrize(
    ("body", "source", "target"),
    [
        (_duplicates(3_000), "openai-chat", "lux"),
        (_duplicates(3_000), "openai-chat", "anthropic"),  # composed: the first hop's, placed at source paths
        # converter diagnostics (Cx.report, both hops): each message's name has no Anthropic place
        (_chat({"type": "object"}, [{"role": "user", "content": "hi", "name": f"n{i}"} for i in range(2_500)]), "openai-chat", "anthropic"),
        # decode-stage diagnostics: members a Lux object does not define
        (json.dumps({"schema_version": "v1", "model": "m", "options": {"stream": False},
                     "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "t", f"u{i}": 1}]}} for i in range(2_500)]}).encode(),
         "lux", "openai-chat"),
    ],
    ids=["decode-duplicates", "composed-duplicates", "converter-reports", "unknown-members"],
)
def test_the_folded_counts_add_up_to_the_unbounded_list_class_by_class(body: bytes, source: str, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    unbounded = _unbounded(monkeypatch, body, source, target)
    bounded = lucent.convert(body, source, target).diagnostics
    assert len(unbounded) > MAX_DIAGNOSTICS  # the case reaches the cap
    assert len(bounded) <= BOUND
    assert bounded[:MAX_DIAGNOSTICS] == unbounded[:MAX_DIAGNOSTICS]
    assert _counts(bounded) == _counts(unbounded)
    for d in bounded[MAX_DIAGNOSTICS:]:  # each folded one is at a path holding every field it stands for
        members = [u.field for u in unbounded[MAX_DIAGNOSTICS:] if u.status == d.status and isinstance(u.detail, str) and isinstance(d.detail, str)
                   and d.detail.startswith(u.detail)]
        assert members and all(m == d.field or m.startswith((d.field + ".", d.field + "[")) for m in members)


def test_a_strict_refusal_counts_what_the_folded_diagnostics_stand_for() -> None:
    with pytest.raises(ConversionError) as refused:
        lucent.convert(_duplicates(2_000), "openai-chat", "lux", strict=True)
    assert refused.value.message.startswith("2000 diagnostic(s) are Unsupported or Invalid")
    assert len(refused.value.diagnostics) == MAX_DIAGNOSTICS + 1


def _diagnostic(field: str, detail: str = "d", status: Any = "Unsupported") -> ConversionDiagnostic:
    return ConversionDiagnostic(field=field, status=status, detail=detail)


def test_classes_past_the_class_cap_fold_per_status_and_target_paths_apart() -> None:
    items = [_diagnostic(f"$.a[{i}]") for i in range(MAX_DIAGNOSTICS)]
    items += [_diagnostic(f"target:$.t[{i}]", "d") for i in range(300)]  # the same detail, a target path: a class apart
    items += [_diagnostic(f"$.b[{i}].c", f"kind {i % (MAX_CLASSES + 10)}") for i in range(5_000)]
    items += [_diagnostic(f"$.b[{i}].c", f"kind {i}", "Invalid") for i in range(50)]  # past the class cap: per status
    folded = Diagnostics(items)
    assert len(folded) == MAX_DIAGNOSTICS + MAX_CLASSES + 2
    target = folded[MAX_DIAGNOSTICS]
    assert (target.field, target.detail, represented(target)) == ("target:$.t", "d [folded: 300 diagnostics at paths inside this field]", 300)
    others = [d for d in folded if isinstance(d.detail, str) and d.detail.startswith("diagnostics of further kinds (details differ) [folded: ")]
    assert [(d.field, d.status, represented(d)) for d in others] == [("$.b", "Unsupported", sum(1 for i in range(5_000) if i % (MAX_CLASSES + 10) >= MAX_CLASSES - 1)), ("$.b", "Invalid", 50)]
    assert sum(map(represented, folded)) == len(items)


def test_folded_lists_merged_keep_their_counts_and_their_bound() -> None:
    first = Diagnostics(_diagnostic(f"$.x[{i}]") for i in range(3_000))
    second = Diagnostics(_diagnostic(f"$.y[{i}].z") for i in range(3_000))
    merged = Diagnostics([*first, *second])
    assert len(merged) == MAX_DIAGNOSTICS + 1
    assert merged[-1].field == "$" and represented(merged[-1]) == 5_000  # $.x[1000..] and all of $.y
    assert sum(map(represented, merged)) == 6_000
    appended = Diagnostics()
    appended.extend(first)
    appended.append(first[-1])
    assert represented(appended[-1]) == 4_000


@pytest.mark.parametrize(
    ("paths", "holder"),
    [
        (["$.a.b[1]", "$.a.c"], "$.a"),
        (["$.a.b[1]", "$.a.b[10]"], "$.a.b"),
        (['$.a["x.y"].c', '$.a["x.z"].c'], "$.a"),
        (['$.a["x.y"].c', '$.a["x.y"].d'], '$.a["x.y"]'),
        (["$.ab", "$.abc"], "$"),
        (["target:$.m[0]", "target:$.m[1]"], "target:$.m"),
        (["$.q", "$.q.r"], "$.q"),
    ],
)
def test_a_folded_diagnostic_names_the_deepest_path_holding_its_fields(paths: list[str], holder: str) -> None:
    folded = Diagnostics([_diagnostic(f"$.pad[{i}]", "other") for i in range(MAX_DIAGNOSTICS)] + [_diagnostic(p) for p in paths])
    assert (folded[-1].field, represented(folded[-1])) == (holder, len(paths))


def test_the_command_line_prints_the_folded_diagnostics_and_counts_what_they_stand_for(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from lucent.cli import main

    source = tmp_path / "request.json"
    source.write_bytes(_duplicates(3_000))
    assert main(["convert", "--from", "openai-chat", "--to", "lux", "--strict", str(source)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_DIAGNOSTICS + 2
    assert lines[-2].endswith("[folded: 2000 diagnostics at paths inside this field]")
    assert lines[-1] == "lucent: strict conversion refused: 3000 of 3000 diagnostic(s) are Unsupported or Invalid [conversion_lossy]"
