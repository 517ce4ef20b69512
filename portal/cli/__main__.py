"""``python -m portal.cli``: the same commands as ``portal``."""

import sys

from portal.cli import main

sys.exit(main())
