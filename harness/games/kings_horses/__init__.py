"""kings_horses: its rules (re-exported here, so engine programs import ``harness.games.kings_horses`` unchanged)."""

from harness.games.kings_horses.rules import *  # noqa: F403
