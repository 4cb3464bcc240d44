"""``python -m mqlab`` runs the ``mqlab`` command."""

import sys

from mqlab.cli import main

sys.exit(main())
