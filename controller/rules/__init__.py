"""The rules engine, pure: tiles, notation, win shapes, wall and deal geometry, rulesets."""
