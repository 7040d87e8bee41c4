"""Whether this machine has GPIO pins gpiozero can drive, said in one line when it has none."""

import warnings

from gpiozero import Device
from gpiozero.exc import BadPinFactory

from controller.errors import UsageError


class GpioUnavailable(UsageError):
    """No GPIO on this machine (not a Pi, or no pin library installed): how to run without it."""

    def __init__(self) -> None:
        super().__init__(
            "no GPIO is available on this machine (not a Raspberry Pi, or no pin library: "
            "install mahjong-table[pi]); run the simulated table with `mahjong-table run --sim`, "
            "or set [gpio] enabled = false for a bench table without a control panel"
        )


def ensure_gpio() -> None:
    """Pick gpiozero's pin factory now, quietly; GpioUnavailable if there is none."""
    with warnings.catch_warnings():
        # gpiozero warns once per library it falls back from; one sentence says it better.
        warnings.simplefilter("ignore")
        try:
            Device.ensure_pin_factory()
        except (BadPinFactory, ImportError, OSError) as exc:
            raise GpioUnavailable() from exc
