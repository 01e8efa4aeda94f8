"""How many diagnostics the lingua corpus gets, pair by pair, and whether each one is true
(issue 16, point 1).

``python -m tests.diagnostics_census`` converts every recording of the lingua corpus
(``tests/data/lingua/snapshots/<case>/<provider>/``: ``request.json`` and
``followup-request.json``, kind request; ``response.json`` and ``followup-response.json``, kind
response; ``response-streaming.json`` and ``followup-response-streaming.json``, kind stream,
a JSON array of events) from its vendor format X to every other vendor format Y, as a caller
does it: without context, then, if the target lacks a value a caller can give (an Invalid
``target:$.<key>`` diagnostic), again with exactly those values (:data:`OFFERED`). Recordings
that ``tests/data/vendor_corpus_failures.toml`` lists as refused by the source schema are left
out. It prints, per pair and kind and in total: the conversions, their diagnostics (total,
median per conversion, share of conversions with none) and the share that ``strict=True``
passes (no Unsupported or Invalid diagnostic: what ``strict`` refuses).

``--verify`` also checks every diagnostic (:func:`verdict`): the target is read back (converted
Y -> X the same way) and compared with the source (JSON values); a diagnostic is *real* when the
two differ at its path (or above or below it: a stream's events are compared with their index
left out, :func:`_stream_paths`), *documented* when it is one of the Degraded forms
docs/semantics.md names ("Degraded forms", :data:`FORMS`, each by its name), a *target*
diagnostic when it names a ``target:`` path the output lacks or breaks, and otherwise a
*false report*: those are listed by class (status and detail with the numbers and quoted
names left out) with their count and one example. A diagnostic whose read back raised is
*unchecked*.

The script imports only lucent, msgspec and the standard library, so it measures any tree:
``--tree DIR`` runs it with ``DIR``'s lucent (``PYTHONPATH=DIR``), ``--rev REV`` on a throwaway
``git worktree`` of ``REV`` (removed afterwards); the corpus is always this tree's. Other options:
``--format X`` / ``--kind K`` (repeatable), ``--limit N`` recordings per pair, ``--classes N``
false-report classes printed (default 40), ``--json FILE`` the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SNAPSHOTS = HERE / "data" / "lingua" / "snapshots"
FAILURES = HERE / "data" / "vendor_corpus_failures.toml"
VENDORS = ("openai-chat", "openai-responses", "anthropic", "gemini")
KINDS = ("request", "response", "stream")
FOLDERS = {"openai-chat": "chat-completions", "openai-responses": "responses", "anthropic": "anthropic", "gemini": "google"}
NAMES = {
    "request": ("request.json", "followup-request.json"),
    "response": ("response.json", "followup-response.json"),
    "stream": ("response-streaming.json", "followup-response-streaming.json"),
}
OFFERED: dict[str, Any] = {
    "max_tokens": 256,  # Anthropic requires it, and a request of another format may lack it
    "created": 1893456000,  # a Chat response's or stream's creation time
    "created_at": 1893456000,  # a Responses (or Lux) response's
    "id": "resp_corpus",  # a stream's envelope
    "model": "model-1",
}
"""The values a caller holds outside the documents (``tests.convert_conformance.pairs.FIXED_CONTEXT``
and ``tests.vendor_convert_corpus.STREAM_CONTEXT``: the keys a vendor target asks for)."""

FORMS: dict[str, tuple[str, re.Pattern[str]]] = {
    "side-car": ("Degraded", re.compile(r"\bkept (?:verbatim )?in (?:provider_payload|extra)\b")),
    "caller-context": ("Degraded", re.compile(r"context\[")),
    "joined": ("Degraded", re.compile(r"\bjoined\b")),
    "derived-id": ("Degraded", re.compile(r"\b(?:id|ids|name) (?:is |are )?(?:derived|generated|replaced)\b|lucent_|needs? an? (?:id|name)\b.*written as|\bderived '")),
    "rounded": ("Degraded", re.compile(r"\brounded\b")),
    "filled": ("Degraded", re.compile(r"Lux has none, written as|written as the defaults")),
    "foreign-signature": ("Degraded", re.compile(r"decrypts only the encrypted_content it issued|replays? (?:a |only )?.*signature it issued")),
    "url-fetch": ("Degraded", re.compile(r"fetches only some URLs")),
}
"""The Degraded forms docs/semantics.md lists ("Degraded forms"), by name: (status, a pattern
of the detail). A Degraded diagnostic of one of them may name a value the target, read back,
gives back equal (the meaning is kept; a reader of the target sees another form)."""


# ------------------------------------------------------------------ the corpus
@dataclass(frozen=True)
class Case:
    file: str  # relative to SNAPSHOTS
    format: str
    kind: str
    value: Any


def _refused() -> frozenset[str]:
    """The recordings vendor_corpus_failures.toml lists (a stream with any refused event)."""
    entries = tomllib.loads(FAILURES.read_text(encoding="utf-8")).get("failure", [])
    return frozenset(spec.split("[", 1)[0] for entry in entries for spec in entry["files"])


def cases(fmt: str, kind: str) -> list[Case]:
    refused = _refused()
    found = []
    for path in sorted(SNAPSHOTS.glob(f"*/{FOLDERS[fmt]}/*.json")):
        file = path.relative_to(SNAPSHOTS).as_posix()
        if path.name in NAMES[kind] and file not in refused:
            found.append(Case(file, fmt, kind, json.loads(path.read_bytes())))
    return found


# ------------------------------------------------------------------ converting as a caller does
_SUPPLY = re.compile(r"context\['([^']+)'\]")


def _needed(diagnostics: Iterable[Any]) -> dict[str, Any]:
    """The context values a conversion said it lacked that a caller can give: an Invalid
    ``target:$.<member>`` diagnostic names the key (``supply context['created_at']``), else the
    key is the member."""
    keys = []
    for d in diagnostics:
        if d.status == "Invalid" and d.field.startswith("target:$."):
            named = _SUPPLY.search(d.detail or "")
            keys.append(named.group(1) if named else re.split(r"[.\[]", d.field.removeprefix("target:$."), maxsplit=1)[0])
    return {key: OFFERED[key] for key in keys if key in OFFERED}


def _to_json(value: Any) -> Any:
    import lucent
    import msgspec

    return json.loads(lucent.encode(value)) if isinstance(value, msgspec.Struct) else msgspec.to_builtins(value)


def convert(value: Any, source: str, target: str, kind: str) -> tuple[Any, list[Any]]:
    """(The output as JSON, its diagnostics): without context, then with what it said it lacked."""
    import lucent
    from lucent import streams

    def run(context: Mapping[str, Any] | None) -> tuple[Any, list[Any]]:
        if kind == "stream":
            conversion = streams.convert_stream(value, source, target, context=context)
            return [_to_json(e) for e in conversion], list(conversion.diagnostics)
        result = lucent.convert(value, source, target, kind, context=context)
        return _to_json(result.value), list(result.diagnostics)

    output, diagnostics = run(None)
    context = _needed(diagnostics)
    return run(context) if context else (output, diagnostics)


# ------------------------------------------------------------------ paths
_STEP = re.compile(r'\.([^.\[]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def steps(path: str) -> tuple[Any, ...]:
    """``$.a[0]["b c"]`` -> ``("a", 0, "b c")`` (a path lucent or :func:`json_diff` writes)."""
    out: list[Any] = []
    rest = path.removeprefix("target:").removeprefix("$")
    at = 0
    while at < len(rest):
        m = _STEP.match(rest, at)
        if m is None:  # a name lucent wrote without quoting: the rest is one step
            out.append(rest[at:].lstrip("."))
            break
        name, index, quoted = m.groups()
        out.append(name if name is not None else int(index) if index is not None else json.loads(quoted))
        at = m.end()
    return tuple(out)


def json_diff(a: Any, b: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The paths (as steps) at which two JSON values differ; ``1`` and ``1.0`` are one number."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key not in a or key not in b:
                yield (*path, key)
            else:
                yield from json_diff(a[key], b[key], (*path, key))
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                yield (*path, i)
            else:
                yield from json_diff(a[i], b[i], (*path, i))
    elif _number(a) and _number(b):
        if a != b:
            yield path
    elif isinstance(a, str) and isinstance(b, str) and a != b and _same_json_text(a, b):
        return  # JSON text carried as the equal JSON value (docs/semantics.md: Exact)
    elif a != b or type(a) is not type(b):
        yield path


def _same_json_text(a: str, b: str) -> bool:
    """Two strings that are JSON text of one JSON object or array (numbers compared exactly)."""
    if not (a.lstrip().startswith(("{", "[")) and b.lstrip().startswith(("{", "["))):
        return False
    from decimal import Decimal

    try:
        x, y = (json.loads(t, parse_float=Decimal, parse_int=Decimal) for t in (a, b))
    except ValueError:
        return False
    return list(json_diff(x, y)) == []


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _related(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """One path is the other or lies below it."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            yield from _leaves(item, (*path, i))
    else:
        yield path, json.dumps(value, sort_keys=True)


