"""Every diag command through the control socket of a running `run --sim` daemon, on a healthy
table and on faulty ones (a jammed stacking head, a stuck button), and motors refused in play."""

import os
import re
import subprocess
import sys
from pathlib import Path

from firmware_bridge.tileset import read_tileset
from tests.diag.rig import daemon, diag, diag_json

REPO = Path(__file__).parents[2]


def tileset_of(path: Path) -> dict[int, str]:
    """UID -> face of a tile-set file, as the daemon reads it."""
    return read_tileset(path).tile_of()


def test_a_healthy_table_answers_every_command_through_the_socket(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "0") as table:
        table.wait_for("over (")
        sock = ("--socket", str(table.socket), "--config", str(table.config))
        status, report = diag_json("status", *sock)
        assert status == 0, report["problems"]
        assert report["mode"] == "daemon"
        assert report["table"] == "table-07"
        assert report["phase"] == "session_over"
        assert report["hands_played"] == 1
        assert [s["seat"] for s in report["seats"]] == ["E", "S", "W", "N"]
        assert report["mcu"]["connected"] and report["mcu"]["firmware"]
        assert report["versions"]["ruleset"] == "zung-jung"
        assert report["boot_count"] == 1
        text = diag("status", *sock)
        assert text.returncode == 0
        assert "Table table-07: OK   [daemon]" in text.stdout

        status, events = diag_json("events", *sock)  # the hand just played, as the referee saw it
        texts = [line["text"] for line in events["lines"]]
        assert status == 0 and len(texts) <= 200
        assert sum(bool(re.match(r"seat [ESWN]: (draw|discard) ", t)) for t in texts) > 20, texts
        assert any(t.startswith("now session over") for t in texts), texts
        assert texts.count("now playing (hand 1)") <= 1  # a change of phase, not of the view
        assert not any(re.search(r"\b[0-9A-F]{16}\b", t) for t in texts), "raw tag UIDs"

        done = diag("selftest", *sock, "--yes", "--rolls", "30")
        assert done.returncode == 0, done.stdout
        assert "Result: all steps passed" in done.stdout
        assert "PASS  hand antenna of seat N: reads 1 tag(s)" in done.stdout
        assert "PASS  declare w: press seen" in done.stdout
        assert ">> press the dice button" in done.stderr

        status, tiles = diag_json("tiles", *sock)
        assert status == 0
        assert sorted(s["set"] for s in tiles["sets"]) == ["A", "B"]
        assert all(s["tiles_read"] == 144 and not s["missing"] for s in tiles["sets"])

        out = tmp_path / "tilesets"
        enrolled = diag("tiles", "enroll", "venue-1", *sock, "--yes", "--dir", str(out))
        assert enrolled.returncode == 0, enrolled.stderr
        assert f"288 tags written to {out / 'venue-1.toml'}" in enrolled.stdout
        assert ">> set B: put every 8f of this set on seat E's hand zone" in enrolled.stderr
        # the file is the simulated table's own tile set (seed 0), learnt tag by tag
        assert tileset_of(out / "venue-1.toml") == tileset_of(REPO / "hardware/tilesets/sim-0.toml")

        status, gpio = diag_json("gpio", *sock, "--blink", "led_e")
        assert status == 0
        assert gpio["blinked"] == "led_e"
        assert gpio["inputs"]["estop"] is False

        status, events = diag_json("events", *sock)
        assert status == 0
        assert len(events["lines"]) <= 200  # the ring holds the newest lines

        status, config = diag_json("config", *sock)
        assert status == 0
        keys = {key["key"]: key for key in config["keys"]}
        assert keys["table.id"] == {"key": "table.id", "value": "table-07", "default": False}
        assert keys["serial.baudrate"]["default"] is True


def test_enrolment_directly_writes_a_file_the_table_reads(tmp_path: Path) -> None:
    out = tmp_path / "tilesets"
    done = diag("tiles", "enroll", "venue-2", "--sim", "--yes", "--dir", str(out))
    assert done.returncode == 0, done.stderr
    written = (out / "venue-2.toml").read_text()
    assert 'name = "venue-2"' in written
    assert tileset_of(out / "venue-2.toml") == tileset_of(REPO / "hardware/tilesets/sim-0.toml")
    again = diag("tiles", "enroll", "venue-2", "--sim", "--yes", "--dir", str(out))
    assert again.returncode == 2
    assert "exists already" in again.stderr


