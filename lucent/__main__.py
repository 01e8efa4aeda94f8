"""``python -m lucent``: the ``lucent`` command line (:mod:`lucent.cli`)."""

import sys

from lucent.cli import main

sys.exit(main())
