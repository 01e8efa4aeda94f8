"""A conformance failure prints the input that fails (issue 17, point 5).

Each harness is made to fail on purpose, in process: the decode harness with a lucent that
accepts everything, the conversion harness with a ``lucent.convert`` that crashes on one member.
The printed input must be the failing document itself, readable and complete enough to re-run.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import lucent
from tests.conformance.kinds import Kind
from tests.conformance.oracle import Oracle
from tests.conformance.report import findings_lines, input_line
from tests.conformance.runner import Runner
from tests.conformance.subject import Subject
from tests.conformance.verdict import Verdict
from tests.convert_conformance import checks
from tests.convert_conformance.checks import check
from tests.convert_conformance.pairs import pairs
from tests.convert_conformance.run import failure_lines, run
from tests.convert_conformance.validity import Validity


class _AcceptsEverything(Subject):
    def judge(self, schema: str, definition: str | None, data: bytes) -> Verdict:
        return Verdict(True)


def test_a_decode_disagreement_prints_the_document_lucent_got_wrong() -> None:
    oracle = Oracle()
    runner = Runner(oracle, _AcceptsEverything(), seed=0)
    tally = runner.run_kind(Kind("lux-ir-v1", "LucentUsage"), 10, 40)
    assert tally.findings, "every refused mutation is a disagreement with a lucent that accepts everything"
    lines = findings_lines(tally.findings)
    shown = [line for line in lines if line.strip().startswith("input (")]
    assert shown and len(shown) == sum(1 for line in lines if "x lux-ir-v1 LucentUsage" in line)
    for line in shown:
        size, as_json, shown_text = re.fullmatch(r"\s*input \((\d+) bytes(, as a JSON string)?\): (.*)", line).groups()  # type: ignore[union-attr]
        text = json.loads(shown_text) if as_json else shown_text
        (finding,) = {f.case.data: f for f in tally.findings if f.case.data.decode("utf-8", "backslashreplace") == text}.values()
        assert int(size) == len(finding.case.data)
        assert finding.case.oracle.valid is False  # jsonschema refuses what is printed ...
        assert lines[lines.index(line) - 1].strip() == "lucent: accepts"  # ... and lucent accepted it


_PAIR = next(p for p in pairs() if p.name == "lux:sparktide:request")
_MARK = "temperature"


def test_a_conversion_failure_prints_its_minimal_input(monkeypatch: pytest.MonkeyPatch) -> None:
    real = lucent.convert

    def crashes_on_the_member(data: bytes, source: str, target: str, **options: Any) -> Any:
        if source == "lux" and _MARK in json.loads(data).get("options", {}):
            raise RuntimeError("forced by the test")
        return real(data, source, target, **options)

    monkeypatch.setattr(checks.lucent, "convert", crashes_on_the_member)
    validity = Validity()
    (tally,) = run([_PAIR], 60, seed=0, validity=validity)
    lines = failure_lines(tally, validity)
    assert lines[0].startswith(f"{_PAIR.name}: ") and "conversions raised" in lines[0]
    (group,) = [line for line in lines if line.strip().startswith("[")]
    assert group.strip().startswith("[raised] RuntimeError at ")
    (shown,) = [line for line in lines if line.strip().startswith("minimal input (from ")]
    printed = json.loads(shown.split("): ", 1)[1])
    assert _MARK in printed["options"]
    # what is printed is a failing input on its own: the check fails on it again, the same way
    again = check(_PAIR, printed, validity)
    assert [f.check for f in again.failures] == ["raised"] and "forced by the test" in again.failures[0].detail


@pytest.mark.parametrize(
    ("data", "shown"),
    [
        (b'{"a":1}', 'input (7 bytes): {"a":1}'),
        (b'{\n "a": 1\r}', 'input (11 bytes, as a JSON string): "{\\n \\"a\\": 1\\r}"'),
        (b'\t[]', 'input (3 bytes, as a JSON string): "\\t[]"'),
    ],
)
def test_an_input_is_printed_on_one_line_that_shows_every_byte(data: bytes, shown: str) -> None:
    line = input_line(data)
    assert line == shown and "\n" not in line and "\r" not in line
    if "as a JSON string" in line:
        assert json.loads(line.split("): ", 1)[1]).encode() == data
