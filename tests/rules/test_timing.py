"""Time limits and irregularity points live in the ruleset data, and a venue cannot set one out
of bounds: the ruleset refuses to load, naming the key (and `config check` the file)."""

from pathlib import Path

import pytest

from controller.cli import main
from controller.rules import RulesError, get_ruleset
from controller.rules.timing import TimingMode


def test_every_ruleset_carries_its_timing_and_penalty_points() -> None:
    wmc, sichuan, shanghai = (get_ruleset(n) for n in ("zung-jung", "sichuan", "shanghai"))
    assert (wmc.timing.turn_seconds, wmc.timing.hand_seconds, wmc.timing.forfeit_over) == (
        15,
        180,
        80,
    )
    assert wmc.timing.mode is TimingMode.POINTS and wmc.timing.grace_seconds == 15
    assert sichuan.timing.mode is TimingMode.WARNING and not shanghai.timing.charges_points
    assert wmc.penalties.false_win == 0  # seed 003: penalty tiles, no points


def test_a_venue_may_change_a_limit_within_bounds(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('name = "sichuan"\n[timing]\nmode = "points"\nturn_seconds = 20\n')
    rules = get_ruleset("sichuan", house)
    assert rules.timing.charges_points and rules.timing.turn_seconds == 20


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("[timing]\nturn_seconds = 2", "'timing.turn_seconds' must be between 5 and 600, not 2"),
        ("[timing]\nhand_seconds = 99999", "'timing.hand_seconds' must be between 30 and 7200"),
        ("[timing]\nstep_seconds = 0", "'timing.step_seconds' must be between 1 and 600"),
        ("[timing]\ngrace_seconds = -1", "'timing.grace_seconds' must be between 0 and 120"),
        ("[timing]\npenalty = 0", "'timing.penalty' must be between 1 and 100"),
        ("[timing]\nforfeit_over = 0", "'timing.forfeit_over' must be between 1 and 10000"),
        ('[timing]\nmode = "fine"', "'timing.mode' must be one of points, warning, not 'fine'"),
        ('[timing]\nturn_seconds = "15"', "'timing.turn_seconds' must be int or float"),
        ("[penalties]\nfalse_win = -5", "'penalties.false_win' must be between 0 and 1000"),
    ],
)
def test_out_of_bounds_values_are_refused_with_their_key(
    tmp_path: Path, table: str, message: str
) -> None:
    house = tmp_path / "house.toml"
    house.write_text(f'name = "zung-jung"\n{table}\n')
    with pytest.raises(RulesError, match=message):
        get_ruleset("zung-jung", house)


def test_config_check_refuses_a_venue_file_with_a_limit_out_of_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    house = tmp_path / "house.toml"
    house.write_text('name = "zung-jung"\n[timing]\nturn_seconds = 1\n')
    config = tmp_path / "table.toml"
    tileset = Path(__file__).parents[2] / "hardware" / "tilesets" / "sim-0.toml"
    config.write_text(
        f'[table]\nruleset = "zung-jung"\nruleset_file = "{house}"\ntileset = "{tileset}"\n'
    )
    assert main(["config", "check", str(config)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"mahjong-table: error: {house}: ")
    assert "'timing.turn_seconds' must be between 5 and 600, not 1" in error
