"""Conformance harness: lucent's decoders against jsonschema, the oracle.

The decoders must accept exactly what JSON Schema accepts (draft 2020-12;
draft-07 for llm-sdk). For every schema and every top-level kind (`kinds.KINDS`)
the harness feeds lucent and the oracle the same JSON text:

* the corpus documents that are in a seed format (`corpus`), with the verdicts
  of ``sparktide-derived/requests/INDEX.json``;
* valid instances drawn from the strategies that ``codegen.strategies`` renders
  from the schema (`generate`), spelled in several JSON styles (`spelling`);
* single mutations of those instances (`mutations`), and mutations of their
  JSON text (`probes`: duplicate names, surrogate escapes, body size);
* optionally (``--independent N``), documents drawn by hypothesis-jsonschema,
  an independent generator, where it can resolve the schema.

Every disagreement must be one of the written departures (`departures`,
``EXCEPTIONS.md``); ``python -m tests.conformance --count N`` prints the counts
and exits non-zero on any other (`runner`).
"""
