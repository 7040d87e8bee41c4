"""Logging: secrets never reach the journal; subsystem levels apply to their loggers only."""

import io
import logging

from controller.logs import setup_logging


def test_secrets_are_redacted() -> None:
    stream = io.StringIO()
    setup_logging("debug", secrets=["hunter2", "k3y"], stream=stream)
    logging.getLogger("controller.hub.publisher").info(
        "connecting with %s and %s", "hunter2", "k3y"
    )
    assert "hunter2" not in stream.getvalue()
    assert "k3y" not in stream.getvalue()
    assert "connecting with *** and ***" in stream.getvalue()


def test_subsystem_levels() -> None:
    stream = io.StringIO()
    setup_logging("warning", levels={"bridge": "debug"}, stream=stream)
    logging.getLogger("firmware_bridge.link").debug("frame crc error")
    logging.getLogger("controller.hub.table_side.outbox").info("hidden")
    assert "DEBUG firmware_bridge.link: frame crc error" in stream.getvalue()
    assert "hidden" not in stream.getvalue()
    logging.getLogger("firmware_bridge").setLevel(logging.NOTSET)
