"""``python -m hitbox.cli``: the `hitbox` command."""

import sys

from hitbox.cli import program

sys.exit(program())
