"""lucent's build step: schemas/ and mappings/ in, generated/ out (``python -m codegen``)."""
