"""The table's motors as the simulated MCU drives them: build, raise, lower, dice, self-test.

Durations are those of the real machine times the speed factor (0 = instant); each motion has
the maximum duration its command carried, measured in machine time, and stops when it is spent.
"""

import asyncio
import random
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from firmware_bridge.fields import Message
from firmware_bridge.messages import (
    BuildState,
    Component,
    Dice,
    FaultCode,
    Motion,
    MotionDone,
    Motor,
    Outcome,
    SelfTestResult,
    TileSetKind,
    WallBuilt,
    WallTile,
)
from firmware_bridge.sim.model import Slot, TableModel, WallLayout

LIFTS_MASK = sum(
    1 << m for m in (Motor.LIFT_EAST, Motor.LIFT_SOUTH, Motor.LIFT_WEST, Motor.LIFT_NORTH)
)
MOTORS = {
    Motion.BUILD: (1 << Motor.SHUFFLER) | (1 << Motor.STACKER),
    Motion.RAISE: LIFTS_MASK,
    Motion.LOWER: 1 << Motor.PLATFORM,
    Motion.DICE: 1 << Motor.DICE,
    Motion.SELF_TEST: 0,
}


@dataclass(frozen=True)
class Timing:
    """Machine time of each movement at speed 1, in seconds."""

    per_tile: float = 0.12
    raise_walls: float = 2.5
    lower_platform: float = 3.0
    dice: float = 1.2
    self_test: float = 1.0


class Budget:
    """What is left of a motion's maximum duration, in machine seconds."""

    def __init__(self, seconds: float) -> None:
        self.left = seconds


Routine = Callable[[Budget], Coroutine[Any, Any, None]]


class MotorStopped(Exception):
    """A motion ended early with a fault (jam or spent maximum duration)."""

    def __init__(self, code: FaultCode, motor: Motor, outcome: Outcome) -> None:
        super().__init__(code.name)
        self.code = code
        self.motor = motor
        self.outcome = outcome


class Machine:
    """Runs motions as tasks; keeps the motor mask and the wall record; reports by callback."""

    def __init__(
        self,
        model: TableModel,
        send: Callable[[Message], None],
        fault: Callable[[FaultCode, int], None],
        *,
        seed: int,
        speed: float,
        timing: Timing | None = None,
    ) -> None:
        self.model = model
        self.speed = speed
        self.timing = timing or Timing()
        self._send = send
        self._fault = fault
        self._dice_rng = random.Random(f"{seed}:dice")
        self.running: dict[Motion, asyncio.Task[None]] = {}
        self.motors = 0
        self.build_state = BuildState.EMPTY
        self.wall_record: dict[Slot, int] = {}
        self.wall_layout: WallLayout | None = None
        self.jam_at: int | None = model.faults.jam_at_tile
        self.jammed = False
        """The stacking head jammed in the last build (a new build means it was cleared)."""
        self.dice_rolls = 0
        self.last_dice = (0, 0)

    def start(self, motion: Motion, budget_ms: int, routine: Routine) -> None:
        """Run `routine` as `motion`; it reports `motion_done` when it ends."""
        budget = Budget(budget_ms / 1000)
        self.running[motion] = asyncio.create_task(self._run(motion, routine, budget))

    def stop_all(self, report: bool = True) -> None:
        """Stop every motor now (reporting each motion as STOPPED unless the MCU is rebooting)."""
        for motion, task in list(self.running.items()):
            task.cancel()
            del self.running[motion]
            if motion is Motion.BUILD:
                self.build_state = BuildState.FAILED
            if report:
                self._send(MotionDone(motion, Outcome.STOPPED))
        self.motors = 0

    async def _run(self, motion: Motion, routine: Routine, budget: Budget) -> None:
        self.motors |= MOTORS[motion]
        outcome = Outcome.DONE
        try:
            await routine(budget)  # made here: a motion stopped before it began leaves none
        except MotorStopped as stop:
            outcome = stop.outcome
            self._fault(stop.code, int(stop.motor))
        finally:
            self.motors &= ~MOTORS[motion]
        self.running.pop(motion, None)
        self._send(MotionDone(motion, outcome))

    async def _spend(self, budget: Budget, seconds: float, motor: Motor) -> None:
        if seconds > budget.left:
            await self._pause(budget.left)
            raise MotorStopped(FaultCode.MOTOR_TIMEOUT, motor, Outcome.TIMED_OUT)
        budget.left -= seconds
        await self._pause(seconds)

    async def _pause(self, seconds: float) -> None:
        if self.speed > 0:  # an instant machine (0) takes no time: a build comes as one burst
            await asyncio.sleep(seconds * self.speed)

    async def build(self, budget: Budget, kind: TileSetKind, layout: WallLayout) -> None:
        """Shuffle the next set and stack the four walls, streaming each tile placed."""
        plan = self.model.plan_build(kind, layout)
        self.jammed = False
        self.build_state = BuildState.BUILDING
        self.wall_record.clear()
        self.wall_layout = layout
        try:
            await self._place_all(budget, plan)
        except BaseException:
            self.build_state = BuildState.FAILED
            raise
        self.build_state = BuildState.BUILT

    async def _place_all(self, budget: Budget, plan: list[tuple[Slot, Any]]) -> None:
        jam_at, self.jam_at = self.jam_at, None
        for side in range(4):
            placed = [(slot, tile) for slot, tile in plan if slot[0] == side]
            for slot, tile in placed:
                if jam_at is not None and len(self.wall_record) == jam_at:
                    self.jammed = True
                    raise MotorStopped(FaultCode.JAM, Motor.STACKER, Outcome.FAILED)
                await self._spend(budget, self.timing.per_tile, Motor.STACKER)
                self.model.place_below(slot, tile)
                uid = 0 if 0 in self.model.faults.dead_antennas else tile.uid
                self.wall_record[slot] = uid
                self._send(WallTile(*slot, uid))
            self._send(WallBuilt(side, len(placed)))

    async def raise_walls(self, budget: Budget) -> None:
        """The four lifts bring the built walls up."""
        await self._spend(budget, self.timing.raise_walls, Motor.LIFT_EAST)
        self.model.raise_walls()
        self.build_state = BuildState.EMPTY

    async def lower_platform(self, budget: Budget) -> None:
        """Every tile on the surface drops into the hopper."""
        await self._spend(budget, self.timing.lower_platform, Motor.PLATFORM)
        self.model.lower_platform()

    async def roll_dice(self, budget: Budget) -> None:
        """Spin the dice and report them."""
        await self._spend(budget, self.timing.dice, Motor.DICE)
        self.last_dice = (self._dice_rng.randint(1, 6), self._dice_rng.randint(1, 6))
        self.dice_rolls += 1
        self._send(Dice(*self.last_dice))

    async def self_test(self, budget: Budget, component: Component) -> None:
        """Exercise a component and report whether it works."""
        await self._spend(budget, self.timing.self_test, Motor.SHUFFLER)
        dead = self.model.faults.dead_antennas
        jammed = self.jam_at is not None or self.jammed
        failing = {
            Component.WALL_READER: [a for a in dead if a == 0],
            Component.ZONE_READERS: [a for a in dead if a > 0],
            # A jammed stacking head does not complete its test stroke.
            Component.STACKER: [int(Motor.STACKER)] if jammed else [],
        }.get(component, [])
        self._send(SelfTestResult(component, not failing, failing[0] if failing else 0))
