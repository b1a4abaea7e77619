"""The length of ``arena validate``'s progress bar, counted from the same suites the checks run."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.validate.validator import ValidationSettings


def validation_steps(settings: ValidationSettings) -> int:
    """The steps of ``arena validate``'s bar for a program that answers (one per check asked, two per
    strength game: played, then analysed; a last pebble's further asks and its twin's are no steps): what
    harness.validate.validator and harness.validate.kings_horses report through their ``progress``
    callback (tests/test_progress.py counts them on real runs)."""
    rules = settings.play.rules
    if rules.own_validation:
        from harness.validate.kings_horses import suite

        found = suite(1, settings.quick)
        return len(found) + sum(1 for case in found if case.band in ("small", "medium") or case.id == "seed-example")
    plan = rules.suites()
    sizes = settings.sizes or rules.example_sizes
    steps = (1 + sum(1 for _ in plan.rules(sizes, settings.quick)) + len(plan.last_pebble(sizes))
             + sum(1 for _ in plan.robustness(settings.quick)) + len(plan.tactics(sizes, settings.quick)))
    if plan.has_exact_tables:
        from harness.games.betsy.exact import exact_suite, open_table

        table = open_table()
        if table is not None:
            try:
                steps += len(exact_suite(table, 10 if settings.quick else 24))
            finally:
                table.close()
    if settings.games > 0:
        steps += 2 * settings.games * (2 if settings.quick else 3)  # each game played, then analysed
    return steps
