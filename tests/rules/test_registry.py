"""Finding rulesets, venue overrides of the data file, and data that does not fit the code."""

from pathlib import Path

import pytest

from controller.rules import MODULES, RULESET_NAMES, RulesError, get_ruleset


def test_every_known_name_has_a_module_path() -> None:
    assert set(MODULES) == set(RULESET_NAMES) == {"zung-jung", "sichuan", "shanghai"}


def test_an_unknown_name_is_a_clear_error() -> None:
    with pytest.raises(RulesError, match="unknown ruleset 'riichi'"):
        get_ruleset("riichi")


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_every_known_name_builds_its_ruleset_from_its_shipped_data(name: str) -> None:
    ruleset = get_ruleset(name)
    assert ruleset.name == name and ruleset.data["name"] == name


def test_a_venue_file_changes_only_what_it_names(tmp_path: Path) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text(
        "[scoring]\nlimit = 500\n[settlement]\ndiscard_share = 30\n[claims]\nwindow_seconds = 1.5\n"
    )
    house = get_ruleset("zung-jung", venue)
    assert house.data["scoring"]["limit"] == 500
    assert house.data["scoring"]["chicken_hand"] == 1
    assert house.claim_window_s == 1.5
    assert get_ruleset("zung-jung").data["scoring"]["limit"] == 320
    assert get_ruleset("zung-jung").claim_window_s == 3.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[scoring]\nlimmit = 500\n", "unknown key 'scoring.limmit'"),
        ('[patterns."Lucky Dragon"]\nvalue = 5\n', "unknown key 'patterns.Lucky Dragon'"),
        ("[scoring]\nlimit = 'high'\n", "scoring.limit' must be int"),
        ('name = "sichuan"\n', "is for 'sichuan'"),
        ("[wall]\ntiles_per_side = 36\n", "do not hold 136 tiles"),
        ('[deal]\nblocks = ["EEEE"]\n', "dealer takes 14"),
        ("[claims]\nrob_kong = ['any']\n", "rob_kong"),
        ('[rotation]\ndealer = "sometimes"\n', "rotation.dealer"),
        ('[hand]\nforms = ["regular", "knitted"]\n', "unknown form"),
        ("[scoring\n", "house.toml"),
    ],
)
def test_a_bad_venue_file_names_the_problem(tmp_path: Path, text: str, message: str) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text(text)
    with pytest.raises(RulesError, match=message):
        get_ruleset("zung-jung", venue)


def test_a_missing_venue_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read ruleset file"):
        get_ruleset("zung-jung", tmp_path / "nope.toml")
