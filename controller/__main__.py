"""Allows `python -m controller` as a synonym of the `mahjong-table` command."""

from controller.cli import main

raise SystemExit(main())
