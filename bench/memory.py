"""``python -m bench.memory [--size BYTES] [--quick]``: peak memory per input byte (issue 14, class 8).

For each hostile shape of a request body (:data:`SHAPES`) in each source format, the peak
resident memory that one call adds, divided by the body's size in bytes, for

* ``json``: ``json.loads(body)``, and ``msgspec``: ``msgspec.json.decode(body)`` (untyped): the
  baselines, a bare parse into Python objects;
* ``decode``: ``lucent.decode(body, schema, definition)``;
* ``convert -> T``: ``lucent.convert(body, source, T)`` (the source decoded and checked, the
  converter, the target checked), with the number of diagnostics it gave;

each ratio also against ``msgspec`` on the same body, measured in the same run. Every call runs
in a fresh interpreter (``--child``) that has already made the same call on a small body of the
same shape (so that imports and first-use state are not counted), then reads the body, resets
its peak (``/proc/self/clear_refs``; else the peak since start counts) and makes the call: the
figure is ``VmHWM`` after the call less ``VmRSS`` before it. Figures are ratios, so the size
matters little (``--size``, default 4,000,000 bytes; the body is built to within a few percent of
it).

Writes ``bench/results/memory.json`` and ``bench/results/memory.md`` (the table SECURITY.md
quotes) and prints the table. Not a test: figures depend on the allocator.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"

CONTEXT: dict[str, Any] = {"model": "m", "stream": False, "max_tokens": 16}
"""What a Lux target needs and a Gemini request lacks, and an Anthropic target needs and a Chat
request lacks: every conversion measured is valid (a target that breaks its schema costs a walk
of its own to name every fault; SECURITY.md)."""


def _request(fmt: str, schema: Any, text: str, messages: int) -> dict[str, Any]:
    """A request of ``fmt`` with one function tool whose JSON Schema is ``schema`` (a value every
    format keeps as JSON, typed ``Any``), ``messages`` user messages of ``text``."""
    if fmt == "openai-chat":
        return {"model": "m", "messages": [{"role": "user", "content": text}] * messages,
                "tools": [{"type": "function", "function": {"name": "f", "parameters": schema}}]}
    if fmt == "anthropic":
        return {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": text}] * messages,
                "tools": [{"name": "f", "input_schema": schema}]}
    if fmt == "gemini":
        return {"contents": [{"role": "user", "parts": [{"text": text}]}] * messages,
                "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": schema}]}]}
    if fmt == "openai-responses":
        return {"model": "m", "input": [{"role": "user", "content": text}] * messages,
                "tools": [{"type": "function", "name": "f", "parameters": schema, "strict": False}]}
    if fmt == "lux":
        return {"schema_version": "v1", "model": "m",
                "conversation": [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}] * messages,
                "tools": [{"name": "f", "parameters": schema}], "options": {"stream": False}}
    raise ValueError(fmt)


def _schema(items: str) -> str:
    """A tool's JSON Schema (an object) whose property ``x`` is a JSON array of ``items`` (text)."""
    return '{"type":"object","properties":{"x":[' + items + "]}}"


def _body(fmt: str, schema: str = '{"type":"object"}', text: str = "hi", messages: int = 1) -> bytes:
    marker = "\u0000SCHEMA\u0000"
    body = json.dumps(_request(fmt, marker, text, messages), separators=(",", ":"), ensure_ascii=False)
    return body.replace(json.dumps(marker), schema).encode()


