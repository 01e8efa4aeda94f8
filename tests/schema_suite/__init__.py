"""The official JSON-Schema-Test-Suite through lucent's codegen and decode (issue 17).

Each group's schema is compiled three ways (``mode``):

- ``root``: as the document root, judged by each test's own ``valid``;
- ``defs``: as ``$defs/S`` of an otherwise empty document, decoded by name (``decode(data,
  stem, "S")``);
- ``property``: as the type of the required property ``value`` of a closed object, decoding
  ``{"value": data}``.

Wrapping moves the base URI of ``$id``-relative references, so in the ``defs`` and
``property`` modes the verdict to meet is jsonschema's on the wrapped schema, for each test that
jsonschema answers right on the unwrapped schema. On the few it answers wrongly there (a
``\\p{Letter}`` pattern, which Python's ``re`` lacks; a metaschema's ``$vocabulary``) it is
no referee, and the test's own ``valid`` is the verdict to meet.

A test is ``pass`` (lucent's verdict is the expected one), ``refused`` (codegen refused the
group's schema with a ``SchemaError``), ``wrong`` (the other verdict, with no error) or
``crash`` (codegen, the import or the decode raised anything else). ``failed`` is wrong +
crash.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import sys
import tempfile
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
REMOTE_BASE = "http://localhost:1234/"
MODES = ("root", "defs", "property")
WRAPPED = "value"  # the property of the `property` mode


def find_suite() -> Path | None:
    """The suite checkout: ``shared/json-schema-test-suite`` next to the repository or one of
    its parents (``../shared`` from /work/main, ``../../shared`` from a worktree)."""
    for base in [ROOT, *ROOT.parents]:
        candidate = base / "shared" / "json-schema-test-suite"
        if candidate.is_dir():
            return candidate
    return None


def default_tests_dir() -> Path | None:
    suite = find_suite()
    return suite / "tests" / "draft2020-12" if suite is not None else None


def find_remotes(tests_dir: Path) -> Path | None:
    """The ``remotes/`` folder of the suite holding ``tests_dir``."""
    for base in [tests_dir, *tests_dir.parents]:
        if (base / "remotes").is_dir():
            return base / "remotes"
    return None


def load_remotes(remotes_dir: Path | None) -> dict[str, Any]:
    """URI -> schema for every JSON file under ``remotes_dir`` (served at localhost:1234)."""
    found: dict[str, Any] = {}
    if remotes_dir is None:
        return found
    for path in sorted(remotes_dir.rglob("*.json")):
        found[REMOTE_BASE + path.relative_to(remotes_dir).as_posix()] = json.loads(path.read_text(encoding="utf-8"))
    return found


@dataclass
class Outcome:
    """One test's result: ``status`` is pass, refused, wrong or crash."""

    file: str
    group: str
    test: str
    status: str
    detail: str = ""


@dataclass
class FileResult:
    file: str
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def wrap(schema: Any, mode: str) -> tuple[Any, str | None]:
    """The document compiled for ``mode`` and the definition decoded (None: the root)."""
    if mode == "root":
        return schema, None
    if mode == "defs":
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"S": schema}}, "S"
    if mode == "property":
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {WRAPPED: schema},
            "required": [WRAPPED],
            "additionalProperties": False,
        }, None
    raise ValueError(f"unknown mode {mode!r}")


def wrapped_data(data: Any, mode: str) -> Any:
    return {WRAPPED: data} if mode == "property" else data


class Oracle:
    """jsonschema's verdict on a wrapped schema (the suite's remotes registered)."""

    def __init__(self, remotes: dict[str, Any]) -> None:
        import referencing
        import referencing.jsonschema

        resources = []
        for uri, contents in remotes.items():
            resource = referencing.Resource.from_contents(contents, default_specification=referencing.jsonschema.DRAFT202012)
            resources.append((uri, resource))
        self.registry = referencing.Registry().with_resources(resources)

    def valid(self, document: Any, uri: str, definition: str | None, data: Any) -> bool:
        """jsonschema's verdict on ``data`` against ``document`` (retrieved from ``uri``) or its
        ``$defs/<definition>``; raises when jsonschema cannot resolve a reference."""
        import jsonschema
        import referencing
        import referencing.jsonschema

        resource = referencing.Resource.from_contents(document, default_specification=referencing.jsonschema.DRAFT202012)
        registry = self.registry.with_resource(uri, resource)
        target = uri if definition is None else f"{uri}#/$defs/{definition}"
        validator = jsonschema.Draft202012Validator({"$ref": target}, registry=registry)
        return bool(validator.is_valid(data))


_runs = itertools.count()


def _stem(run: int, file: str, index: int, mode: str) -> str:
    """A stem of its own per run: lucent.decode caches its decoders by stem."""
    return re.sub(r"\W+", "_", f"suite_{run}_{file}_{index}_{mode}").lower()


