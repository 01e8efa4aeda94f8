"""Print the counts of a conformance run, per schema and per kind."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from .departures import DEPARTURES
from .runner import CorpusTally, Finding, Tally
from .verdict import Verdict

__all__ = ["coverage_lines", "findings_lines", "input_line", "kind_table"]

_HEADER = (
    f"{'schema':22} {'kind':24} {'valid':>6} {'accepted':>8} {'mutations':>9} {'refused':>7} "
    f"{'lucent-refused':>14} {'agree':>6} {'listed':>6} {'UNLISTED':>8} {'same-path':>9} {'sites':>9}"
)


def _row(t: Tally) -> str:
    listed = sum(t.listed.values())
    unlisted = len(t.findings) + len(t.drawn_invalid)
    path = f"{100 * t.same_path // t.both_refused}%" if t.both_refused else "-"
    sites = f"{len(t.hit & t.reachable)}/{len(t.reachable)}"
    return (
        f"{t.schema:22} {t.kind:24} {t.valid:6} {t.accepted:8} {t.mutations:9} {t.refused:7} "
        f"{t.refused_by_lucent:14} {t.agree:6} {listed:6} {unlisted:8} {path:>9} {sites:>9}"
    )


def kind_table(tallies: Iterable[Tally]) -> list[str]:
    """One row per kind and a total row per schema."""
    lines = [_HEADER, "-" * len(_HEADER)]
    by_schema: dict[str, list[Tally]] = {}
    for t in tallies:
        by_schema.setdefault(t.schema, []).append(t)
    for schema, rows in by_schema.items():
        total = Tally(schema, "(schema total)")
        for t in rows:
            lines.append(_row(t))
            total.add(t)
        lines.append(_row(total))
        lines.append("")
    return lines


def departure_lines(counts: Counter[str]) -> list[str]:
    """The listed departures and how often each explained a disagreement."""
    return [f"  {counts.get(d.id, 0):6}  {d.id:28} ({d.origin}) {d.summary}" for d in DEPARTURES]


def coverage_lines(tally: Tally, limit: int = 12) -> list[str]:
    """Sites of one schema no mutation broke, by keyword."""
    missing = sorted(tally.reachable - tally.hit)
    by_keyword = Counter(keyword for _, keyword in missing)
    reachable = Counter(keyword for _, keyword in tally.reachable)
    summary = ", ".join(f"{k} {reachable[k] - by_keyword[k]}/{reachable[k]}" for k in sorted(reachable))
    lines = [f"  {tally.schema}: {len(tally.reachable) - len(missing)}/{len(tally.reachable)} sites broken ({summary})"]
    lines += [f"      not broken: {pointer} {keyword}" for pointer, keyword in missing[:limit]]
    if len(missing) > limit:
        lines.append(f"      ... and {len(missing) - limit} more")
    return lines


def findings_lines(findings: list[Finding], limit: int = 20) -> list[str]:
    """Unexplained disagreements, the shortest input of each sort."""
    sorts: dict[tuple[object, ...], Finding] = {}
    counts: Counter[tuple[object, ...]] = Counter()
    for f in findings:
        c = f.case
        key: tuple[object, ...] = (c.schema, c.definition, f.op, c.oracle.valid, c.oracle.code, c.subject.code)
        counts[key] += 1
        if key not in sorts or len(c.data) < len(sorts[key].case.data):
            sorts[key] = f
    lines = []
    for key, f in sorted(sorts.items(), key=lambda item: -counts[item[0]])[:limit]:
        c = f.case
        lines.append(f"  {counts[key]}x {c.schema} {c.definition or '<root>'} [{f.source} {f.op}]")
        lines.append(f"      oracle: {_said(c.oracle)}")
        lines.append(f"      lucent: {_said(c.subject)}")
        lines.append(f"      {input_line(c.data)}")
    return lines


def input_line(data: bytes, limit: int = 400) -> str:
    """One line that shows *data*: as it is, or, where it holds a line break, tab or other
    unprintable character, as a JSON string of its text (so a terminal shows every byte)."""
    text = data.decode("utf-8", "backslashreplace")
    more = " ..." if len(text) > limit else ""
    if text.isprintable():
        return f"input ({len(data)} bytes): {text[:limit]}{more}"
    return f"input ({len(data)} bytes, as a JSON string): {json.dumps(text[:limit], ensure_ascii=False)}{more}"


def _said(verdict: Verdict) -> str:
    if verdict.valid:
        return "accepts"
    return f"refuses {verdict.code} at {verdict.json_path}: {verdict.message[:120]}"


def corpus_lines(tally: CorpusTally, skipped: int) -> list[str]:
    """The corpus counts."""
    lines = [
        f"  {tally.documents} documents in a seed format ({skipped} vendor-format files skipped): "
        f"oracle accepts {tally.oracle_valid}, agree {tally.agree}, listed {sum(tally.listed.values())}, "
        f"UNLISTED {len(tally.findings)}",
        f"  INDEX.json verdicts reproduced (valid and error_path): oracle {tally.index_oracle}/{tally.indexed}, "
        f"lucent {tally.index_lucent}/{tally.indexed}",
    ]
    lines += [f"      miss: {m}" for m in tally.index_misses[:10]]
    return lines
