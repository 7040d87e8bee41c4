"""The shape of a table id, defined once for the config, the CLI and the hub contract.

A table id names the table in MQTT topics and results: 1-32 lower-case letters, digits, '_' or
'-', starting with a letter or digit (so it is always one topic level and one file name).
"""

import re

TABLE_ID_PATTERN = r"[a-z0-9][a-z0-9_-]{0,31}"
"""The table-id regular expression, unanchored."""

_TABLE_ID = re.compile(TABLE_ID_PATTERN)


def is_table_id(text: str) -> bool:
    """Whether `text` is a valid table id."""
    return _TABLE_ID.fullmatch(text) is not None