def test_a_simulated_enrolment_writes_only_into_a_scratch_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = diag(
        "tiles", "enroll", "venue-3", "--sim", "--yes", env={**os.environ, "TMPDIR": str(scratch)}
    )
    assert done.returncode == 0, done.stderr
    written = list(scratch.glob("mahjong-enrol-sim-*/venue-3.toml"))
    assert len(written) == 1
    assert f"written to {written[0]}" in done.stdout


def test_a_tile_set_name_is_checked_by_the_sockets_rule_and_cannot_leave_dir(
    tmp_path: Path,
) -> None:
    out = tmp_path / "deep" / "er" / "tilesets"
    for name in ("bad/name", "../../../escaped", "..", ".hidden"):
        done = diag("tiles", "enroll", name, "--sim", "--yes", "--dir", str(out))
        assert done.returncode == 2, (name, done.stdout)
        assert "is not a name: use 1 to 64 letters, digits" in done.stderr
    assert not list(tmp_path.rglob("*.toml"))


def test_a_jammed_table_says_so_in_status_and_selftest(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "0", "--sim-jam-at", "10") as table:
        table.wait_for("fault: the stacking head jammed")  # (the test's folder says "jammed" too)
        sock = ("--socket", str(table.socket), "--config", str(table.config))
        done = diag("status", *sock)
        assert done.returncode == 1
        assert "Table table-07: PROBLEM" in done.stdout
        assert (
            "fault: the stacking head jammed: clear the jam, then press the dice button to go on"
            in done.stdout
        )
        command = [sys.executable, "-m", "controller", "diag", "events", "--follow", *sock]
        follow = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert follow.stdout is not None
            recent = []  # the recent lines come first, the jam among them
            while "error: fault: the stacking head jammed" not in (
                line := follow.stdout.readline()
            ):
                assert line, "the feed ended"
                recent.append(line)
            assert any("mcu   mcu Fault(code=jam, detail=1)" in line for line in recent)
            test = diag("selftest", "stacker", *sock, "--yes")
            assert test.returncode == 1
            assert "FAIL  stacking head" in test.stdout
            assert "clear the stacking head of jammed tiles" in test.stdout
            while "SelfTestResult" not in (line := follow.stdout.readline()):
                assert line, "the feed ended"
            assert "component=stacker, passed=False" in line
            # Pressing the dice button in the button test must not acknowledge the fault.
            buttons = diag("selftest", "buttons", *sock, "--yes")
            assert buttons.returncode == 0, buttons.stdout
            assert "PASS  dice button: press seen" in buttons.stdout
            _, after = diag_json("status", *sock)
            assert after["phase"] == "fault"
            assert after["fault"].startswith("the stacking head jammed")
        finally:
            follow.terminate()
            follow.wait()
            assert follow.stdout is not None
            follow.stdout.close()


def test_a_stuck_button_is_named_by_status_gpio_and_selftest(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "0", "--sim-stuck", "declare_n") as table:
        table.wait_for("over (")
        sock = ("--socket", str(table.socket), "--config", str(table.config))
        status, report = diag_json("status", *sock)
        assert status == 1
        assert report["problems"] == [
            "declare n reads pressed: a stuck button or a short in its wire; check the button"
        ]
        status, gpio = diag_json("gpio", *sock)
        assert status == 1
        assert gpio["inputs"]["declare_n"] is True
        test = diag("selftest", "buttons", *sock, "--yes")
        assert test.returncode == 1
        assert "FAIL  declare n: reads pressed before anyone pressed it (stuck)" in test.stdout


def test_motors_are_refused_during_the_seating_draw(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "600") as table:
        table.wait_for("seating draw: lay the four wind tiles")
        sock = ("--socket", str(table.socket), "--config", str(table.config))
        done = diag("selftest", *sock, "--yes")
        assert done.returncode == 1
        assert "the seating draw is in play (seating): motors move only between" in done.stderr


def test_motors_are_refused_while_a_hand_is_in_play(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "600", seating_draw=False) as table:
        table.wait_for("hand 1: building")
        sock = ("--socket", str(table.socket), "--config", str(table.config))
        actions = (
            ("selftest",),
            ("tiles",),
            ("tiles", "enroll", "x"),
            ("gpio", "--blink", "led_e"),
        )
        for action in actions:
            done = diag(*action, *sock, "--yes")
            assert done.returncode == 1
            assert "is in play" in done.stderr
            assert "motors move only between hands" in done.stderr
            assert len(done.stderr.strip().splitlines()) == 1
        assert diag("status", *sock).returncode == 0
