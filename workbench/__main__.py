"""``python -m workbench``: the ``workbench`` command (:mod:`workbench.cli`)."""

import sys

from workbench.cli import main

sys.exit(main())
