"""lucent.snapshots: record and restore follow the Responses API's rules, and every bad input has
its own typed error, with nothing lost or overwritten. On memory, SQLite and a real Redis server."""

from __future__ import annotations

import base64
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import lucent
from lucent.errors import StoreError, UsageError, ValidationError
from lucent.records import MemoryRecords
from lucent.snapshots import SnapshotStore

PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")).decode()


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SnapshotStore]:
    url = {"memory": "memory:", "sqlite": f"sqlite:{tmp_path / 's.db'}"}.get(request.param) or request.getfixturevalue("redis_db")
    with SnapshotStore(url) as opened:
        yield opened


def reply(text: str = "", *, calls: tuple[str, ...] = (), id: str = "resp_x") -> dict[str, Any]:
    """A Lux response whose message has `text` and a tool call per id in `calls`."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "tool_use": {"id": call, "name": "lookup", "arguments": "{}"}} for call in calls]
    return {"schema_version": "v1", "id": id, "model": "m", "created_at": 1,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "tool_calls" if calls else "stop"}]}


TOOLS = [{"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}, "strict": False}]


def conversation_of(store: SnapshotStore, response_id: str, scope: str = "s") -> list[Any]:
    return json.loads(lucent.encode(store.get(response_id, scope=scope).request))["conversation"]


def two_turns(store: SnapshotStore, scope: str = "s") -> None:
    """resp_1: "hi" -> "hello" (a call c1); resp_2: c1's result + "thanks" -> "you're welcome"."""
    first = store.restore({"model": "m", "instructions": "Be terse.", "input": "hi", "tools": TOOLS}, scope=scope)
    store.record(first.value, reply("hello", calls=("c1",)), scope=scope, response_id="resp_1")
    second = store.restore({"model": "m", "previous_response_id": "resp_1", "tools": TOOLS, "input": [
        {"type": "function_call_output", "call_id": "c1", "output": "42"}, {"role": "user", "content": "thanks"}]}, scope=scope)
    store.record(second.value, reply("you're welcome"), scope=scope, response_id="resp_2")


def raw(store: SnapshotStore, scope: str = "s") -> dict[str, bytes | None]:
    return {key: store.records.get(scope, key) for key in ("resp_1", "resp_2")}


def test_a_chain_of_continuations_restores_every_turn_in_order(store: SnapshotStore) -> None:
    two_turns(store)
    third = store.restore({"model": "m", "previous_response_id": "resp_2", "input": "bye"}, scope="s").value
    said = [(item["type"], item.get("message", {}).get("role"), json.dumps(item)) for item in json.loads(lucent.encode(third))["conversation"]]
    assert [(kind, role) for kind, role, _ in said] == [
        ("message", "user"), ("message", "assistant"), ("tool_result", None), ("message", "user"), ("message", "assistant"), ("message", "user")]
    assert ['"hi"' in said[0][2], '"c1"' in said[1][2] and '"hello"' in said[1][2], '"42"' in said[2][2],
            '"thanks"' in said[3][2], "welcome" in said[4][2], '"bye"' in said[5][2]] == [True] * 6


def test_the_earlier_instructions_are_not_carried_over_and_the_new_options_apply(store: SnapshotStore) -> None:
    two_turns(store)
    restored = store.restore({"model": "other-model", "previous_response_id": "resp_2", "input": "go on", "temperature": 0.5,
                              "store": False, "metadata": {"k": "v"}, "stream": True}, scope="s").value
    assert restored.instructions is msgspec_unset()  # resp_1's "Be terse." is not carried over
    assert restored.tools is msgspec_unset()  # neither are its tools
    assert (restored.model, restored.options.temperature, restored.options.stream, restored.metadata) == ("other-model", 0.5, True, {"k": "v"})
    assert restored.options.previous_response_id is msgspec_unset()  # resolved: the conversation is inline
    assert restored.extra["openai_responses"]["store"] is False
    assert "previous_response_id" not in restored.extra["openai_responses"] and "input_string" not in restored.extra["openai_responses"]
    with_instructions = store.restore({"model": "m", "previous_response_id": "resp_2", "input": "x", "instructions": "New."}, scope="s").value
    assert json.loads(lucent.encode(with_instructions))["instructions"] == [{"type": "text", "text": "New."}]


def msgspec_unset() -> Any:
    import msgspec

    return msgspec.UNSET


def test_a_request_without_previous_response_id_is_converted_as_it_is(store: SnapshotStore) -> None:
    request = {"model": "m", "input": [{"role": "user", "content": "hi"}], "temperature": 0.2}
    restored = store.restore(request, scope="s")
    plain = lucent.convert(request, "openai-responses", "lux")
    assert lucent.encode(restored.value) == lucent.encode(plain.value) and restored.diagnostics == plain.diagnostics