def _stream_paths(events: list[Any]) -> Counter[tuple[tuple[Any, ...], str]]:
    """A stream's leaves with the event index left out: (path inside the event, value) -> count."""
    return Counter(leaf for event in events for leaf in _leaves(event))


def _stream_lost(source: list[Any], back: list[Any]) -> set[tuple[Any, ...]]:
    """The paths ``($[i], ...)`` of the source's leaves whose (path inside the event, value) the
    read-back stream holds fewer times than the source."""
    held = _stream_paths(back)
    lost = set()
    for i, event in enumerate(source):
        for path, value in _leaves(event):
            if held[(path, value)] > 0:
                held[(path, value)] -= 1
            else:
                lost.add((i, *path))
    return lost


def _has(document: Any, path: tuple[Any, ...]) -> bool:
    node = document
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return False
        elif not isinstance(node, dict) or step not in node:
            return False
        node = node[step]
    return True


# ------------------------------------------------------------------ verdicts
def form(diagnostic: Any) -> str | None:
    """The documented Degraded form (a key of :data:`FORMS`) the diagnostic is, if any."""
    for name, (status, pattern) in FORMS.items():
        if diagnostic.status == status and pattern.search(diagnostic.detail or ""):
            return name
    return None


def verdict(diagnostic: Any, differences: Callable[[tuple[Any, ...]], bool] | None, output: Any, kind: str) -> str:
    """``real``, ``documented:<form>``, ``target``, ``false`` or ``unchecked`` (module docstring);
    ``differences(path)`` says whether the read back differs from the source at or around it
    (None: the read back raised)."""
    target = diagnostic.field.startswith("target:")
    if target and diagnostic.status == "Invalid":
        return "target"  # the output breaks the target there, or lacks a value only the caller has
    if not target and differences is not None and differences(steps(diagnostic.field)):
        return "real"
    named = form(diagnostic)
    if named is not None:
        return f"documented:{named}"
    return "unchecked" if differences is None and not target else "false"


