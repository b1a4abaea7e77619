"""betsy: its rules (re-exported here, so engine programs import ``harness.games.betsy`` unchanged)."""

from harness.games.betsy.rules import *  # noqa: F403
