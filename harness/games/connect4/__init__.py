"""connect4: its rules (re-exported here, so engine programs import ``harness.games.connect4`` unchanged)."""

from harness.games.connect4.rules import *  # noqa: F403
