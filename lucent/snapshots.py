"""Continuation through a snapshot store: OpenAI Responses' ``previous_response_id`` in front of a
stateless API (Chat Completions, Anthropic Messages, Gemini).

The Responses API keeps a conversation on the server: a request that names
``previous_response_id`` sends only its new input. A stateless API needs the whole conversation in
every request, so the middleware keeps it, one ``ConversationSnapshot`` per response
(schemas/lux-ir-v1.json ``#/definitions/ConversationSnapshot``; the design note's T8, "Middleware-
local session storage unit for stateless continuation"):

1. ``store.restore(request, scope=...)``: the client's Responses request, with the stored history
   of ``previous_response_id`` before its input: a ``LucentRequest`` ready for
   ``lucent.convert(..., source="lux", target=...)``;
2. the gateway calls the upstream and converts its reply to a ``LucentResponse``;
3. ``store.record(request, response, scope=..., response_id=...)``: the restored request's
   conversation plus the reply, stored under the response id the client sees.

A chain of continuations restores every turn: each snapshot holds the whole conversation up to
its reply. The store (:class:`SnapshotStore`) sits on :mod:`lucent.records`: SQLite by default
(a file, or ``:memory:``), Redis for several gateway processes, memory for tests.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import UNSET

from lucent._convert import _check_json_value, convert
from lucent._decode import decode, encode
from lucent._limits import Limits
from lucent._continuation import continued, replied, reply_text
from lucent.errors import LucentError, StoreError, UsageError, ValidationError
from lucent.formats import FORMATS as _REGISTRY
from lucent.generated.lucent_diagnostics_v1 import ConversionResult
from lucent.generated.lux_ir_v1 import ConversationSnapshot, LucentRequest, LucentResponse
from lucent.records import MAX_KEY_BYTES, Records, open_records

__all__ = ["DEFAULT_TTL", "SnapshotStore"]

DEFAULT_TTL = 30 * 24 * 3600.0
"""30 days, in seconds: how long OpenAI keeps a stored response by default."""

_SOURCES = tuple(name for name, f in _REGISTRY.items() if f.conversation is not None)
"""The formats whose requests can name a previous response (Lux: ``options.previous_response_id``)."""


class SnapshotStore:
    """``ConversationSnapshot`` records, by response id, within the caller's scope.

    Parameters
    ----------
    records : lucent.records.Records, str or None
        Where the snapshots live. ``None``: an SQLite database in memory (this process only). A
        ``str`` or ``os.PathLike``: a store URL (``memory:``, ``sqlite:PATH``, ``redis://...``,
        :func:`lucent.records.open_records`) or else the path of an SQLite file. A ``Records``
        given is used as it is (give it its own ``namespace``, e.g. ``"snapshots"``).
    ttl : float or None
        Seconds a snapshot lives (default :data:`DEFAULT_TTL`, 30 days); ``None`` or
        ``math.inf``: forever. An expired snapshot is not found.
    limits : lucent.Limits, optional
        Caps on a stored snapshot's JSON, on the way in and out (default: Lux's 32 MiB and 512
        levels).

    Errors
    ------
    Every method raises :class:`~lucent.errors.StoreError` (``previous_response_not_found``,
    ``snapshot_invalid``, ``snapshot_conflict``, ``store_unavailable``),
    :class:`~lucent.errors.ValidationError` for a request that breaks its schema or the Responses
    API's rules, or :class:`~lucent.errors.UsageError` for a wrong call; nothing else escapes.
    """

    def __init__(self, records: Records | str | os.PathLike[str] | None = None, *, ttl: float | None = DEFAULT_TTL, limits: Limits | None = None) -> None:
        if records is None:
            from lucent._records_sqlite import SQLiteRecords

            records = SQLiteRecords(":memory:", namespace="snapshots")
        elif isinstance(records, str) and records.startswith(("memory:", "sqlite:", "redis://", "rediss://", "unix://")):
            records = open_records(records, namespace="snapshots")
        elif isinstance(records, (str, os.PathLike)):
            from lucent._records_sqlite import SQLiteRecords

            records = SQLiteRecords(records, namespace="snapshots")
        elif not isinstance(records, Records):
            raise UsageError(f"records is a lucent.records.Records, a store URL or a path, not {type(records).__name__}", code="invalid_input_type")
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0):
            raise UsageError("a ttl is a positive number of seconds (None or math.inf: forever)", code="invalid_ttl")
        if limits is not None and not isinstance(limits, Limits):
            raise UsageError(f"limits is a lucent.Limits, not {type(limits).__name__}", code="invalid_limits")
        self.records = records
        self.ttl = math.inf if ttl is None else float(ttl)
        self.limits = limits

    def record(
        self,
        request: Any,
        response: Any,
        *,
        scope: str,
        response_id: str | None = None,
        ttl: float | None = None,
    ) -> ConversationSnapshot:
        """Store the snapshot of one response: ``request``'s conversation followed by the reply.

        Parameters
        ----------
        request : LucentRequest, JSON text or value
            The request sent upstream: the one :meth:`restore` gave (its conversation holds the
            history already), or a first request.
        response : LucentResponse, JSON text or value
            The upstream's reply in Lux (``lucent.convert(reply, source=F, target="lux",
            kind="response").value``). Its first choice (``index`` 0) is the reply; its message
            becomes the last conversation item, with the side-car entries of its blocks (inline
            media, kept members such as Gemini's thought signatures).
        scope : str
            The caller's tenant or key; only the same scope finds the snapshot.
        response_id : str, optional
            The id the client sees (the Responses ``Response.id``); default ``response.id``.
        ttl : float, optional
            Seconds this snapshot lives; default the store's ``ttl``.

        Returns
        -------
        ConversationSnapshot
            What was stored (``response_id``, ``request``, ``response_text``: the reply's text).

        Raises
        ------
        ValidationError
            ``request`` or ``response`` breaks its Lux definition (the keyword's code, the path),
            or the snapshot would be over ``limits`` (``max_body_bytes``).
        UsageError
            ``unrestored_request``: ``request`` still names ``options.previous_response_id``
            (restore it first: its snapshot would lack the earlier turns);
            ``invalid_input_type``; ``invalid_key`` (an empty or over-long response id);
            ``invalid_scope``.
        StoreError
            ``snapshot_conflict``: another snapshot is stored under that id in this scope (it is
            kept; recording the same snapshot twice is not a conflict); ``store_unavailable``.
        """
        lux = self._checked(request, "LucentRequest", LucentRequest)
        reply = self._checked(response, "LucentResponse", LucentResponse)
        if lux.options.previous_response_id is not UNSET:
            raise UsageError(
                "the request still names options.previous_response_id: record the request restore() gave, "
                "whose conversation holds the earlier turns", code="unrestored_request", path="$.options.previous_response_id")
        key = reply.id if response_id is None else response_id
        if not isinstance(key, str):
            raise UsageError(f"a response id is a str, not {type(key).__name__}", code="invalid_input_type")
        whole, position = replied(lux, reply)
        text = reply_text(reply, position)
        snapshot = ConversationSnapshot(response_id=key, request=whole, response_text=UNSET if text is None else text)
        data = encode(snapshot)
        decode(data, "lux-ir-v1", "ConversationSnapshot", limits=self.limits)  # what is stored can be read back
        lifetime = self.ttl if ttl is None else ttl
        for _attempt in range(2):
            if self.records.put_if_absent(scope, key, data, ttl=lifetime):
                return snapshot
            stored = self.records.get(scope, key)
            if stored == data:
                return snapshot  # the same snapshot recorded again (a retried call)
            if stored is not None:
                raise StoreError("another snapshot is stored under this response id; it is kept", code="snapshot_conflict")
            # it expired between the two calls: try once more
        raise StoreError("another snapshot is stored under this response id; it is kept", code="snapshot_conflict")

    def restore(
        self,
        request: Any,
        *,
        scope: str,
        source: str = "openai-responses",
        context: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
    ) -> ConversionResult[LucentRequest]:
        """The Lux request to send upstream for a request that may name a previous response.

        Parameters
        ----------
        request : bytes, str, Struct or JSON value
            The client's request: a Responses ``CreateResponse`` (``source="openai-responses"``)
            or a ``LucentRequest`` (``source="lux"``, ``options.previous_response_id``).
        scope : str
            The caller's tenant or key (as given to :meth:`record`).
        source : {"openai-responses", "lux"}
        context, limits
            As for :func:`lucent.convert` (the request is converted to Lux with them).

        Returns
        -------
        ConversionResult
            ``.value``: a ``LucentRequest`` whose conversation is the stored history (every earlier
            turn, with its tool calls and results) followed by the new input; everything else is
            the new request's: its model, ``instructions`` (the earlier response's are not
            carried over, as the Responses API says), tools, ``tool_choice``, options (with
            ``previous_response_id`` resolved: left out), reasoning, metadata and provider values.
            ``.diagnostics``: those of converting the new request (paths in it). A request that
            names no previous response is converted as it is.

        Raises
        ------
        StoreError
            ``previous_response_not_found``: no snapshot with that id in this scope: unknown,
            expired, or another scope's (one answer for the three); ``snapshot_invalid``: the
            stored snapshot is corrupt or breaks ``ConversationSnapshot`` (never served; left in
            the store); ``store_unavailable``.
        ValidationError
            The request breaks its schema (as :func:`lucent.convert`); ``history_repeated``: its
            input repeats the stored history (a tool call or result the history holds, or the
            turns it ends with), at ``$.input[i]``; ``previous_response_with_conversation``: it
            names a ``conversation`` too (the Responses API takes one of the two).
        UsageError
            ``unsupported_conversion``: a ``source`` other than the two above; as
            :func:`lucent.convert` otherwise.
        """
        if source not in _SOURCES:
            raise UsageError(f"restore takes a request of {' or '.join(_SOURCES)}", code="unsupported_conversion")
        result = convert(request, source, "lux", "request", context=context, limits=limits)
        lux: LucentRequest = result.value
        previous = lux.options.previous_response_id
        if previous is UNSET:
            return result
        responses = lux.extra.get("openai_responses") if lux.extra is not UNSET else None
        if isinstance(responses, dict) and responses.get("conversation") is not None:
            raise ValidationError("previous_response_id and conversation cannot be used together", code="previous_response_with_conversation", path="$.conversation")
        snapshot = self.get(previous, scope=scope)
        return ConversionResult(value=continued(snapshot.request, lux, source), diagnostics=result.diagnostics)

    def get(self, response_id: str, *, scope: str) -> ConversationSnapshot:
        """The snapshot stored under ``response_id`` in ``scope``, checked against
        ``ConversationSnapshot``.

        Raises
        ------
        StoreError
            ``previous_response_not_found`` (unknown, expired or another scope's),
            ``snapshot_invalid`` (``.path``: the fault's path in the stored snapshot),
            ``store_unavailable``.
        UsageError
            ``invalid_input_type`` (a response id that is not a str), ``invalid_scope``.
        """
        if not isinstance(response_id, str):
            raise UsageError(f"a response id is a str, not {type(response_id).__name__}", code="invalid_input_type")
        data = self.records.get(scope, response_id) if _storable(response_id) else None
        if data is None:
            raise StoreError("no stored response has this id", code="previous_response_not_found", path="$.previous_response_id")
        try:
            snapshot: ConversationSnapshot = decode(data, "lux-ir-v1", "ConversationSnapshot", limits=self.limits)
        except LucentError as fault:
            raise StoreError(f"the stored snapshot is not a ConversationSnapshot: {fault.message} ({fault.code}); it is not served",
                             code="snapshot_invalid", path=fault.path) from None
        if snapshot.response_id != response_id:
            raise StoreError("the stored snapshot names another response id; it is not served", code="snapshot_invalid", path="$.response_id")
        return snapshot

    def delete(self, response_id: str, *, scope: str) -> bool:
        """Remove a snapshot (the Responses API's ``DELETE /v1/responses/{id}``); True when one
        was removed."""
        if not isinstance(response_id, str):
            raise UsageError(f"a response id is a str, not {type(response_id).__name__}", code="invalid_input_type")
        return _storable(response_id) and self.records.delete(scope, response_id)

    def close(self) -> None:
        """Close the records store."""
        self.records.close()

    def __enter__(self) -> SnapshotStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _checked(self, value: Any, definition: str, expected: type) -> Any:
        """``value`` decoded (and so checked) as the Lux ``definition``; a Struct is written and
        read back, so that one built or changed by hand is held to the schema too."""
        if isinstance(value, msgspec.Struct):
            if not isinstance(value, expected):
                raise UsageError(f"expected a {definition} Struct, not {type(value).__name__}", code="invalid_input_type")
            value = encode(value)
        elif not isinstance(value, (bytes, bytearray, memoryview, str)):
            try:
                text = encode(value)
            except LucentError as exc:
                raise UsageError(f"cannot read a {type(value).__name__} as JSON: {exc.message}", code="invalid_input_type", path=exc.path) from None
            _check_json_value(value, text)  # a set, tuple or bytes is no JSON value, though msgspec writes one
            value = text
        return decode(value, "lux-ir-v1", definition, limits=self.limits)


def _storable(response_id: str) -> bool:
    """Whether an id can be a record's key at all (one that cannot is simply not found)."""
    try:
        return 0 < len(response_id.encode("utf-8")) <= MAX_KEY_BYTES
    except UnicodeEncodeError:
        return False
