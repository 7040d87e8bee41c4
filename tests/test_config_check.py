"""`config check` refuses every setting the daemon would refuse, as `file:line: ...`, exit 2,
and warns when a file holding secrets is readable by other users."""

import subprocess
import sys
from pathlib import Path

import pytest

from devsupport.pki import make_pki

ROOT = Path(__file__).parent.parent
TILESET = ROOT / "hardware" / "tilesets" / "sim-0.toml"
GOOD_KEY = "0123456789abcdef0123456789abcdef"


def _check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "config", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def _config(tmp_path: Path, extra: str, *, table: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ntileset = "{TILESET}"\n{table}\n{extra}')
    path.chmod(0o600)
    return path


def _error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    return result.stderr.removeprefix("mahjong-table: error: ").rstrip("\n")


def test_a_good_file_passes(tmp_path: Path) -> None:
    result = _check(_config(tmp_path, f'[mqtt]\nresult_key = "{GOOD_KEY}"\n'))
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout
    assert result.stderr == ""


def test_misspelt_pin_name_is_named_with_its_line(tmp_path: Path) -> None:
    path = _config(tmp_path, "[gpio.pins]\ndice_buton = 17\n")
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:5: unknown key 'dice_buton'")
    assert "did you mean 'dice_button'" in line


def test_two_signals_on_one_pin(tmp_path: Path) -> None:
    path = _config(tmp_path, "[gpio.pins]\nled_e = 4\nbuzzer = 4\n")
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:5: ")
    assert "GPIO4" in line
    assert "led_e" in line
    assert "buzzer" in line


def test_override_onto_a_pin_of_the_shipped_pinout(tmp_path: Path) -> None:
    path = _config(tmp_path, "[gpio.pins]\nbuzzer = 5\n")  # 5 is the dice button
    assert _error_line(_check(path)) == (
        f"{path}:5: [gpio.pins] puts buzzer on GPIO5, which dice_button already uses"
    )


@pytest.mark.parametrize(
    ("section", "key"),
    [("table", "tileset"), ("mqtt", "ca_file"), ("gpio", "pinout")],
)
def test_a_missing_file_is_named_with_its_key(tmp_path: Path, section: str, key: str) -> None:
    missing = tmp_path / "nope.toml"
    path = tmp_path / "table.toml"
    tileset = f'tileset = "{missing if key == "tileset" else TILESET}"'
    rest = "" if section == "table" else f'[{section}]\n{key} = "{missing}"\n'
    path.write_text(f"[table]\n{tileset}\n{rest}")
    line = _error_line(_check(path))
    assert str(missing) in line
    assert line.startswith(f"{path}:{2 if section == 'table' else 4}: ")
    assert f"(set by {section}.{key})" in line


def test_a_tileset_path_that_is_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ntileset = "{tmp_path}"\n')
    assert _error_line(_check(path)) == (
        f"{path}:2: tile-set file {tmp_path} is not a file (set by table.tileset)"
    )


def test_a_tileset_that_is_not_one(tmp_path: Path) -> None:
    bad = tmp_path / "tiles.toml"
    bad.write_text('format = 1\nname = "x"\n')
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ntileset = "{bad}"\n')
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:2: the tile-set file cannot be used")


def test_a_result_key_too_short_for_the_hub(tmp_path: Path) -> None:
    path = _config(tmp_path, '[mqtt]\nresult_key = "short"\n')
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:5: 'result_key' has 5 characters; the hub needs at least 16")
    assert "short" not in line.split(";")[1]  # the secret itself is never printed


def test_an_empty_serial_port(tmp_path: Path) -> None:
    path = _config(tmp_path, '[serial]\nport = ""\n')
    assert _error_line(_check(path)).startswith(f"{path}:5: 'port' is empty")


@pytest.mark.parametrize(
    ("ruleset", "house_rules", "named"),
    [
        ("shanghai", "[scoring]\nlimit = -5", "scoring.limit"),
        ("zung-jung", "[rotation]\nhands_per_round = 0", "rotation.hands_per_round"),
        ("zung-jung", "[wall]\nnever_drawn = 500", "never_drawn 500"),
        ("zung-jung", '[session]\nseating_draw = "yes"', "'session.seating_draw' must be bool"),
    ],
)
def test_a_ruleset_file_with_a_value_out_of_bounds(
    tmp_path: Path, ruleset: str, house_rules: str, named: str
) -> None:
    house = tmp_path / "house.toml"
    house.write_text(f'name = "{ruleset}"\n{house_rules}\n')
    path = _config(tmp_path, "", table=f'ruleset = "{ruleset}"\nruleset_file = "{house}"')
    line = _error_line(_check(path))
    assert line.startswith(f"{house}: ")
    assert named in line


def test_the_broker_url_error_shows_an_example_not_a_regex(tmp_path: Path) -> None:
    path = _config(tmp_path, '[mqtt]\nurl = "http://hub"\n')
    line = _error_line(_check(path))
    assert "mqtt://host:1883" in line
    assert "\\s" not in line


def test_warns_when_others_can_read_the_file_with_secrets(tmp_path: Path) -> None:
    path = _config(tmp_path, f'[mqtt]\nresult_key = "{GOOD_KEY}"\n')
    path.chmod(0o644)
    result = _check(path)
    assert result.returncode == 0
    assert result.stderr == (
        f"mahjong-table: warning: {path} holds mqtt secrets and other users can read it: "
        f"chmod o-r {path}\n"
    )


def test_warns_when_others_can_read_the_tables_tls_key(tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki")
    cert, key = pki.client_cert, pki.client_key
    key.chmod(0o644)
    path = _config(tmp_path, f'[mqtt]\ncert_file = "{cert}"\nkey_file = "{key}"\n')
    result = _check(path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"mahjong-table: warning: {key} is the table's TLS private key and other users can "
        f"read it: chmod o-r {key}\n"
    )


# What `run` refuses, `config check` refuses first (one preflight for both).


def test_a_broker_port_out_of_range_is_named(tmp_path: Path) -> None:
    path = _config(tmp_path, '[mqtt]\nurl = "mqtt://hub.local:99999"\n')
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:5: ")
    assert "bad port: a port is 1 to 65535" in line


def test_an_outbox_path_that_is_a_directory_is_named(tmp_path: Path) -> None:
    (tmp_path / "outbox").mkdir()
    path = _config(tmp_path, f'[outbox]\npath = "{tmp_path / "outbox"}"\n')
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:5: outbox {tmp_path / 'outbox'} is not a file")


def test_a_ca_file_holding_garbage_is_named(tmp_path: Path) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    path = _config(tmp_path, f'[mqtt]\nurl = "mqtts://hub.local"\nca_file = "{ca}"\n')
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:6: ca_file {ca} holds no PEM CA certificate")


def test_a_certificate_and_a_key_that_do_not_match_are_named(tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki")
    config = (
        f'[mqtt]\nca_file = "{pki.ca}"\ncert_file = "{pki.client_cert}"\n'
        f'key_file = "{pki.server_key}"\n'
    )
    line = _error_line(_check(_config(tmp_path, config)))
    assert "are not a PEM certificate and its private key" in line


def test_a_tile_set_one_tile_short_is_named(tmp_path: Path) -> None:
    lines = TILESET.read_text().splitlines()
    dropped = next(i for i, line in enumerate(lines) if line.endswith('"5p"'))
    short = tmp_path / "short.toml"
    short.write_text("\n".join(lines[:dropped] + lines[dropped + 1 :]) + "\n")
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ntileset = "{short}"\n')
    line = _error_line(_check(path))
    assert line.startswith(f"{path}:2: the tile-set file cannot be used: set ")
    assert "tile set is short one 5-dot" in line


def test_diag_mqtt_names_a_bad_port(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[mqtt]\nurl = "mqtt://hub.local:99999"\n')
    result = subprocess.run(
        [sys.executable, "-m", "controller", "diag", "mqtt", "--config", str(path),
         "--socket", str(tmp_path / "none.sock")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "bad port: a port is 1 to 65535" in result.stderr
    assert "internal error" not in result.stderr
