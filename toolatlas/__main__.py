"""``python -m toolatlas``: the same CLI as the ``toolatlas`` script (what ``ray job submit`` runs)."""

import sys

from toolatlas.cli import main

sys.exit(main())