def test_a_lux_request_naming_a_previous_response_is_restored_too(store: SnapshotStore) -> None:
    two_turns(store)
    lux = {"schema_version": "v1", "model": "m", "options": {"stream": False, "previous_response_id": "resp_2"},
           "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "more"}]}}]}
    restored = store.restore(lux, scope="s", source="lux").value
    assert len(restored.conversation) == 6 and restored.options.previous_response_id is msgspec_unset()


def test_inline_media_of_every_turn_stays_with_its_block(store: SnapshotStore) -> None:
    image = {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"}
    first = store.restore({"model": "m", "input": [{"role": "user", "content": [{"type": "input_text", "text": "one"}, image]}]}, scope="s")
    store.record(first.value, reply("a png"), scope="s", response_id="resp_1")
    second = store.restore({"model": "m", "previous_response_id": "resp_1", "input": [
        {"role": "user", "content": [image, {"type": "input_text", "text": "two"}]}]}, scope="s").value
    assert sorted(second.extra["media"]) == ["$.conversation[0].message.content[1].image", "$.conversation[2].message.content[0].image"]
    upstream = json.loads(lucent.encode(lucent.convert(second, "lux", "anthropic", context={"max_tokens": 10}).value))
    images = [block for message in upstream["messages"] if isinstance(message["content"], list) for block in message["content"] if block["type"] == "image"]
    assert [image["source"]["data"] for image in images] == [PNG, PNG]


def test_recording_the_same_snapshot_twice_is_not_a_conflict(store: SnapshotStore) -> None:
    two_turns(store)
    before = raw(store)
    first = store.restore({"model": "m", "instructions": "Be terse.", "input": "hi", "tools": TOOLS}, scope="s")
    again = store.record(first.value, reply("hello", calls=("c1",)), scope="s", response_id="resp_1")
    assert lucent.encode(again) == before["resp_1"] and raw(store) == before


def test_the_snapshot_holds_the_reply_text(store: SnapshotStore) -> None:
    two_turns(store)
    assert store.get("resp_1", scope="s").response_text == "hello"
    assert store.get("resp_2", scope="s").response_id == "resp_2"


def test_delete_removes_a_snapshot_of_its_own_scope_only(store: SnapshotStore) -> None:
    two_turns(store)
    assert store.delete("resp_1", scope="other") is False
    assert store.delete("resp_1", scope="s") is True
    with pytest.raises(StoreError) as caught:
        store.get("resp_1", scope="s")
    assert caught.value.code == "previous_response_not_found"
    assert store.get("resp_2", scope="s").response_id == "resp_2"


# -- bad input: each its own code; nothing lost or overwritten --------------------------------


def _not_found(store: SnapshotStore, previous: str, scope: str) -> StoreError:
    before = raw(store)
    with pytest.raises(StoreError) as caught:
        store.restore({"model": "m", "previous_response_id": previous, "input": "x"}, scope=scope)
    assert raw(store) == before
    return caught.value


def test_an_unknown_a_foreign_and_an_expired_id_are_one_answer(store: SnapshotStore) -> None:
    two_turns(store)
    unknown = _not_found(store, "resp_9", "s")
    foreign = _not_found(store, "resp_1", "someone-else")
    assert (unknown.code, unknown.path) == ("previous_response_not_found", "$.previous_response_id")
    assert str(foreign) == str(unknown)  # nothing says that resp_1 exists elsewhere
    assert str(_not_found(store, "", "s")) == str(unknown) == str(_not_found(store, "r" * 5000, "s"))


@pytest.mark.parametrize("backend", ["memory", "sqlite", "redis"])
def test_an_expired_snapshot_is_not_found(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url = {"memory": "memory:", "sqlite": f"sqlite:{tmp_path / 's.db'}"}.get(backend) or request.getfixturevalue("redis_db")
    store = SnapshotStore(url, ttl=0.3)
    two_turns(store)
    unknown = _not_found(store, "resp_9", "s")
    time.sleep(0.6)
    assert str(_not_found(store, "resp_2", "s")) == str(unknown)
    store.close()


class _Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_snapshot_lives_exactly_its_ttl() -> None:
    clock = _Clock()
    store = SnapshotStore(MemoryRecords(namespace="snapshots", clock=clock), ttl=3600)
    two_turns(store)
    clock.now = 3599.9
    assert store.get("resp_2", scope="s").response_id == "resp_2"
    clock.now = 3600.2  # resp_2 was written at 0: it has expired
    with pytest.raises(StoreError) as caught:
        store.get("resp_2", scope="s")
    assert caught.value.code == "previous_response_not_found"


@pytest.mark.parametrize(
    ("input_items", "path"),
    [
        # the whole history sent again before the new item
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
          {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
          {"type": "function_call_output", "call_id": "c1", "output": "42"}, {"role": "user", "content": "thanks"},
          {"role": "assistant", "content": "you're welcome"}, {"role": "user", "content": "new"}], "$.input[0]"),
        # a tool call the history holds
        ([{"role": "user", "content": "new"}, {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}], "$.input[1]"),
        # a result the history has already given
        ([{"type": "function_call_output", "call_id": "c1", "output": "42"}], "$.input[0]"),
        # the stored reply sent back
        ([{"role": "assistant", "content": "you're welcome"}, {"role": "user", "content": "new"}], "$.input[0]"),
    ],
    ids=["whole-history", "tool-call", "tool-result", "last-reply"],
)
def test_a_request_that_repeats_its_history_is_refused(store: SnapshotStore, input_items: list[Any], path: str) -> None:
    two_turns(store)
    before = raw(store)
    with pytest.raises(ValidationError) as caught:
        store.restore({"model": "m", "previous_response_id": "resp_2", "tools": TOOLS, "input": input_items}, scope="s")
    assert (caught.value.code, caught.value.path) == ("history_repeated", path)
    assert raw(store) == before


def test_new_items_that_only_look_like_history_are_not_refused(store: SnapshotStore) -> None:
    two_turns(store)
    # the user says "hi" again, and answers with a new call's result: neither repeats the history
    restored = store.restore({"model": "m", "previous_response_id": "resp_2", "input": [{"role": "user", "content": "hi"}]}, scope="s").value
    assert len(restored.conversation) == 6
    store.record(restored, reply(calls=("c2",)), scope="s", response_id="resp_3")
    answered = store.restore({"model": "m", "previous_response_id": "resp_3", "tools": TOOLS,
                              "input": [{"type": "function_call_output", "call_id": "c2", "output": "7"}]}, scope="s").value
    assert len(answered.conversation) == 8


def test_previous_response_id_with_a_conversation_is_refused(store: SnapshotStore) -> None:
    two_turns(store)
    with pytest.raises(ValidationError) as caught:
        store.restore({"model": "m", "previous_response_id": "resp_2", "conversation": "conv_1", "input": "x"}, scope="s")
    assert (caught.value.code, caught.value.path) == ("previous_response_with_conversation", "$.conversation")


CORRUPT: dict[str, Callable[[bytes], bytes]] = {
    "not-json": lambda good: b"\x00\xff not json",
    "truncated": lambda good: good[: len(good) // 2],
    "no-request": lambda good: json.dumps({k: v for k, v in json.loads(good).items() if k != "request"}).encode(),
    "conversation-not-a-list": lambda good: good.replace(b'"conversation":[', b'"conversation":{"x":[', 1).replace(b"]}", b"]}}", 1),
    "wrong-schema-version": lambda good: good.replace(b'"schema_version":"v1"', b'"schema_version":"v2"', 1),
    "unknown-role": lambda good: good.replace(b'"role":"user"', b'"role":"wizard"', 1),
    "another-response-id": lambda good: good.replace(b'"response_id":"resp_2"', b'"response_id":"resp_1"', 1),
}


@pytest.mark.parametrize("edit", list(CORRUPT))
def test_a_stored_snapshot_edited_to_break_its_schema_is_never_served(store: SnapshotStore, edit: str) -> None:
    two_turns(store)
    good = store.records.get("s", "resp_2")
    assert good is not None
    bad = CORRUPT[edit](good)
    assert bad != good
    store.records.put("s", "resp_2", bad)  # what an edit of the SQLite row or the Redis value does
    for call in (lambda: store.get("resp_2", scope="s"),
                 lambda: store.restore({"model": "m", "previous_response_id": "resp_2", "input": "x"}, scope="s")):
        with pytest.raises(StoreError) as caught:
            call()
        assert caught.value.code == "snapshot_invalid" and caught.value.path.startswith("$")
    assert store.records.get("s", "resp_2") == bad  # left for the operator, not deleted
    assert store.get("resp_1", scope="s").response_id == "resp_1"  # the rest is served
    with pytest.raises(StoreError) as conflict:  # and not overwritten by a new record either
        store.record(store.restore({"model": "m", "input": "x"}, scope="s").value, reply("y"), scope="s", response_id="resp_2")
    assert conflict.value.code == "snapshot_conflict" and store.records.get("s", "resp_2") == bad


def test_a_snapshot_edited_in_the_sqlite_file_is_never_served(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "s.db")
    two_turns(store)
    with sqlite3.connect(tmp_path / "s.db") as db:
        db.execute("UPDATE lucent_records SET value = CAST(replace(CAST(value AS TEXT), '\"role\":\"user\"', '\"role\":\"sk-secret\"') AS BLOB)")
    with pytest.raises(StoreError) as caught:
        store.get("resp_1", scope="s")
    assert (caught.value.code, caught.value.path) == ("snapshot_invalid", "$.request.conversation[0].message.role")
    assert "sk-secret" not in str(caught.value)  # the stored value is not repeated
    store.close()


def test_another_snapshot_under_a_recorded_id_is_a_conflict_and_the_first_is_kept(store: SnapshotStore) -> None:
    two_turns(store)
    before = raw(store)
    other = store.restore({"model": "m", "input": "something else"}, scope="s")
    with pytest.raises(StoreError) as caught:
        store.record(other.value, reply("other"), scope="s", response_id="resp_1")
    assert caught.value.code == "snapshot_conflict"
    assert raw(store) == before
    # the same id in another scope is that scope's own
    store.record(other.value, reply("other"), scope="t", response_id="resp_1")
    assert store.get("resp_1", scope="t").response_text == "other" and raw(store) == before


def test_recording_a_request_that_still_names_its_previous_response_is_refused(store: SnapshotStore) -> None:
    two_turns(store)
    unrestored = lucent.convert({"model": "m", "previous_response_id": "resp_2", "input": "x"}, "openai-responses", "lux").value
    with pytest.raises(UsageError) as caught:
        store.record(unrestored, reply("y"), scope="s", response_id="resp_3")
    assert (caught.value.code, caught.value.path) == ("unrestored_request", "$.options.previous_response_id")
    assert store.records.get("s", "resp_3") is None


@pytest.mark.parametrize(
    ("request_", "response", "error", "code"),
    [
        ({"schema_version": "v1", "model": "m", "options": {"stream": False}}, reply("y"), ValidationError, "required"),
        ({"schema_version": "v1", "model": "m", "conversation": [], "options": {"stream": False}}, {**reply("y"), "choices": "x"}, ValidationError, "type"),
        (b"{", reply("y"), lucent.errors.DecodeError, "malformed_json"),
        ({1, 2}, reply("y"), UsageError, "invalid_input_type"),
        (lucent.decode(b'{"id": "x", "name": "n", "arguments": "{}"}', "lux-ir-v1", "LucentToolUse"), reply("y"), UsageError, "invalid_input_type"),
    ],
    ids=["request-without-conversation", "response-choices-not-a-list", "not-json", "not-json-value", "another-struct"],
)
def test_a_bad_record_call_stores_nothing(store: SnapshotStore, request_: Any, response: Any, error: type, code: str) -> None:
    with pytest.raises(error) as caught:
        store.record(request_, response, scope="s", response_id="resp_1")
    assert caught.value.code == code
    assert store.records.get("s", "resp_1") is None


def test_restore_of_a_bad_request_is_the_conversion_error(store: SnapshotStore) -> None:
    with pytest.raises(ValidationError) as caught:
        store.restore({"model": "m", "previous_response_id": 7, "input": "x"}, scope="s")
    assert (caught.value.code, caught.value.path) == ("type", "$.previous_response_id")
    with pytest.raises(UsageError) as wrong:
        store.restore({"model": "m"}, scope="s", source="anthropic")
    assert wrong.value.code == "unsupported_conversion"


@pytest.mark.parametrize(
    ("make_store", "code"),
    [(lambda: SnapshotStore(ttl=0), "invalid_ttl"), (lambda: SnapshotStore(ttl="1d"), "invalid_ttl"),  # type: ignore[arg-type]
     (lambda: SnapshotStore(42), "invalid_input_type"), (lambda: SnapshotStore(limits=1), "invalid_limits")],  # type: ignore[arg-type]
)
def test_a_wrong_store_is_a_usage_error(make_store: Callable[[], SnapshotStore], code: str) -> None:
    with pytest.raises(UsageError) as caught:
        make_store()
    assert caught.value.code == code


def test_the_default_store_is_sqlite_in_memory_and_a_path_is_a_file(tmp_path: Path) -> None:
    from lucent.records import SQLiteRecords

    assert type(SnapshotStore().records) is SQLiteRecords
    on_file = SnapshotStore(tmp_path / "here.db")
    two_turns(on_file)
    on_file.close()
    reopened = SnapshotStore(str(tmp_path / "here.db"))
    assert reopened.get("resp_2", scope="s").response_id == "resp_2" and reopened.records.namespace == "snapshots"
    reopened.close()
