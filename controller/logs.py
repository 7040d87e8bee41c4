"""Logging to stderr for journald: one logger per module, levels per subsystem, secrets redacted."""

import logging
import sys
from collections.abc import Iterable, Mapping

REDACTED = "***"

# Logger name prefixes of each subsystem named in the config's [logging.levels].
SUBSYSTEM_LOGGERS = {
    "rules": "controller.rules",
    "table": "controller.table",
    "hub": "controller.hub",
    "devices": "controller.devices",
    "sim": "controller.sim",
    "diag": "controller.diag",
    "bridge": "firmware_bridge",
    "config": "controller.config",
}


class RedactingFilter(logging.Filter):
    """Replaces every known secret in a log record's final text with ***."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        """Render the message once, redact it, and keep the record."""
        if not self.secrets:
            return True
        message = record.getMessage()
        for secret in self.secrets:
            message = message.replace(secret, REDACTED)
        record.msg, record.args = message, None
        return True


def setup_logging(
    level: str = "info",
    levels: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
    stream: object = None,
) -> logging.Handler:
    """Send every log record to stderr as `LEVEL logger: message` (journald adds the time)."""
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for subsystem, sub_level in (levels or {}).items():
        logging.getLogger(SUBSYSTEM_LOGGERS[subsystem]).setLevel(sub_level.upper())
    return handler
