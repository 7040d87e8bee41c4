"""`diag gpio`: the panel's inputs now (buttons, emergency stop), and an LED blinked on request."""

import msgspec

from controller.diag.ports import INPUTS, LEDS, BenchPanel
from controller.errors import UsageError


class GpioReport(msgspec.Struct, frozen=True):
    """`diag gpio`."""

    inputs: dict[str, bool]
    blinked: str | None
    problems: list[str]

    @property
    def healthy(self) -> bool:
        """No input reads pressed while nobody plays, the e-stop circuit is closed."""
        return not self.problems


def gpio_report(panel: BenchPanel, blink: str | None, playing: bool = False) -> GpioReport:
    """Read the inputs; blink `blink` three times first."""
    if blink is not None:
        if blink not in LEDS:
            raise UsageError(f"unknown LED '{blink}': use one of {', '.join(LEDS)}")
        panel.blink(blink, 3)
    inputs = panel.inputs()
    problems = []
    if inputs.get("estop"):
        problems.append("the emergency stop circuit is open: release it or check its wire")
    for name in INPUTS:
        if name != "estop" and inputs.get(name) and not playing:
            problems.append(f"{name.replace('_', ' ')} reads pressed: stuck, or a short")
    return GpioReport(inputs, blink, problems)
