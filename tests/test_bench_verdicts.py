"""scripts/bench_verdicts.py: the figures it takes from one validation report."""

from __future__ import annotations

from tests.conftest import load_script


def _report(rules: list[dict], rules_status: str, protocol_status: str = "pass", tactics: list[dict] | None = None) -> dict:
    return {"categories": {"protocol": {"status": protocol_status, "checks": []},
                           "rules": {"status": rules_status, "checks": rules},
                           "tactics": {"status": "weak", "checks": tactics or []}}}


PAIR = {"original": "n3-x-last-pebble-1", "answers": [-1, -1, -1], "twin_answers": [3, 3, 3]}


def test_a_proved_supply_count_is_a_failed_rules_check_with_basis_proved_and_its_pairs() -> None:
    bench = load_script("bench_verdicts")
    proved = {"status": "fail", "basis": "proved", "pairs": [PAIR], "chance": 1e-06}
    assert bench.outcome(_report([proved], "fail")) == {
        "rules_failed": True, "protocol_failed": False, "twins_asked": True, "proved": True, "chances": [1e-06]}
    # A miss moved to tactics (refuted: no chance) is no rules failure, though its twin was asked.
    moved = {"status": "fail", "basis": "", "pairs": [PAIR], "chance": None}
    assert bench.outcome(_report([], "pass", tactics=[moved])) == {
        "rules_failed": False, "protocol_failed": False, "twins_asked": True, "proved": False, "chances": []}
    # A rules failure of another kind proves nothing about the last pebble.
    other = {"status": "fail", "basis": "", "pairs": [], "chance": None}
    assert bench.outcome(_report([other], "fail", "fail")) == {
        "rules_failed": True, "protocol_failed": True, "twins_asked": False, "proved": False, "chances": []}
