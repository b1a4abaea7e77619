"""``python -m harness`` runs the arena CLI."""

from harness.cli.app import main

main()
