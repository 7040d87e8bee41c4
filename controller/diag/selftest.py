"""`diag selftest [COMPONENT]`: each part of the machine exercised in turn, pass or fail, and
what to check next. Motors and readers are tested by the MCU; the dice also by a distribution
check over many rolls; the zone antennas, buttons and LEDs with the technician's help (prompts).
"""

import asyncio
import enum
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from controller.diag.ports import (
    INPUTS,
    LEDS,
    SEAT_NAMES,
    ZONE_NAMES,
    Action,
    BenchMcu,
    BenchPanel,
    Part,
    Prompt,
)
from controller.errors import TableError, UsageError

PRESS_WAIT_S = 30.0
CHI2_LIMIT = 20.52
"""Chi-squared with 5 degrees of freedom at p = 0.001: fairer dice fail this once in 1000."""


class Component(enum.Enum):
    """What `selftest COMPONENT` may name."""

    SHUFFLER = "shuffler"
    STACKER = "stacker"
    LIFTS = "lifts"
    DICE = "dice"
    WALL_READER = "wall_reader"
    ANTENNAS = "antennas"
    LID = "lid"
    ESTOP = "estop"
    BUTTONS = "buttons"
    LEDS = "leds"


class Step(msgspec.Struct, frozen=True):
    """One checked thing."""

    name: str
    passed: bool
    detail: str = ""
    check: str = ""
    """What to check next when it failed."""


class SelftestReport(msgspec.Struct, frozen=True):
    """`diag selftest`."""

    steps: list[Step]

    @property
    def healthy(self) -> bool:
        """Every step passed."""
        return all(step.passed for step in self.steps)


class Prompter(Protocol):
    """The technician's side of a self-test (the terminal, or a client over the socket)."""

    async def tell(self, prompt: Prompt) -> None:
        """Show a prompt that needs no answer (a press is seen on the pins)."""
        ...

    async def ask(self, prompt: Prompt) -> bool:
        """Show a prompt and wait for yes (done) or no."""
        ...


CHECKS = {
    Part.SHUFFLER: "check the shuffler motor, its belt and its fuse",
    Part.STACKER: "clear the stacking head of jammed tiles, then check its motor and end switch",
    Part.LIFTS: "check the named lift's motor, rails and end switches",
    Part.DICE: "check the dice spinner motor under the dome",
    Part.WALL_READER: "check the wall reader's cable to the MCU board",
    Part.ZONE_READERS: "check the named antenna's cable and its reader board",
    Part.LID_SWITCH: "check the lid switch and its wire",
    Part.ESTOP_INPUT: "check the emergency stop contact and its wire",
}
NAMES = {
    Part.SHUFFLER: "shuffler",
    Part.STACKER: "stacking head",
    Part.LIFTS: "wall lifts",
    Part.DICE: "dice motor",
    Part.WALL_READER: "wall reader",
    Part.ZONE_READERS: "zone readers",
    Part.LID_SWITCH: "lid switch",
    Part.ESTOP_INPUT: "emergency stop input",
}


