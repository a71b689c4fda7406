from gamemarket.cli import run

raise SystemExit(run())