def read_back_check(case: Case, target: str, output: Any) -> Callable[[tuple[Any, ...]], bool] | None:
    """``path -> whether the source and the target read back differ there``; None when the
    target cannot be read back."""
    try:
        back, _ = convert(output, target, case.format, case.kind)
    except Exception:  # noqa: BLE001 - a read back that fails leaves the diagnostics unchecked
        return None
    if case.kind == "stream":
        lost = _stream_lost(case.value, back)
        return lambda path: any(_related(path, p) for p in lost)
    found = list(json_diff(case.value, back))
    return lambda path: any(_related(path, p) for p in found)


_NUMBER = re.compile(r"\d+")
_INDEX = re.compile(r"\[\d+\]")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


def _class(diagnostic: Any) -> str:
    """A false report's class: its status, its path with indexes as [*], its detail without
    numbers and quoted names."""
    detail = _NUMBER.sub("N", _QUOTED.sub("'...'", diagnostic.detail or ""))
    where = _INDEX.sub("[*]", diagnostic.field)
    return f"{diagnostic.status} {where}: {detail}"


# ------------------------------------------------------------------ the census
@dataclass
class Tally:
    source: str
    target: str
    kind: str
    counts: list[int] = field(default_factory=list)  # diagnostics per conversion
    strict: int = 0  # conversions strict=True passes
    errors: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    false: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.counts += other.counts
        self.strict += other.strict
        self.errors += other.errors
        self.verdicts += other.verdicts
        self.false += other.false
        for key, value in other.examples.items():
            self.examples.setdefault(key, value)

    def row(self, name: str) -> str:
        n = len(self.counts)
        if not n:
            return f"{name:42} {0:>6}"
        median = statistics.median(self.counts)
        none = sum(1 for c in self.counts if c == 0) / n
        line = f"{name:42} {n:>6} {sum(self.counts):>7} {median:>7g} {none:>7.1%} {self.strict / n:>7.1%} {sum(self.errors.values()):>6}"
        if self.verdicts:
            v = self.verdicts
            documented = sum(c for k, c in v.items() if k.startswith("documented:"))
            line += f" {v['real']:>6} {documented:>6} {v['target']:>6} {v['unchecked']:>6} {v['false']:>6}"
        return line


HEADER = f"{'pair':42} {'conv':>6} {'diags':>7} {'median':>7} {'none':>7} {'strict':>7} {'errors':>6}"
VERIFY_HEADER = f" {'real':>6} {'docum':>6} {'target':>6} {'uncheck':>6} {'false':>6}"


def run_pair(source: str, target: str, kind: str, limit: int | None, verify: bool) -> Tally:
    tally = Tally(source, target, kind)
    for case in cases(source, kind)[:limit]:
        try:
            output, diagnostics = convert(case.value, source, target, kind)
        except Exception as error:  # noqa: BLE001 - counted, not hidden
            tally.errors[f"{type(error).__name__}: {getattr(error, 'code', '')}"] += 1
            continue
        tally.counts.append(len(diagnostics))
        tally.strict += not any(d.status in ("Unsupported", "Invalid") for d in diagnostics)
        if not verify or not diagnostics:
            continue
        check = read_back_check(case, target, output)
        for d in diagnostics:
            found = verdict(d, check, output, kind)
            tally.verdicts[found] += 1
            if found == "false":
                name = f"{source} -> {target} {kind}: {_class(d)}"
                tally.false[name] += 1
                tally.examples.setdefault(name, f"{case.file} {d.field}: {d.detail}")
    return tally


