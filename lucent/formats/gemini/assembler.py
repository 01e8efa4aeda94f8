"""Gemini ``streamGenerateContent`` (``alt=sse``) chunks -> ``GenerateContentResponse``.

Source: schemas/vendor/gemini.json ``#/$defs/GenerateContentResponse`` (Google discovery
document, ``models.streamGenerateContent``: "a stream of GenerateContentResponse"). Every chunk
is a whole ``GenerateContentResponse`` holding the next piece of each candidate. Candidates are
named by ``index`` (absent: 0). Candidate ``N``'s parts are the parts of its chunks in order,
with consecutive text parts of the same kind merged: two parts that hold only ``text`` (and
``thought``, ``thoughtSignature``) with the same ``thought`` flag are one part, their texts
concatenated, unless both carry a ``thoughtSignature`` (a signature stays on the part it came
with; a merged part keeps the one signature it received). Every other part (``functionCall``
with its whole ``args``, ``inlineData``, ``executableCode``, ...) is kept whole. A candidate's
``finishReason``, ``finishMessage``, ``safetyRatings``, ``groundingMetadata``,
``citationMetadata``, ``tokenCount``, ``avgLogprobs``, ``logprobsResult`` and
``urlContextMetadata`` are the last received; ``usageMetadata``, ``promptFeedback`` and
``modelStatus`` too (the last chunk that has them: each chunk restates the running totals).
``responseId`` and ``modelVersion`` must not change (``response_identity_changed``).

A Gemini stream has no terminal event: it ends with its source. A candidate that never
received a ``finishReason`` was cut off (``missing_finish``); parts or a second
``finishReason`` after its ``finishReason`` are ``data_after_finish``; an empty stream is
``missing_terminal``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from lucent._stream_base import Assembler
from lucent.generated.gemini import GenerateContentResponse, UsageMetadata

TEXT_PART = frozenset({"text", "thought", "thoughtSignature"})
"""The members of a text part that merges with its neighbour."""

LAST_WINS = ("finishReason", "finishMessage", "safetyRatings", "groundingMetadata", "citationMetadata", "tokenCount", "avgLogprobs", "logprobsResult", "urlContextMetadata", "groundingAttributions")
"""Candidate members whose last received value is the candidate's."""


def mergeable(last: dict[str, Any], part: dict[str, Any]) -> bool:
    """Whether ``part`` continues the text part ``last`` (same thought flag, at most one signature)."""
    return (
        "text" in last and "text" in part
        and set(last) <= TEXT_PART and set(part) <= TEXT_PART
        and bool(last.get("thought")) == bool(part.get("thought"))
        and not ("thoughtSignature" in last and "thoughtSignature" in part)
    )


@dataclass
class GeminiCandidate:
    """A candidate being assembled (JSON members, as the API sends them)."""

    first: int
    members: dict[str, Any] = field(default_factory=dict)
    role: str | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    has_content: bool = False
    pending: list[str] | None = None  # the texts merged into the last part, joined once

    def merge(self, part: dict[str, Any]) -> None:
        """Add a text part to the last one (see :func:`mergeable`), in linear time."""
        if self.pending is None:
            self.pending = [self.parts[-1]["text"]]
        self.pending.append(part["text"])
        if "thoughtSignature" in part:
            self.parts[-1]["thoughtSignature"] = part["thoughtSignature"]

    def settle(self) -> list[dict[str, Any]]:
        """The parts, the merged texts joined."""
        if self.pending is not None:
            self.parts[-1]["text"] = "".join(self.pending)
            self.pending = None
        return self.parts


ENVELOPE_MEMBERS = ("promptFeedback", "usageMetadata", "modelVersion", "responseId", "modelStatus")
"""The members of a Gemini response outside its candidates, in the order the assembler writes them."""


class GeminiAssembler(Assembler):
    """GenerateContentResponse chunks -> GenerateContentResponse (see :mod:`lucent.streams`)."""

    format = "gemini"

    def __init__(self, *, tools: Iterable[str] | None = None) -> None:
        super().__init__(tools=tools)
        self._candidates: dict[int, GeminiCandidate] = {}
        self._top: dict[str, Any] = {}
        self._usage: UsageMetadata | None = None

    @property
    def usage(self) -> UsageMetadata | None:
        return self._usage

    def _push(self, chunk: object, index: int) -> None:
        if not isinstance(chunk, GenerateContentResponse):
            raise self._unknown(chunk, index)
        at = f"$[{index}]"
        tree = msgspec.to_builtins(chunk)
        for name in ("responseId", "modelVersion"):
            if name in tree:
                if name in self._top and self._top[name] != tree[name]:
                    raise self._fail("response_identity_changed", f"chunk {index} changes the {name} of the chunks before it", f"{at}.{name}")
                self._top[name] = tree[name]
        for name in ("usageMetadata", "promptFeedback", "modelStatus"):
            if name in tree:
                self._top[name] = tree[name]
        if chunk.usageMetadata is not msgspec.UNSET:
            self._usage = chunk.usageMetadata
        for i, candidate in enumerate(tree.get("candidates", [])):
            self._candidate(candidate, index, f"{at}.candidates[{i}]")

    def _candidate(self, tree: dict[str, Any], index: int, at: str) -> None:
        n = int(tree.get("index", 0))
        candidate = self._candidates.get(n)
        if candidate is None:
            candidate = self._candidates[n] = GeminiCandidate(first=index)
        content = tree.get("content")
        if "finishReason" in candidate.members and (isinstance(content, dict) and content.get("parts") or "finishReason" in tree):
            raise self._fail("data_after_finish", f"candidate {n} received its finishReason before chunk {index}, which adds to it", at)
        if isinstance(content, dict):
            candidate.has_content = True
            role = content.get("role")
            if role is not None:
                if candidate.role is not None and role != candidate.role:
                    raise self._fail("response_identity_changed", f"candidate {n} changes its role", f"{at}.content.role")
                candidate.role = role
            for k, part in enumerate(content.get("parts", [])):
                call = part.get("functionCall")
                if isinstance(call, dict) and "name" in call:
                    self._check_declared(call["name"], f"{at}.content.parts[{k}].functionCall.name", f"the function call of candidate {n}")
                last = candidate.parts[-1] if candidate.parts else None
                if last is not None and mergeable(last, part):
                    candidate.merge(part)
                else:
                    candidate.settle().append(dict(part))
        for name in LAST_WINS:
            if name in tree:
                candidate.members[name] = tree[name]

    def _close(self, count: int) -> GenerateContentResponse:
        if count == 0:
            raise self._fail("missing_terminal", "the stream ended before its first chunk", "$[0]")
        candidates = []
        for n in sorted(self._candidates):
            candidate = self._candidates[n]
            if "finishReason" not in candidate.members:
                raise self._fail("missing_finish", f"candidate {n} never received its finishReason: the stream was cut off", f"$[{candidate.first}].candidates")
            tree: dict[str, Any] = {}
            if candidate.has_content:
                content: dict[str, Any] = {"parts": candidate.settle()}
                if candidate.role is not None:
                    content["role"] = candidate.role
                tree["content"] = content
            tree.update(candidate.members)
            tree["index"] = n
            candidates.append(tree)
        document: dict[str, Any] = {}
        if candidates:
            document["candidates"] = candidates
        for name in ENVELOPE_MEMBERS:
            if name in self._top:
                document[name] = self._top[name]
        return msgspec.convert(document, type=GenerateContentResponse)
