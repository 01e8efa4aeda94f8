"""Real recorded traffic against the vendor schemas (issue 5, section 3, first point).

Every file of tests/data/lingua/snapshots (lingua's recordings of the OpenAI Chat Completions
and Responses, Anthropic Messages and Gemini generateContent APIs) decodes against the
definition its name says, event by event for a stream, or fails with the error (code and path)
and reason listed in tests/data/vendor_corpus_failures.toml. jsonschema, the oracle, accepts
exactly the documents lucent accepts.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from msgspec import UNSET

import lucent
from lucent.cli import main
from lucent.errors import UsageError, ValidationError
from tests.vendor_corpus import CORPUS, FAILURES, PROVIDERS, documents, failures, listed, lucent_verdict, oracle_accepts

REPO = Path(__file__).resolve().parent.parent


def test_the_corpus_is_all_there() -> None:
    files = sorted(CORPUS.glob("*/*/*.json"))
    assert len(files) == 944
    assert Counter(f.parent.name for f in files) == {"anthropic": 271, "chat-completions": 223, "google": 210, "responses": 240}
    assert (CORPUS.parent / "LICENSE").is_file()


def test_every_document_decodes_or_fails_as_listed() -> None:
    found = failures()
    expected = listed()
    unlisted = sorted(f"{file}[{event}]: {f.code} at {f.path}: {f.message}" for (file, event), f in found.items() if (file, event) not in expected)
    stale = sorted(f"{file}[{event}]" for file, event in expected if (file, event) not in found)
    assert not unlisted, "failures not in vendor_corpus_failures.toml:\n" + "\n".join(unlisted[:40])
    assert not stale, "listed but decoding now:\n" + "\n".join(stale[:40])
    wrong = sorted(
        f"{file}[{event}]: {f.code} at {f.path}, listed {expected[(file, event)]['code']} at {expected[(file, event)]['path']}"
        for (file, event), f in found.items()
        if (f.code, f.path) != (expected[(file, event)]["code"], expected[(file, event)]["path"])
    )
    assert not wrong, "\n".join(wrong[:40])


def test_the_listed_failures_are_explained() -> None:
    entries = tomllib.loads(FAILURES.read_text(encoding="utf-8"))["failure"]
    for entry in entries:
        assert entry["why"].strip() and "TODO" not in entry["why"], entry
        assert entry["format"] in {p[0] for p in PROVIDERS.values()}


def test_lucent_accepts_exactly_what_jsonschema_accepts() -> None:
    departures = {
        spec for entry in tomllib.loads(FAILURES.read_text(encoding="utf-8")).get("departure", []) for spec in entry["files"]
    }
    disagree = [d.label for d in documents() if (lucent_verdict(d) is None) != oracle_accepts(d) and d.label not in departures]
    assert disagree == []


def test_how_much_decodes() -> None:
    """The counts the report quotes: documents (stream events counted one by one) and files."""
    total = Counter(d.schema for d in documents())
    refused = Counter(file.split("/")[1] for file, _ in failures())
    assert sum(total.values()) == 15920
    assert sum(refused.values()) == 20  # 3,537 before the patch layer (codegen/vendor_patches.toml)
    assert len({file for file, _ in failures()}) == 14  # of 944 files (446 before the patches)


# ------------------------------------------------------------------ the API and the CLI
def _read(file: str) -> bytes:
    return (CORPUS / file).read_bytes()


@pytest.mark.parametrize(
    ("file", "schema", "definition", "cls"),
    [
        ("simpleRequest/chat-completions/request.json", "openai-chat", "CreateChatCompletionRequest", "CreateChatCompletionRequest"),
        ("simpleRequest/responses/request.json", "openai-responses", "CreateResponse", "CreateResponse"),
        ("simpleRequest/anthropic/request.json", "anthropic", "CreateMessageParams", "CreateMessageParams"),
        ("simpleRequest/google/request.json", "gemini", "GenerateContentRequest", "GenerateContentRequest"),
        ("simpleRequest/google/response.json", "gemini", "GenerateContentResponse", "GenerateContentResponse"),
    ],
)
def test_decode_takes_the_vendor_format_names(file: str, schema: str, definition: str, cls: str) -> None:
    value = lucent.decode(_read(file), schema, definition)
    assert type(value).__name__ == cls
    assert type(value).__module__ == f"lucent.generated.{schema.replace('-', '_')}"
    assert json.loads(lucent.encode(value)) == json.loads(_read(file))


def test_a_stream_event_decodes_as_its_tagged_struct() -> None:
    events = json.loads(_read("simpleRequest/responses/response-streaming.json"))
    decoded = [lucent.decode(json.dumps(e), "openai-responses", "ResponseStreamEvent") for e in events[2:-1]]
    assert [type(d).__name__ for d in decoded][3:6] == ["ResponseContentPartAddedEvent", "ResponseTextDeltaEvent", "ResponseTextDoneEvent"]
    # message_start without `container` (required by the published spec, optional once patched).
    anthropic = json.loads(_read("simpleRequest/anthropic/response-streaming.json"))
    start = lucent.decode(json.dumps(anthropic[0]), "anthropic", "MessageStreamEvent")
    assert type(start).__name__ == "MessageStartEvent"
    assert start.message.container is UNSET and start.message.usage.input_tokens == 14


def test_the_root_of_a_vendor_format_takes_any_of_its_documents() -> None:
    request = lucent.decode(_read("simpleRequest/chat-completions/request.json"), "openai-chat")
    assert type(request).__name__ == "CreateChatCompletionRequest"
    # CreateResponse requires nothing, so it is the last root tried (ROOT_ANY_OF order).
    event = json.loads(_read("simpleRequest/responses/response-streaming.json"))[3]
    assert type(lucent.decode(json.dumps(event), "openai-responses")).__name__ == "ResponseOutputItemDoneEvent"
    assert type(lucent.decode(_read("simpleRequest/responses/request.json"), "openai-responses")).__name__ == "CreateResponse"
    with pytest.raises(ValidationError):
        lucent.decode(b'{"model": "m"}', "openai-chat")


def test_an_unknown_definition_of_a_vendor_format_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as error:
        lucent.decode(b"{}", "gemini", "Nope")
    assert error.value.code == "unknown_definition"


def test_importing_lucent_loads_no_vendor_module() -> None:
    code = (
        "import sys, lucent\n"
        "vendor = ('openai_chat', 'openai_responses', 'anthropic', 'gemini')\n"
        "assert not [m for m in sys.modules if m.rsplit('.', 1)[-1] in vendor], sorted(sys.modules)\n"
        "lucent.decode(b'{}', 'gemini', 'GenerateContentRequest')\n"
        "assert 'lucent.generated.gemini' in sys.modules\n"
        "assert 'lucent.generated.anthropic' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_cli_validate_takes_a_format(capsys: pytest.CaptureFixture[str]) -> None:
    good = str(CORPUS / "simpleRequest/anthropic/request.json")
    bad = str(CORPUS / "simpleRequestTruncated/responses/request.json")
    assert main(["validate", "--format", "anthropic", good]) == 0
    assert main(["validate", "--format", "openai-responses", "--definition", "CreateResponse", bad]) == 1
    assert capsys.readouterr().out == f"{bad}: $.max_output_tokens: Expected `int` >= 16 [minimum]\n"
    assert main(["validate", "--format", "sparktide", str(REPO / "examples" / "sparktide-request.json")]) == 0
