"""The config file: the example documents every key and default; mistakes name file and line."""

import dataclasses
import re
from pathlib import Path

import pytest

from controller.config import TableConfig, load_config
from controller.errors import ConfigError
from controller.paths import RUN_DIR_VARIABLE

EXAMPLE = Path(__file__).parent.parent / "deploy" / "table.example.toml"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def _dotted_keys(obj: object, prefix: str = "") -> list[str]:
    keys = []
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            keys.extend(_dotted_keys(value, f"{prefix}{f.name}."))
        else:
            keys.append(f"{prefix}{f.name}")
    return keys


def test_example_config_loads_to_exactly_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RUN_DIR_VARIABLE)  # the installed defaults, not the tests' run folder
    assert load_config(EXAMPLE) == TableConfig()


def test_example_config_documents_every_key() -> None:
    text = EXAMPLE.read_text()
    for dotted in _dotted_keys(TableConfig()):
        section, key = dotted.rsplit(".", 1)
        assert f"[{section}]" in text, f"section [{section}] missing from the example"
        documented = re.search(rf"^(# )?{key} =|^\[{section}\.{key}\]", text, re.MULTILINE)
        assert documented, f"{dotted} is not documented in {EXAMPLE.name}"


def test_misspelt_key_is_named_with_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '[table]\nid = "t-7"\n\n[serial]\nbaudrat = 9600\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.line == 5
    assert "unknown key 'baudrat' in [serial]" in str(caught.value)
    assert "did you mean 'baudrate'" in str(caught.value)


def test_unknown_section_is_named_with_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '[table]\nid = "t-7"\n[mqqt]\nurl = "mqtt://hub"\n')
    with pytest.raises(ConfigError, match=r"table.toml:3: unknown section \[mqqt\]"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("[serial]\nbaudrate = 1200\n", 2, "'baudrate' is 1200; it must be at least 9600"),
        ('[serial]\nbaudrate = "fast"\n', 2, "'baudrate' must be an integer"),
        ('[table]\nruleset = "riichi"\n', 2, "must be one of zung-jung, sichuan, shanghai"),
        ('[table]\nid = "Table 1"\n', 2, "'id' is 'Table 1'; it must be 1-32 lower-case"),
        ('[session]\nplayers = ["a", "b", "c"]\n', 2, "a table seats exactly 4"),
        ('[session]\nplayers = ["a", "b", "c", "a"]\n', 2, "the same id twice"),
        ('[logging.levels]\nhubb = "debug"\n', 2, "unknown key 'hubb' in [logging.levels]"),
        ("[gpio.pins]\ndice_button = 40\n", 2, "it must be at most 27"),
        ('[mqtt]\ncert_file = "/etc/t.crt"\n', 1, "must be given together"),
        ("[table]\nid = \n", 2, "TOML syntax"),
        ("table = 3\n", 1, "'table' must be a table"),
    ],
)
def test_bad_values_name_line_and_problem(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, text))
    assert caught.value.line == line
    assert message in caught.value.message


def test_secret_is_never_shown_in_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "[mqtt]\npassword = 12345\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "12345" not in str(caught.value)


def test_config_is_frozen(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, "[serial]\nbaudrate = 57600\n"))
    assert config.serial.baudrate == 57600
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.serial.baudrate = 9600  # type: ignore[misc]
