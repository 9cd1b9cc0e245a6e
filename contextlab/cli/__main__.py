"""``python -m contextlab.cli``: the ``contextlab`` command."""

import sys

from . import main

sys.exit(main())
