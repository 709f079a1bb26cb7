"""``python -m hitbox.cli``: the `hitbox` command."""

import sys

from hitbox.cli import main

sys.exit(main())