def _repeat(unit: str, size: int) -> str:
    return ",".join([unit] * max(1, size // (len(unit) + 1)))


_CHAIN = 500  # levels of one nested chain: the document stays under the 512-level cap


def _chain(depth: int) -> str:
    return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


def _messages(fmt: str, size: int) -> bytes:
    """``size`` bytes of short user messages."""
    each = (len(_body(fmt, messages=101)) - len(_body(fmt, messages=1))) / 100
    return _body(fmt, messages=max(1, round(size / each)))


SHAPES: dict[str, Callable[[str, int], bytes]] = {
    # 10M of these in 30 MB peaked at 2.2 GB converting Chat -> Lux (issue 14)
    "empty-objects": lambda fmt, size: _body(fmt, _schema(_repeat("{}", size))),
    "small-arrays": lambda fmt, size: _body(fmt, _schema(_repeat("[0]", size))),
    # each object names a member twice: one diagnostic (Unsupported) per object, outside SparkTide
    "duplicate-keys": lambda fmt, size: _body(fmt, _schema(_repeat('{"a":0,"a":1}', size))),
    "long-string": lambda fmt, size: _body(fmt, text="a" * size),
    "deep-nesting": lambda fmt, size: _body(fmt, _schema(_repeat(_chain(_CHAIN), size))),
    "many-messages": _messages,
}
"""Shape name -> (format, bytes) -> a valid request of about that size."""

SCHEMAS = {
    "openai-chat": ("openai-chat", "CreateChatCompletionRequest"),
    "anthropic": ("anthropic", "CreateMessageParams"),
    "gemini": ("gemini", "GenerateContentRequest"),
    "openai-responses": ("openai-responses", "CreateResponse"),
    "lux": ("lux-ir-v1", "LucentRequest"),
}
"""Source format -> (schema, definition) of its request."""

TARGETS = {"openai-chat": ("lux", "anthropic"), "anthropic": ("lux",), "gemini": ("lux",), "openai-responses": ("lux",), "lux": ("openai-chat",)}
"""Source format -> the targets converted to (openai-chat -> anthropic: the gateway's pair, through Lux)."""


def shape(name: str, fmt: str, size: int) -> bytes:
    """The body of shape ``name`` in ``fmt``, of about ``size`` bytes."""
    return SHAPES[name](fmt, size)


def _operation(op: str, fmt: str) -> Callable[[bytes], Any]:
    import msgspec

    import lucent

    if op == "json":
        return json.loads
    if op == "msgspec":
        return msgspec.json.decode
    if op == "decode":
        schema, definition = SCHEMAS[fmt]
        return lambda body: lucent.decode(body, schema, definition)
    from lucent._context import read_by

    target = op.split(":", 1)[1]
    context = read_by(CONTEXT, fmt, target)  # only the keys this conversion reads: lucent refuses any other
    return lambda body: lucent.convert(body, fmt, target, context=context)


def _status(key: str) -> int:
    """A field of /proc/self/status in bytes."""
    with open("/proc/self/status") as status:
        found = re.search(rf"^{key}:\s+(\d+) kB", status.read(), re.M)
    assert found is not None
    return int(found.group(1)) * 1024


def child(op: str, fmt: str, shape_name: str, path: str) -> dict[str, Any]:
    """One measurement, in this (fresh) process: see the module docstring."""
    call = _operation(op, fmt)
    call(shape(shape_name, fmt, 2_000))  # imports, decoders, converters: built before measuring
    with open(path, "rb") as file:
        body = file.read()
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # the peak (VmHWM) starts again from the current size
    except OSError:
        pass
    before = _status("VmRSS")
    started = time.perf_counter()
    result = call(body)
    seconds = time.perf_counter() - started
    peak = _status("VmHWM")
    diagnostics = getattr(result, "diagnostics", None)
    return {"bytes": len(body), "peak": peak - before, "seconds": round(seconds, 3), "diagnostics": None if diagnostics is None else len(diagnostics)}


def measure(op: str, fmt: str, shape_name: str, path: Path) -> dict[str, Any]:
    """Run :func:`child` in a fresh interpreter; its figures."""
    done = subprocess.run([sys.executable, "-m", "bench.memory", "--child", op, fmt, shape_name, str(path)],
                          capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def run(size: int, formats: list[str], shapes: list[str]) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for shape_name in shapes:
            for fmt in formats:
                path = Path(work) / f"{shape_name}-{fmt}.json"
                path.write_bytes(shape(shape_name, fmt, size))
                ops = ["json", "msgspec", "decode", *(f"convert:{t}" for t in TARGETS[fmt])]
                figures = {op: measure(op, fmt, shape_name, path) for op in ops}
                base = figures["msgspec"]["peak"]
                row: dict[str, Any] = {"shape": shape_name, "format": fmt, "bytes": figures["msgspec"]["bytes"], "ops": {}}
                for op, found in figures.items():
                    row["ops"][op] = {**found, "per_byte": round(found["peak"] / found["bytes"], 2), "vs_msgspec": round(found["peak"] / base, 2) if base > 0 else None}
                rows.append(row)
                print(_line(row), flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    parts = [f"{row['shape']:15s} {row['format']:17s} {row['bytes'] / 1e6:5.1f} MB"]
    for op, found in row["ops"].items():
        diagnostics = f", {found['diagnostics']} diag." if found.get("diagnostics") else ""
        parts.append(f"{op} {found['per_byte']}x ({found['seconds']} s{diagnostics})")
    return " | ".join(parts)


def markdown(rows: list[dict[str, Any]], command: str) -> str:
    """The table: per shape and source format, peak bytes per input byte of each call, and (for
    lucent's calls) that against msgspec's untyped decode of the same body."""
    lines = [
        f"Measured by `{command}`: peak resident memory one call adds, per byte of the body "
        "(and, in brackets, against `msgspec.json.decode` of the same body, in the same run).",
        "",
        "| shape | source | MB | json.loads | msgspec | lucent.decode | lucent.convert (diagnostics) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        ops = row["ops"]
        converts = "; ".join(
            f"-> {op.split(':', 1)[1]} {found['per_byte']}x ({found['vs_msgspec']}x; {found['diagnostics']})"
            for op, found in ops.items() if op.startswith("convert:")
        )
        lines.append(f"| {row['shape']} | {row['format']} | {row['bytes'] / 1e6:.1f} | {ops['json']['per_byte']}x | {ops['msgspec']['per_byte']}x "
                     f"| {ops['decode']['per_byte']}x ({ops['decode']['vs_msgspec']}x) | {converts} |")
    return "\n".join(lines) + "\n"


def versions() -> dict[str, str]:
    """The interpreter, the packages measured and the commit."""
    import platform
    from importlib import metadata

    found = {"python": platform.python_version(), "machine": f"{platform.machine()}, {os.cpu_count()} cores"}
    try:
        found["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        found["commit"] = "unknown"
    for package in ("lucent", "msgspec"):
        found[package] = metadata.version(package)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=4_000_000, help="body size in bytes (default 4,000,000)")
    parser.add_argument("--quick", action="store_true", help="openai-chat only, 1,000,000 bytes")
    parser.add_argument("--formats", nargs="+", choices=list(SCHEMAS), default=list(SCHEMAS))
    parser.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--child", nargs=4, metavar=("OP", "FORMAT", "SHAPE", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    size, formats = (1_000_000, ["openai-chat"]) if args.quick else (args.size, args.formats)
    command = "python -m bench.memory" + (" --quick" if args.quick else f" --size {size}" if size != 4_000_000 else "")
    rows = run(size, formats, args.shapes)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "-quick" if args.quick else ""
    (args.out / f"memory{suffix}.json").write_text(json.dumps({"command": command, "versions": versions(), "rows": rows}, indent=1) + "\n")
    table = markdown(rows, command)
    (args.out / f"memory{suffix}.md").write_text(table)
    print("\n" + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
