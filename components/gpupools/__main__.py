"""``python -m gpupools`` is the ``gpupools`` command."""

import sys

from .cli import main

sys.exit(main())
