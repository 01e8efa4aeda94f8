"""The fuzz session's stream shapes (issue 14): the Responses seeds and the event-level mutations
reach the item and part rules, and every input raises only lucent errors."""

from __future__ import annotations

import random
from collections import Counter

from lucent import streams
from lucent.errors import StreamError
from tests.fuzz.harness import Harness
from tests.fuzz.seeds import stream_seeds
from tests.fuzz.stream_shapes import events_of, mutate_events, responses_seeds, sse
from tests.fuzz.targets import targets
from tests.responses_streams import stream

ITEM_RULES = {"index_out_of_order", "item_not_open", "item_type_mismatch", "item_id_mismatch", "duplicate_item_index", "duplicate_part_index", "part_not_open", "part_type_mismatch", "delta_mismatch"}


def codes(inputs: list[bytes]) -> Counter[str]:
    found: Counter[str] = Counter()
    for data in inputs:
        try:
            streams.assemble(data, "openai-responses")
            found["accepted"] += 1
        except StreamError as exc:
            found[exc.code] += 1
    return found


def test_the_responses_seeds_are_stream_seeds_and_hold_the_issue_shapes() -> None:
    seeds = responses_seeds()
    assert set(seeds) <= set(stream_seeds()["openai-responses"])
    found = codes(seeds)
    assert found["accepted"] >= 5
    assert {"index_out_of_order", "part_not_open", "item_type_mismatch"} <= set(found)


def test_event_mutations_keep_the_stream_readable_and_reach_the_item_rules() -> None:
    base = stream()
    rng = random.Random(0)
    mutated = [sse(mutate_events(base, rng.randrange)) for _ in range(400)]
    assert all(events_of(m) is not None for m in mutated)
    found = codes(mutated)
    assert "sequence_out_of_order" not in found  # renumbered: the mutations reach the rules past it
    assert len(ITEM_RULES & set(found)) >= 6, found


def test_mutated_responses_streams_raise_only_lucent_errors_in_every_stream_target() -> None:
    harness = Harness(conservation=False)
    chosen = [t for t in targets() if t.stream == "openai-responses" and t.family in ("assemble", "convert_stream")]
    assert len(chosen) == 2 + len(streams.FORMATS)
    rng = random.Random(1)
    seeds = responses_seeds()
    for _ in range(60):
        events = events_of(rng.choice(seeds))
        assert events is not None
        for _ in range(rng.randint(1, 3)):
            events = mutate_events(events, rng.randrange)
        data = sse(events)
        for target in chosen:
            harness.run(target, data if not target.name.endswith(":split") else bytes([len(data) // 3 % 256]) + data)
    assert [f"{c.target}: {c.signature}" for c in harness.crashes.values()] == []
    assert harness.executions == 60 * len(chosen)
