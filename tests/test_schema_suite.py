"""A short budget of the JSON-Schema-Test-Suite runner (``python -m tests.schema_suite``,
issue 17): a few keyword files, as the document root, with no wrong answer and no crash."""

from __future__ import annotations

import pytest

from tests.schema_suite import default_tests_dir, run

KEYWORDS = ["additionalProperties", "default", "enum", "items", "contains"]


@pytest.fixture(scope="module")
def tests_dir():
    found = default_tests_dir()
    if found is None or not found.is_dir():
        pytest.skip("the JSON-Schema-Test-Suite is not checked out (../shared/json-schema-test-suite)")
    return found


def test_no_wrong_answer_and_no_crash(tests_dir) -> None:
    results = list(run(tests_dir, "root", KEYWORDS))
    assert [r.file for r in results] == sorted(KEYWORDS)
    failed = [f"{o.file}: {o.group} / {o.test}: {o.status} {o.detail}" for r in results for o in r.outcomes if o.status in ("wrong", "crash")]
    assert failed == []