def census(formats: Iterable[str], kinds: Iterable[str], limit: int | None, verify: bool) -> list[Tally]:
    return [
        run_pair(x, y, kind, limit, verify)
        for kind in kinds
        for x in formats
        for y in VENDORS
        if y != x
    ]


def report(tallies: list[Tally], verify: bool, classes: int) -> list[str]:
    lines = [HEADER + (VERIFY_HEADER if verify else ""), "-" * len(HEADER + (VERIFY_HEADER if verify else ""))]
    for t in tallies:
        lines.append(t.row(f"{t.source} -> {t.target} {t.kind}"))
    lines.append("")
    for kind in dict.fromkeys(t.kind for t in tallies):
        total = Tally("", "", kind)
        for t in tallies:
            if t.kind == kind:
                total.add(t)
        lines.append(total.row(f"all {kind}s"))
    total = Tally("", "", "")
    for t in tallies:
        total.add(t)
    lines.append(total.row("all"))
    lines.append("(conv: conversions; diags: their diagnostics; median per conversion; none: share with no diagnostic;")
    lines.append(" strict: share strict=True passes; errors: conversions that raised, not counted)")
    if total.errors:
        lines.append("errors: " + ", ".join(f"{k} x{c}" for k, c in total.errors.most_common()))
    if verify:
        lines.append("verdicts: " + ", ".join(f"{k} {c}" for k, c in sorted(total.verdicts.items())))
        lines.append(f"false reports: {sum(total.false.values())} in {len(total.false)} classes")
        for name, count in total.false.most_common(classes):
            lines.append(f"  {count:>5}  {name[:220]}")
            lines.append(f"         e.g. {total.examples[name][:220]}")
    return lines


def figures(tallies: list[Tally]) -> dict[str, Any]:
    total = Tally("", "", "")
    for t in tallies:
        total.add(t)
    n = len(total.counts)
    return {
        "conversions": n,
        "diagnostics": sum(total.counts),
        "median": statistics.median(total.counts) if n else 0,
        "share_none": sum(1 for c in total.counts if c == 0) / n if n else 0,
        "share_strict": total.strict / n if n else 0,
        "errors": sum(total.errors.values()),
        "verdicts": dict(total.verdicts),
        "false_classes": dict(total.false),
    }


def _elsewhere(args: argparse.Namespace, argv: list[str]) -> int:
    """Run this script with the lucent of ``--tree`` (or of a worktree of ``--rev``)."""
    rest = [a for i, a in enumerate(argv) if not (a in ("--tree", "--rev") or (i and argv[i - 1] in ("--tree", "--rev"))) and not a.startswith(("--tree=", "--rev="))]
    if args.tree:
        env = {**os.environ, "PYTHONPATH": str(Path(args.tree).resolve())}
        return subprocess.call([sys.executable, str(Path(__file__).resolve()), *rest], env=env, cwd=tempfile.gettempdir())
    repo = HERE.parent
    with tempfile.TemporaryDirectory(prefix="census-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "--quiet", str(tree), args.rev], check=True)
        try:
            for built in (repo / "lucent").glob("_prescan*.so"):  # the C pre-scan, if built here
                (tree / "lucent" / built.name).write_bytes(built.read_bytes())
            env = {**os.environ, "PYTHONPATH": str(tree)}
            return subprocess.call([sys.executable, str(Path(__file__).resolve()), *rest], env=env, cwd=folder)
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)], check=False)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m tests.diagnostics_census", description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", action="append", choices=VENDORS, help="source format (repeatable; default all)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="kind (repeatable; default all)")
    parser.add_argument("--limit", type=int, default=None, help="at most N recordings per pair")
    parser.add_argument("--verify", action="store_true", help="check every diagnostic against the target read back")
    parser.add_argument("--classes", type=int, default=40, help="false-report classes printed (default 40)")
    parser.add_argument("--json", help="write the figures to this file")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--tree", help="measure the lucent of this checkout")
    where.add_argument("--rev", help="measure the lucent of this commit (a throwaway git worktree)")
    args = parser.parse_args(argv)
    if args.tree or args.rev:
        return _elsewhere(args, argv)
    import lucent

    started = time.perf_counter()
    tallies = census(args.format or VENDORS, args.kind or KINDS, args.limit, args.verify)
    print(f"lucent from {Path(lucent.__file__).parent.parent}")
    for line in report(tallies, args.verify, args.classes):
        print(line)
    print(f"{time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures(tallies), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
