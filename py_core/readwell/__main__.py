"""``python -m readwell``: the same command as ``readwell``."""

import sys

from .cli import main

sys.exit(main())
