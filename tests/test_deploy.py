"""Deploying tables: deploy/install.sh under a prefix (twice, then uninstalled: nothing left),
its GPIO backend choice and its config check gate, and the venue playbook checked by
ansible-playbook against a local inventory; a venue deployed with TLS and house rules (once,
read by the tests that check it): its table's systemd unit as systemd reads it, and its real
mosquitto and table each reading their files as their own users."""

import grp
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

# Installs and playbook runs are CPU work with generous timeouts: starvable.
pytestmark = pytest.mark.starvable
REPO = Path(__file__).parents[1]
INSTALL = REPO / "deploy" / "install.sh"
BIN = Path(sys.executable).parent


def _install(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(INSTALL), *args], capture_output=True, text=True, timeout=600, check=False
    )


def _files(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_install_twice_then_uninstall_leaves_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    tileset = REPO / "hardware" / "tilesets" / "sim-0.toml"
    first = _install("--prefix", str(root), "--tileset", str(tileset))
    assert first.returncode == 0, first.stderr
    assert "GPIO backend: none" in first.stdout
    assert "installed under" in first.stdout
    installed = _files(root)
    for part in (
        "opt/mahjong-table/bin/mahjong-table",
        "etc/mahjong-table/table.toml",
        "etc/mahjong-table/tileset.toml",
        "etc/systemd/system/mahjong-table.service",
        "etc/udev/rules.d/99-mahjong-mcu.rules",
        "var/lib/mahjong-table",
    ):
        assert part in installed
    assert (root / "etc/mahjong-table/tileset.toml").read_bytes() == tileset.read_bytes()
    unit = (root / "etc/systemd/system/mahjong-table.service").read_text()
    assert f"ExecStart={root}/opt/mahjong-table/bin/mahjong-table run" in unit

    second = _install("--prefix", str(root))
    assert second.returncode == 0, second.stderr
    assert _files(root) == installed  # a re-run changes nothing it laid out

    gone = _install("--prefix", str(root), "--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert list(root.iterdir()) == []


@pytest.mark.slow
def test_a_config_that_fails_its_check_is_never_started(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[serial]\nbaudrat = 9600\n")
    done = _install("--prefix", str(tmp_path / "root"), "--config", str(bad))
    assert done.returncode == 1
    assert "unknown key 'baudrat'" in done.stderr
    assert "the daemon was not started" in done.stderr


@pytest.mark.parametrize(
    ("model", "backend"),
    [
        ("Raspberry Pi 5 Model B Rev 1.0", "rpi-lgpio"),
        ("Raspberry Pi Compute Module 5 Rev 1.0", "rpi-lgpio"),
        ("Raspberry Pi 4 Model B Rev 1.4", "rpi-gpio"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "rpi-gpio"),
        ("QEMU Virtual Machine", "none"),
    ],
)
def test_the_gpio_backend_follows_the_board(tmp_path: Path, model: str, backend: str) -> None:
    path = tmp_path / "model"
    path.write_bytes(model.encode() + b"\0")  # as the device tree has it
    done = _install("--print-gpio-backend", "--device-model", str(path))
    assert done.stdout.strip() == backend


def _inventory(tmp_path: Path) -> Path:
    inventory = tmp_path / "inventory.ini"
    tileset = REPO / "hardware" / "tilesets" / "sim-0.toml"
    python = sys.executable
    inventory.write_text(
        f"[venue]\nvenue-host ansible_connection=local ansible_python_interpreter={python}\n"
        f"[tables]\n"
        f"table-07 ansible_connection=local ansible_python_interpreter={python} "
        f"table_id=table-07 tileset={tileset}\n"
        f"table-08 ansible_connection=local ansible_python_interpreter={python} "
        f"table_id=table-08 tileset={tileset}\n"
        "[all:vars]\nbroker_name=localhost\nbroker_address=127.0.0.1\n"
    )
    return inventory


def _playbook(
    tmp_path: Path,
    *args: str,
    inventory: Path | None = None,
    timeout: float = 600,
    root: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    extra = f"install_prefix={root or tmp_path / 'root'} venue_secrets={tmp_path / 'secrets'}"
    command = [
        str(BIN / "ansible-playbook"),
        "-i",
        str(inventory or _inventory(tmp_path)),
        str(REPO / "deploy/ansible/site.yml"),
        "-e",
        extra,
        *args,
    ]
    env = {
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-tmp"),
        "PATH": f"{BIN}:/usr/bin:/bin",
        "ANSIBLE_NOCOLOR": "1",
        "HOME": str(tmp_path),
    }
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)


def test_the_playbook_passes_its_syntax_check(tmp_path: Path) -> None:
    done = _playbook(tmp_path, "--syntax-check")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_playbook_in_check_mode_makes_nothing_and_plans_every_table(tmp_path: Path) -> None:
    done = _playbook(tmp_path, "--check", "--diff")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "table-07" in done.stdout and "table-08" in done.stdout
    assert "failed=0" in done.stdout
    assert not (tmp_path / "secrets").exists()  # not even the venue's CA and keys
    assert not (tmp_path / "root").exists()  # check mode changed nothing on the hosts


SERVICE_USER, SERVICE_GROUP = "nobody", "nogroup"
"""The table daemon's user in the test: an unprivileged user the host has (no user is made)."""


def _has_user(user: str, group: str) -> bool:
    try:
        pwd.getpwnam(user)
        grp.getgrnam(group)
    except KeyError:
        return False
    return True


AS_USERS = (
    os.geteuid() == 0
    and shutil.which("setpriv") is not None
    and _has_user("mosquitto", "mosquitto")
    and _has_user(SERVICE_USER, SERVICE_GROUP)
)
"""Whether the services can run as their own users here (root, setpriv and the users)."""


@contextmanager
def _public_temp() -> Iterator[Path]:
    """A temp folder that other users may pass through (as / is), not list."""
    with tempfile.TemporaryDirectory(prefix="mahjong-deploy-") as top:
        Path(top).chmod(0o711)
        yield Path(top)


def _as_user(user: str, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["setpriv", f"--reuid={user}", f"--regid={pwd.getpwnam(user).pw_gid}", "--init-groups",
         *command],
        capture_output=True, text=True, timeout=120, cwd="/",
    )  # fmt: skip


@dataclass(frozen=True)
class Venue:
    """A venue deployed by the playbook under a prefix: one table, its broker and recorder."""

    top: Path
    """The public temp folder holding the prefix (`root`)."""
    root: Path
    secrets: Path
    inventory: Path
    work: Path
    """The playbook's own temp folder (its HOME and ansible's temp)."""
    port: int


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    """The venue deployed once for the tests of this module that read it: with TLS on a port of
    its own and house rules, and (where the host allows) its services' own users."""
    from devsupport.mosquitto import free_port

    work = tmp_path_factory.mktemp("venue")
    port = free_port()
    house = work / "house.toml"
    house.write_text("[scoring]\nlimit = 500\n")
    tileset = REPO / "hardware" / "tilesets" / "sim-0.toml"
    python = sys.executable
    users = (
        f"service_user={SERVICE_USER}\nservice_group={SERVICE_GROUP}\n"
        "mosquitto_user=mosquitto\nmosquitto_group=mosquitto\n"
    )
    inventory = work / "inventory.ini"
    inventory.write_text(
        f"[venue]\nvenue-host ansible_connection=local ansible_python_interpreter={python}\n"
        f"[tables]\ntable-07 ansible_connection=local ansible_python_interpreter={python} "
        f"table_id=table-07 tileset={tileset}\n"
        f"[all:vars]\nbroker_name=localhost\nbroker_address=127.0.0.1\nbroker_port={port}\n"
        f"ruleset_file={house}\n{users if AS_USERS else ''}"
    )  # one table: on one machine every table shares /etc
    with _public_temp() as top:
        root = top / "root"
        done = _playbook(work, inventory=inventory, timeout=1100, root=root)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr
        yield Venue(top, root, work / "secrets", inventory, work, port)


ONE_VENUE = pytest.mark.xdist_group("venue")
"""The tests that read the one deployed venue: on one worker, which deploys it once."""


@pytest.mark.slow
@pytest.mark.timeout(1200)
@ONE_VENUE
def test_the_unit_passes_systemd_analyze_verify(venue: Venue) -> None:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: ./scripts/test installs Debian's systemd"
    unit = venue.root / "etc/systemd/system/mahjong-table.service"  # as install.sh wrote it
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    text = unit.read_text()
    assert f"ExecStart={venue.root}/opt/mahjong-table/bin/mahjong-table run" in text
    for keeps_working in (
        "DeviceAllow=char-ttyACM rw",
        "DeviceAllow=char-gpiochip rw",
        "RuntimeDirectory=mahjong-table",
        "RestrictAddressFamilies=AF_UNIX",
    ):
        assert keeps_working in text


@pytest.mark.slow
@pytest.mark.timeout(1200)
@ONE_VENUE
def test_the_playbook_deploys_a_table_and_the_recorder_under_a_prefix(venue: Venue) -> None:
    root, secrets = venue.root, venue.secrets
    table = (root / "etc/mahjong-table/table.toml").read_text()
    assert 'id = "table-07"' in table
    assert f'url = "mqtts://localhost:{venue.port}"' in table
    assert f'result_key = "{(secrets / "keys/table-07.key").read_text().strip()}"' in table
    certificate = (root / "etc/mahjong-table/table.crt").read_bytes()
    assert certificate == (secrets / "table-07.crt").read_bytes()
    program = root / "opt/mahjong-table/bin/mahjong-table"
    check = subprocess.run(
        [str(program), "config", "check", str(root / "etc/mahjong-table/table.toml")],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    analyze = shutil.which("systemd-analyze")
    assert analyze
    for unit in ("mahjong-table.service", "mahjong-hub.service"):
        verified = subprocess.run(
            [analyze, "verify", str(root / "etc/systemd/system" / unit)],
            capture_output=True,
            text=True,
        )
        assert verified.returncode == 0, verified.stderr
    assert (root / "etc/mosquitto/mahjong/acl").read_text() == (
        REPO / "deploy/mosquitto/acl"
    ).read_text()


@pytest.mark.slow
@pytest.mark.timeout(1200)
@ONE_VENUE
@pytest.mark.skipif(
    not AS_USERS,
    reason="needs root, setpriv and the mosquitto and nobody users to run services as themselves",
)
def test_a_venue_deployed_with_tls_and_house_rules_works_as_its_own_users(venue: Venue) -> None:
    from controller.venue.rehearsal_broker import wait_listening
    from devsupport.mosquitto import find_mosquitto

    root, top = venue.root, venue.top
    etc = root / "etc/mahjong-table"
    table = (etc / "table.toml").read_text()
    assert f'ruleset_file = "{etc}/house-rules.toml"' in table
    key = (venue.secrets / "keys/table-07.key").read_text().strip()

    again = _playbook(venue.work, "--check", "--diff", inventory=venue.inventory, root=root)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    assert key not in again.stdout and "PRIVATE KEY" not in again.stdout

    program = str(root / "opt/mahjong-table/bin/mahjong-table")
    checked = _as_user(SERVICE_USER, program, "config", "check", str(etc / "table.toml"))
    assert checked.returncode == 0, checked.stderr
    assert "ruleset zung-jung" in checked.stdout

    conf = root / "etc/mosquitto/mosquitto.conf"
    mosquitto = find_mosquitto()
    assert mosquitto
    broker = subprocess.Popen(  # as root, as systemd starts it: it drops to mosquitto
        [mosquitto, "-c", str(conf)], stderr=subprocess.PIPE, text=True
    )
    try:
        assert wait_listening(broker, "127.0.0.1", venue.port), "mosquitto did not listen"
        sock = str(top / "none.sock")
        table_toml = str(etc / "table.toml")
        reached = _as_user(
            SERVICE_USER, program, "diag", "mqtt", "--config", table_toml, "--socket", sock
        )
    finally:
        broker.terminate()
        _, said = broker.communicate(timeout=20)
    shown = reached.stdout + reached.stderr + said
    for step in ("reachable", "TLS handshake", "login", "may publish its topics"):
        assert f"PASS  {step}" in reached.stdout, shown
    assert "Error" not in said, said
