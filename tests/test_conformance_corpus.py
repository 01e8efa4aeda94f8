"""Conformance on the corpus: the documents in a seed format, and INDEX.json's verdicts."""

from __future__ import annotations

import json

import pytest

import lucent
from tests.conformance import corpus
from tests.conformance.departures import Case, explain
from tests.conformance.oracle import Oracle
from tests.conformance.paths import shared_dir
from tests.conformance.subject import Subject

DOCUMENTS = corpus.documents()
INDEXED = [d for d in DOCUMENTS if d.index_valid is not None]
ORACLE = Oracle()

pytestmark = pytest.mark.skipif(not INDEXED, reason=f"no corpus at {shared_dir() / 'corpus'}")


def test_corpus_holds_every_seed_format_document() -> None:
    names = {d.name for d in DOCUMENTS}
    assert len(INDEXED) == 89
    assert sum(d.index_valid is True for d in INDEXED) == 40
    assert {"sparktide-docs/request.json", "sparktide-docs/failure.json", "sparktide-docs/error-frame.json"} <= names
    assert sum(d.name.startswith("sparktide-docs/stream.sse#frame") for d in DOCUMENTS) == 5
    assert "schemas/lux-ir-v1.json#examples/0" in names
    assert corpus.skipped() == 944  # lingua's vendor formats: no seed format among them


@pytest.mark.parametrize("document", INDEXED, ids=[d.name.rsplit("/", 1)[-1] for d in INDEXED])
def test_oracle_reproduces_the_index_verdict(document: corpus.Document) -> None:
    verdict = ORACLE.judge(document.schema, document.definition, document.data)
    assert (verdict.valid, verdict.json_path) == (document.index_valid, document.index_path)


@pytest.mark.parametrize("document", INDEXED, ids=[d.name.rsplit("/", 1)[-1] for d in INDEXED])
def test_lucent_reproduces_the_index_verdict(document: corpus.Document) -> None:
    verdict = Subject().judge(document.schema, document.definition, document.data)
    assert (verdict.valid, verdict.json_path) == (document.index_valid, document.index_path)


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_lucent_agrees_with_the_oracle_on_every_corpus_document(document: corpus.Document) -> None:
    oracle = ORACLE.judge(document.schema, document.definition, document.data)
    subject = Subject().judge(document.schema, document.definition, document.data)
    case = Case(document.schema, document.definition, document.data, oracle, subject)
    assert case.agrees or explain(case, ORACLE) is not None, (oracle, subject)


def test_the_lux_schema_example_decodes_as_a_lucent_request() -> None:
    example = ORACLE.documents["lux-ir-v1"]["examples"][0]
    request = lucent.decode(json.dumps(example), "lux-ir-v1", "LucentRequest")
    assert ORACLE.judge_value("lux-ir-v1", None, example).valid
    assert request.model == "gpt-4o"
    assert request.options.temperature == 0.7
    assert json.loads(lucent.encode(request)) == example


def test_additional_properties_errors_name_the_object_not_the_property() -> None:
    document = next(d for d in INDEXED if d.name.endswith("bedrockAnthropicOpus48SamplingParam--followup-request.json"))
    verdict = Subject().judge(document.schema, document.definition, document.data)
    assert (verdict.code, verdict.json_path) == ("additionalProperties", "$.messages[1]")
