"""``python -m workbench.measure.comm pingpong|datagen ...``: see :mod:`workbench.measure.comm.sweep`."""

import sys

from workbench.measure.comm.sweep import main

sys.exit(main())
