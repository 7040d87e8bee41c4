"""Error types shared by the CLI and the daemon, split by who must act on them."""


class TableError(Exception):
    """Base of every error the table reports in plain words instead of a traceback."""


class UsageError(TableError, ValueError):
    """Bad command-line usage or bad input data: the caller must fix what they passed (exit 2)."""


class ConfigError(UsageError):
    """A configuration file is malformed or holds a value out of bounds."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


class RuntimeFailure(TableError, RuntimeError):
    """Something outside the caller's input failed at run time (device, broker, disk) (exit 1)."""


def describe_os_error(error: OSError) -> str:
    """An operating-system error as a sentence: what failed on which file, without `[Errno N]`."""
    what = error.strerror or type(error).__name__
    if error.filename is None:
        return what[:1].lower() + what[1:]
    return f"{error.filename}: {what[:1].lower() + what[1:]}"
