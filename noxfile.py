"""nox sessions: ``nox -s tests``, ``generate``, ``conformance``, ``schema-suite``, ``typecheck``,
``corpus``, ``bench``, ``fuzz``.

``nox -s generate -- --check`` is ``python -m codegen --check``: it writes nothing and fails when
generated/ differs from a fresh codegen run.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
PYTHON = "3.11"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite (unit tests, cases, corpus, a small conformance budget), on every core
    (pytest-xdist; ``loadfile`` keeps each file on one worker: tests/test_codegen.py edits a
    generated file and restores it, and its neighbours must not see it in between)."""
    session.install("-e", ".[tests,codegen]")
    session.run("python", "-m", "pytest", "-n", "auto", "--dist", "loadfile", *session.posargs)


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Regenerate generated/ from schemas/ and mappings/ (``-- --check`` only compares).

    ``nox -s generate -- vendor [--check]`` re-extracts schemas/vendor/ from ../shared/specs."""
    session.install(".[codegen]")
    session.run("python", "-m", "codegen", *session.posargs)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """lucent.decode against jsonschema on the corpus, 2,000 generated documents and 2,000
    mutations per schema and kind; tests/conformance/EXCEPTIONS.md lists the only allowed
    differences. Prints the counts per schema; fails on any unlisted disagreement."""
    session.install("-e", ".[tests]")
    session.run("python", "-m", "tests.conformance", "--count", "2000", "--independent", "30", *session.posargs)
    # Streams: assemble(convert_stream(s)) == convert(assemble(s)), 500 generated streams per pair;
    # then every target's output (all seven formats) read back by lucent's assembler, failing on a
    # refusal the conversion did not report as Invalid.
    session.run("python", "-m", "tests.stream_conformance", "--count", "500")
    # Conversions: validity, conservation and round trips per pair, 1,000 generated inputs per
    # source kind plus the corpus.
    session.run("python", "-m", "tests.convert_conformance", "--count", "1000")


@nox.session(python=PYTHON, name="schema-suite")
def schema_suite(session: nox.Session) -> None:
    """The official JSON-Schema-Test-Suite (draft 2020-12, ../shared/json-schema-test-suite)
    through codegen and lucent.decode, as the document root, as a $defs member and as a
    property: per keyword file tests, pass, refused, wrong, crash (issue 17;
    ``-- --keyword not -v`` narrows it, ``-- --suite DIR`` takes any folder in the suite's
    format)."""
    session.install("-e", ".[tests,codegen]")
    for mode in ("root", "defs", "property"):
        session.run("python", "-m", "tests.schema_suite", "--mode", mode, *session.posargs)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the runtime and the generated bindings, as installed (lucent.generated)."""
    session.install(".[typecheck]")  # not editable: generated/ is laid out as lucent/generated
    session.chdir(session.create_tmp())
    session.run("python", "-m", "mypy", "--strict", "-p", "lucent")


@nox.session(python=PYTHON)
def corpus(session: nox.Session) -> None:
    """The vendor conversions on the lingua corpus (issue 5): one row per pair (X -> lux -> X
    and X -> Y, per kind) with cases, exact, degraded (reasons counted), no valid image and
    failed; ``-- --format X --kind K --limit N`` narrows it (tests/vendor_convert_corpus.py)."""
    session.install("-e", ".[tests]")
    session.run("python", "-m", "tests.vendor_convert_corpus", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The benchmark suite (bench/, issue 6): ratios against orjson, json, jsonschema, pydantic
    and LiteLLM measured in one process, results in bench/results/ (``-- --quick``: a few
    minutes). Not editable, so that the import time is that of an installed lucent."""
    session.install(".[bench]")
    session.run("python", "-m", "bench", *session.posargs)


@nox.session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """Fuzz decode (every schema and definition), the SSE parser, the stream assemblers, stream
    conversion and convert with hypothesis and atheris, from the seeds of tests/data and
    ../shared/corpus and ../shared/cases; time hostile inputs against valid ones of their size and
    the schema patterns' worst inputs (tests/fuzz). Long budget by default: 1,000,000 atheris
    executions and 30 hypothesis inputs per target; ``nox -s fuzz -- --execs N --examples M``
    sets them (``python -m tests.fuzz --help``). The test suite runs a short budget
    (tests/test_fuzz.py). Fails on a crash, a loss, a time ratio over 50 or a pattern hazard."""
    session.install("-e", ".[tests,codegen,fuzz]")
    session.run("python", "-m", "tests.fuzz", *(session.posargs or ["--execs", "1000000", "--examples", "30"]))
    session.run("python", "-m", "pytest", "-m", "timing")  # the timed regressions, kept out of the suite
