"""Hypothesis profiles for the test suite.

``ci`` (the default) is derandomized: every run draws the same examples, so a CI result depends
only on the code. ``explore`` draws new examples on each run; use it to look for new faults,
e.g. ``HYPOTHESIS_PROFILE=explore python -m pytest tests/test_convert_llm_sdk_lux.py``. A fault it
finds becomes an explicit test.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
