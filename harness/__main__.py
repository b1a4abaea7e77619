"""``python -m harness`` runs the arena CLI."""

from harness.cli import main

main()