class Compiler:
    """Compiles documents into modules under a temporary folder, imported as
    ``lucent.generated.<stem>`` and registered with lucent's decode under their stem.

    ``structs``: compile as the shipped schemas are (codegen/bindings.py's msgspec Structs,
    guarded by codegen/exact.py: ``render_schema(trusted=True)``), to measure that fast path."""

    def __init__(self, remotes: dict[str, Any], structs: bool = False) -> None:
        self.structs = structs
        import lucent.generated  # noqa: F401 (the package the modules join)

        self.remotes = remotes
        self._tmp = tempfile.TemporaryDirectory(prefix="lucent-schema-suite-")
        self.dir = Path(self._tmp.name)
        self.run = next(_runs)

    def close(self) -> None:
        for name in [n for n in sys.modules if n.startswith("lucent.generated.suite_")]:
            del sys.modules[name]
        self._tmp.cleanup()

    def compile(self, raw: Any, stem: str) -> Any:
        """The imported module; raises SchemaError (refused) or anything else (a crash)."""
        from codegen.generate import render_schema
        from codegen.schema import SchemaDocument
        from lucent import _decode

        path = self.dir / f"{stem}.json"
        text = json.dumps(raw)
        document = SchemaDocument(path=path, stem=stem, raw=raw, text=text)
        source = render_schema(document, None, self.remotes, trusted=self.structs)
        module_name = document.module
        file = self.dir / f"{module_name}.py"
        file.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"lucent.generated.{module_name}", file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        _decode._modules[stem] = module
        return module


def _verdict(stem: str, definition: str | None, data: Any) -> bool:
    """lucent's verdict: True when decode accepts ``data``; raises on anything but a
    ValidationError."""
    import lucent
    from lucent.errors import ValidationError

    try:
        lucent.decode(json.dumps(data), stem, definition)
    except ValidationError:
        return False
    return True


def keyword_files(tests_dir: Path, keywords: Iterable[str] = ()) -> list[Path]:
    """The ``*.json`` files of ``tests_dir`` (not its subfolders), or the named ones."""
    wanted = {k if k.endswith(".json") else f"{k}.json" for k in keywords}
    files = sorted(tests_dir.glob("*.json"))
    if wanted:
        files = [f for f in files if f.name in wanted]
        missing = wanted - {f.name for f in files}
        if missing:
            raise SystemExit(f"no such keyword file in {tests_dir}: {', '.join(sorted(missing))}")
    return files


def run_file(path: Path, mode: str, compiler: Compiler, oracle: Oracle | None) -> FileResult:
    from codegen.schema import SchemaError

    result = FileResult(path.stem)
    groups = json.loads(path.read_text(encoding="utf-8"))
    for index, group in enumerate(groups):
        stem = _stem(compiler.run, path.stem, index, mode)
        raw, definition = wrap(group["schema"], mode)
        tests = group["tests"]
        uri = (compiler.dir / f"{stem}.json").as_uri()
        unwrapped = (compiler.dir / f"{stem}_unwrapped.json").as_uri()
        refereed = [oracle is not None and _answers_right(oracle, group["schema"], unwrapped, t) for t in tests]
        try:
            compiler.compile(raw, stem)
        except SchemaError as exc:
            # In the wrapped modes a reference the wrapping breaks is refused by jsonschema
            # too: the two agree, a pass.
            agreed = oracle is not None and _oracle_fails(
                oracle, raw, uri, definition, [wrapped_data(t["data"], mode) for t, r in zip(tests, refereed) if r]
            )
            for test, by_oracle in zip(tests, refereed):
                status = "pass" if agreed and by_oracle else "refused"
                result.outcomes.append(Outcome(path.stem, group["description"], test["description"], status, f"{exc} (jsonschema cannot resolve it either)" if agreed else str(exc)))
            continue
        except Exception:
            detail = traceback.format_exc(limit=-3)
            for test in tests:
                result.outcomes.append(Outcome(path.stem, group["description"], test["description"], "crash", detail))
            continue
        for test, by_oracle in zip(tests, refereed):
            data = wrapped_data(test["data"], mode)
            try:
                expected = oracle.valid(raw, uri, definition, data) if oracle is not None and by_oracle else test["valid"]
            except Exception as exc:  # jsonschema cannot resolve it, lucent answers: wrong
                result.outcomes.append(Outcome(path.stem, group["description"], test["description"], "wrong", f"jsonschema cannot resolve the wrapped schema ({type(exc).__name__}), lucent compiled it"))
                continue
            try:
                got = _verdict(stem, definition, data)
            except Exception:
                outcome = Outcome(path.stem, group["description"], test["description"], "crash", traceback.format_exc(limit=-3))
            else:
                status = "pass" if got == expected else "wrong"
                detail = "" if status == "pass" else f"data {json.dumps(test['data'])[:200]}: expected {'valid' if expected else 'invalid'}"
                outcome = Outcome(path.stem, group["description"], test["description"], status, detail)
            result.outcomes.append(outcome)
    return result


def _answers_right(oracle: Oracle, schema: Any, uri: str, test: dict[str, Any]) -> bool:
    """jsonschema gives ``test`` its own verdict on the unwrapped ``schema``."""
    try:
        return oracle.valid(schema, uri, None, test["data"]) == test["valid"]
    except Exception:
        return False


def _oracle_fails(oracle: Oracle, raw: Any, uri: str, definition: str | None, data: list[Any]) -> bool:
    """jsonschema raises (an unresolvable reference) on every one of ``data`` (and there is one)."""
    if not data:
        return False
    for item in data:
        try:
            oracle.valid(raw, uri, definition, item)
        except Exception:
            continue
        return False
    return True


def run(
    tests_dir: Path, mode: str = "root", keywords: Iterable[str] = (), remotes_dir: Path | None = None, structs: bool = False
) -> Iterator[FileResult]:
    """One FileResult per keyword file of ``tests_dir``, in file-name order (``structs``: through
    the msgspec Structs compiler of the shipped schemas)."""
    remotes = load_remotes(remotes_dir if remotes_dir is not None else find_remotes(tests_dir))
    oracle = Oracle(remotes) if mode != "root" else None
    compiler = Compiler(remotes, structs)
    try:
        for path in keyword_files(tests_dir, keywords):
            yield run_file(path, mode, compiler, oracle)
    finally:
        compiler.close()
