"""The JSON-Schema-Test-Suite runner (``python -m tests.schema_suite``, issue 17) in the test
suite: every draft 2020-12 keyword file as the document root (a few seconds) with no wrong
answer, no crash and at least 97% of the tests passing; a few files as a $defs member and as a
property; ``optional/`` (ECMA-262 regexes, big numbers, ...) with no wrong answer."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.paths import REPO
from tests.schema_suite import default_tests_dir, run

WRAPPED = ["ref", "unevaluatedProperties", "dynamicRef", "not", "if-then-else"]


@pytest.fixture(scope="module")
def tests_dir():
    found = default_tests_dir()
    if found is None or not found.is_dir():
        pytest.skip("the JSON-Schema-Test-Suite is not checked out (../shared/json-schema-test-suite)")
    return found


def _failed(results) -> list[str]:
    return [f"{o.file}: {o.group} / {o.test}: {o.status} {o.detail}" for r in results for o in r.outcomes if o.status in ("wrong", "crash")]


@pytest.fixture(scope="module")
def root_results(tests_dir) -> list:
    return list(run(tests_dir, "root"))


def test_root_no_wrong_answer_and_no_crash(root_results) -> None:
    assert _failed(root_results) == []
    total = sum(len(r.outcomes) for r in root_results)
    passed = sum(r.count("pass") for r in root_results)
    assert total > 1200 and passed >= 0.97 * total


def test_every_test_passes_at_the_root(root_results) -> None:
    """README "How it is built" says so: all 1,299 tests, no refusal."""
    refused = [(o.file, o.group, o.test) for r in root_results for o in r.outcomes if o.status == "refused"]
    assert refused == []
    total = sum(len(r.outcomes) for r in root_results)
    assert f"Draft 2020-12 as the root: all {total:,} tests pass" in (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("mode", ["defs", "property"])
def test_wrapped_no_wrong_answer_and_no_crash(tests_dir, mode: str) -> None:
    assert _failed(run(tests_dir, mode, WRAPPED)) == []


def test_optional_no_wrong_answer_and_the_readme_lists_every_refusal(tests_dir) -> None:
    """README "How it is built" lists each refused group of optional/ as `file.json` "group" (n
    tests)."""
    results = list(run(tests_dir / "optional", "root"))
    assert {r.file for r in results} >= {"ecmascript-regex", "bignum", "non-bmp-regex"}
    assert _failed(results) == []
    text = (REPO / "README.md").read_text(encoding="utf-8")
    paragraph = " ".join(part.strip() for part in text[text.index("`optional/` (`format/` aside)") :].split("\n\n", 1)[0].splitlines())
    listed: Counter[tuple[str, str]] = Counter()
    for file, rest in re.findall(r"`([\w-]+)\.json` (.*?)(?=`[\w-]+\.json`|;|$)", paragraph):
        for group, n in re.findall(r"\"([^\"]+)\" \((\d+)", rest):
            listed[(file, group)] = int(n)
    refused = Counter((o.file, o.group) for r in results for o in r.outcomes if o.status == "refused")
    assert listed == refused and sum(refused.values()) == 5
    ecma = next(r for r in results if r.file == "ecmascript-regex")
    assert ecma.count("pass") == len(ecma.outcomes)  # \p{Letter}, \d, \w, \s, $ as ECMA-262 reads them


def _compile(raw, remotes=None):
    from codegen.generate import render_schema
    from codegen.schema import SchemaDocument

    return render_schema(SchemaDocument(path=REPO / "own.json", stem="own", raw=raw, text=""), None, remotes or {})


def test_a_metaschema_requiring_an_unknown_vocabulary_is_refused_by_name() -> None:
    from codegen.schema import SchemaError

    meta = "https://example.com/meta"
    remotes = {meta: {"$schema": "https://json-schema.org/draft/2020-12/schema", "$vocabulary": {
        "https://json-schema.org/draft/2020-12/vocab/core": True, "https://example.com/vocab/units": True}}}
    with pytest.raises(SchemaError, match=r"#/\$schema: its metaschema requires the vocabulary 'https://example.com/vocab/units'"):
        _compile({"$schema": meta, "type": "integer"}, remotes)
    remotes[meta]["$vocabulary"]["https://example.com/vocab/units"] = False  # optional: ignored (Core §8.1.2)
    assert "def " in _compile({"$schema": meta, "type": "integer"}, remotes)


def test_the_structs_compiler_refuses_what_it_gets_wrong(tests_dir) -> None:
    """The fast path of the shipped schemas, forced on the suite: refusals, never a wrong
    answer (codegen/exact.py)."""
    results = list(run(tests_dir, "root", structs=True))
    assert _failed(results) == []
    assert sum(r.count("pass") for r in results) >= 100
