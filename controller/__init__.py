"""The mahjong-table daemon: runs one automatic mahjong table and links it to the venue hub."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mahjong-table")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
