"""Conversion conformance: what every ``lucent.convert`` pair promises, checked per pair.

For every pair (source, target, kind) with source != target that ``lucent.convert`` supports,
directly or through Lux (`pairs`), over the corpus documents of the source kind and at least
``--count`` documents drawn from the strategies codegen renders from the source schema
(`inputs`), each input is converted once and its result checked three ways (`checks`):

* validity: the output validates against the target's JSON Schema; jsonschema is the oracle,
  with ECMA-262 patterns and the formats lucent asserts. An output that does not is counted apart,
  as having no valid image, only when every place where it breaks the schema is a target path
  the spec declares unreachable (``[maps.NAME.unreachable]``, compiled into
  ``lucent.generated.convert_registry.UNREACHABLE``) and an Invalid diagnostic names that path;
  the bar is valid + no valid image = inputs, and the table prints both;
* conservation: every leaf of the source appears in the output or lies under a path a
  diagnostic names (``tests.conservation``);
* round trips: X -> Lux -> X and Lux -> X -> Lux give back the source (as JSON values) whenever
  every diagnostic of both hops is Exact (lucent reports none then).

``python -m tests.convert_conformance --count 1000`` prints the table and exits 1 when a bar is
missed, with the smallest failing inputs it can find (`shrink`) per pair.
"""