@dataclass
class SelfTest:
    """One self-test run on the ports."""

    mcu: BenchMcu
    panel: BenchPanel | None
    prompter: Prompter
    rolls: int = 60

    async def run(self, only: Component | None = None) -> SelftestReport:
        """Every component in turn (or only one)."""
        steps: list[Step] = []
        plan: dict[Component, Callable[[], Coroutine[Any, Any, list[Step]]]] = {
            Component.SHUFFLER: lambda: self._part(Part.SHUFFLER),
            Component.STACKER: lambda: self._part(Part.STACKER),
            Component.LIFTS: lambda: self._part(Part.LIFTS),
            Component.DICE: self._dice,
            Component.WALL_READER: lambda: self._part(Part.WALL_READER),
            Component.ANTENNAS: self._antennas,
            Component.LID: lambda: self._part(Part.LID_SWITCH),
            Component.ESTOP: lambda: self._part(Part.ESTOP_INPUT),
            Component.BUTTONS: self._buttons,
            Component.LEDS: self._leds,
        }
        for component, test in plan.items():
            if only is None or only is component:
                try:
                    steps += await test()
                except TableError as error:
                    steps.append(Step(component.value, False, str(error), "see diag status"))
        return SelftestReport(steps)

    async def _part(self, part: Part) -> list[Step]:
        result = await self.mcu.self_test(part)
        name = NAMES[part]
        if result.passed:
            return [Step(name, True)]
        what = f"the MCU finds the {result.what} failing" if result.what else "failed"
        return [Step(name, False, what, CHECKS[part])]

    async def _dice(self) -> list[Step]:
        steps = await self._part(Part.DICE)
        faces: Counter[int] = Counter()
        for _ in range(self.rolls):
            faces.update(await self.mcu.roll_dice())
        steps.append(dice_step(faces, self.rolls))
        return steps

    async def _antennas(self) -> list[Step]:
        steps = await self._part(Part.ZONE_READERS)
        for seat, letter in enumerate(SEAT_NAMES):
            for zone, zone_name in enumerate(ZONE_NAMES):
                target = f"{letter}-{zone_name}"
                text = f"put one tile on seat {letter}'s {zone_name} zone, then confirm"
                if not await self.prompter.ask(Prompt(Action.PLACE, target, text)):
                    steps.append(Step(f"{zone_name} antenna of seat {letter}", False, "skipped"))
                    continue
                uids = await self.mcu.read_zone(seat, zone)
                name = f"{zone_name} antenna of seat {letter}"
                if uids:
                    steps.append(Step(name, True, f"reads {len(uids)} tag(s)"))
                else:
                    steps.append(
                        Step(name, False, "reads no tag", CHECKS[Part.ZONE_READERS] + f" ({name})")
                    )
                await self.prompter.ask(Prompt(Action.CLEAR, target, "take the tile away"))
        return steps

    async def _buttons(self) -> list[Step]:
        if self.panel is None:
            return [Step("buttons", False, "no panel", "check [gpio] in the config")]
        panel = self.panel
        steps: list[Step] = []
        presses: asyncio.Queue[str] = asyncio.Queue()
        stop = panel.on_press(presses.put_nowait)
        try:
            readings = panel.inputs()
            for name in INPUTS:
                words = name.replace("_", " ")
                if name == "estop":
                    if readings[name]:
                        steps.append(
                            Step(
                                "emergency stop",
                                False,
                                "its circuit is open",
                                "release the mushroom button; else check its wire",
                            )
                        )
                    else:
                        steps.append(Step("emergency stop", True, "circuit closed"))
                    continue
                if readings[name]:
                    steps.append(
                        Step(
                            words,
                            False,
                            "reads pressed before anyone pressed it (stuck)",
                            f"free the {words} or check its wire for a short to ground",
                        )
                    )
                    continue
                await self.prompter.tell(Prompt(Action.PRESS, name, f"press the {words}"))
                steps.append(await _pressed(presses, name, words))
        finally:
            stop()
        return steps

    async def _leds(self) -> list[Step]:
        if self.panel is None:
            return [Step("LEDs", False, "no panel", "check [gpio] in the config")]
        steps = []
        for led in LEDS:
            self.panel.blink(led, 3)
            words = led.replace("_", " ")
            seen = await self.prompter.ask(Prompt(Action.LOOK, led, f"did the {words} blink?"))
            check = "" if seen else f"check the {words}, its resistor and its wire"
            steps.append(Step(words, seen, "seen blinking" if seen else "not seen", check))
        return steps


async def _pressed(presses: "asyncio.Queue[str]", name: str, words: str) -> Step:
    try:
        async with asyncio.timeout(PRESS_WAIT_S):
            while (await presses.get()) != name:
                pass
    except TimeoutError:
        return Step(words, False, f"no press within {PRESS_WAIT_S:.0f} s", f"check the {words}")
    return Step(words, True, "press seen")


def dice_step(faces: Counter[int], rolls: int) -> Step:
    """The distribution check over `rolls` rolls of two dice."""
    name = f"dice distribution ({rolls} rolls)"
    bad = sorted(face for face in faces if not 1 <= face <= 6)
    if bad:
        return Step(name, False, f"faces {bad} read", "check the dice reader")
    expected = 2 * rolls / 6
    chi2 = sum((faces.get(face, 0) - expected) ** 2 / expected for face in range(1, 7))
    counts = " ".join(f"{face}:{faces.get(face, 0)}" for face in range(1, 7))
    if chi2 > CHI2_LIMIT:
        return Step(
            name,
            False,
            f"uneven ({counts}; chi2 {chi2:.1f})",
            "check that the dome spins freely and the dice are not worn",
        )
    return Step(name, True, f"{counts} (chi2 {chi2:.1f})")


def component(name: str | None) -> Component | None:
    """The component named on the command line (None: all)."""
    if name is None:
        return None
    try:
        return Component(name.replace("-", "_"))
    except ValueError:
        known = ", ".join(c.value for c in Component)
        raise UsageError(f"unknown component '{name}': use one of {known}") from None
