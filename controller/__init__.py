"""The mahjong-table daemon: runs one automatic mahjong table and links it to the venue hub."""

# The one place the version is written (pyproject.toml reads it from here); a constant, so
# `mahjong-table --version` does not pay for importlib.metadata.
__version__ = "0.1.0"
