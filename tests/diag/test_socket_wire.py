"""The control socket as an attacker or a broken client meets it: permissions, malformed,
oversized and too many requests, a wrong version. Each gets an error reply; the daemon lives."""

import grp
import json
import os
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.diag.protocol import MAX_LINE_BYTES, Refusal, decode_request
from tests.diag.rig import Daemon, daemon, diag, diag_json

# One worker runs the whole module: its module-wide fixture is made once.
pytestmark = pytest.mark.xdist_group("socket-wire")


def _talk(path: Path, *lines: bytes) -> list[dict[str, object]]:
    """Send lines on one connection; the replies until the daemon closes or goes quiet."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(path))
        conn.sendall(b"".join(lines))
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return [json.loads(line) for line in data.splitlines()]


def _status(table: Daemon) -> dict[str, object]:
    _, report = diag_json("status", "--socket", str(table.socket))
    assert isinstance(report, dict)
    return report


STATUS = b'{"v": 1, "op": "status"}\n'
CONFIG_REQUEST = b'{"v": 1, "op": "config"}\n'


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon for the module (its players think for ten minutes: nothing moves)."""
    with tempfile.TemporaryDirectory(prefix="mahjong-run-") as run_dir:
        Path(run_dir).chmod(0o755)  # as /run/mahjong-table: anyone may look, the socket decides
        path = Path(run_dir) / "control.sock"
        with daemon(tmp_path_factory.mktemp("daemon"), "--sim-think", "600", socket=path) as run:
            yield run


def test_socket_is_for_the_group_only(table: Daemon) -> None:
    mode = table.socket.stat().st_mode
    assert stat.S_ISSOCK(mode)
    assert stat.S_IMODE(mode) == 0o660
    line = table.wait_for("control socket ")  # READY=1 may come before stderr is read
    try:
        gid = grp.getgrnam("mahjong").gr_gid
    except KeyError:
        assert "no group 'mahjong': only this daemon's own user may connect" in line
    else:
        assert table.socket.stat().st_gid == gid
    if os.geteuid() == 0:  # someone outside the group and the daemon's user is refused
        assert _connect_as_nobody(table.socket) == "refused"


def _connect_as_nobody(path: Path) -> str:
    """Try the socket as user nobody, group nogroup, no other groups (a forked child)."""
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        code = 1
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(path))
            code = 0
        except PermissionError:
            code = 13
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return {0: "connected", 13: "refused"}.get(os.waitstatus_to_exitcode(status), "error")


def test_bad_requests_get_error_replies_and_are_counted(table: Daemon) -> None:
    replies = _talk(
        table.socket,
        b"this is not json\n",
        b'{"v": 1, "op": "reboot"}\n',
        b'{"v": 1, "op": "status", "rm": "-rf"}\n',
        b'{"v": 2, "op": "status"}\n',
        b"[1, 2, 3]\n",
        b'{"v": 1, "op": "selftest", "rolls": 100000}\n',
        STATUS,
    )
    codes = [reply.get("code") for reply in replies]
    assert codes == [
        "bad_request",
        "bad_request",
        "bad_request",
        "version",
        "bad_request",
        "bad_request",
        None,
    ]
    assert all(reply["kind"] == "error" for reply in replies[:-1])
    assert replies[-1]["kind"] == "result"  # the connection went on serving
    assert "op" in str(replies[1]["message"])

    big = b'{"v": 1, "op": "status", "component": "' + b"x" * MAX_LINE_BYTES + b'"}\n'
    replies = _talk(table.socket, big, STATUS)
    assert [(r["kind"], r["code"]) for r in replies] == [("error", "too_large")]

    flood = _talk(table.socket, *[CONFIG_REQUEST] * 40)
    kinds = [r.get("code", r["kind"]) for r in flood]
    assert kinds.count("result") >= 9  # the shared burst, less the status asked above
    assert "too_fast" in kinds

    report = _status(table)
    assert report["control_refused"] == 7 + kinds.count("too_fast")


@given(st.binary(max_size=MAX_LINE_BYTES + 64))
def test_any_bytes_decode_to_a_request_or_a_refusal(line: bytes) -> None:
    assert isinstance(decode_request(line), Refusal) or line.strip().startswith(b"{")


@given(
    st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.integers(), st.text(max_size=8), st.none(), st.booleans()),
        max_size=6,
    )
)
def test_any_json_object_decodes_or_is_refused_never_raises(data: dict[str, object]) -> None:
    decode_request(json.dumps(data).encode())


def _hold(path: Path, half_line: bool) -> socket.socket:
    """A client that connects and then sends nothing, or half a request line."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(60)  # only a bound if the daemon never answers
    conn.connect(str(path))
    if half_line:
        conn.sendall(b'{"v": 1, "op": "sta')
    return conn


def _replies_until_closed(conn: socket.socket) -> list[dict[str, object]]:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return [json.loads(line) for line in data.splitlines()]


def _one_reply(conn: socket.socket, line: bytes) -> dict[str, object]:
    conn.sendall(line)
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        assert chunk, "the daemon closed without a reply"
        data += chunk
    reply: dict[str, object] = json.loads(data)
    return reply


def test_idle_clients_cannot_lock_a_technician_out(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "600", extra_config="[control]\nidle_s = 8\n") as table:
        held = [_hold(table.socket, half_line=n % 2 == 1) for n in range(8)]
        spare = _hold(table.socket, half_line=False)  # the ninth: kept for status
        assert _one_reply(spare, STATUS)["kind"] == "result"
        busy = _one_reply(spare, CONFIG_REQUEST)
        assert busy["code"] == "busy"
        assert "may only ask for status" in str(busy["message"])

        done = diag("status", "--socket", str(table.socket))  # a tenth: told why in words
        assert done.returncode == 1
        assert "the control socket is full" in done.stderr, done.stderr
        assert "Error" not in done.stderr

        for conn in [*held, spare]:  # each is told it waited too long, then closed
            replies = _replies_until_closed(conn)
            assert [r["code"] for r in replies] == ["idle"]
            assert "no whole request line within 8 s" in str(replies[0]["message"])
            conn.close()
        _, report = diag_json("status", "--socket", str(table.socket))
        assert report["control_refused"] >= 1 + 1 + 9  # busy, full, and each idle client


def test_the_rate_limit_is_shared_by_all_clients_and_status_keeps_an_allowance(
    tmp_path: Path,
) -> None:
    with daemon(tmp_path, "--sim-think", "600") as table:
        kinds = [_talk(table.socket, CONFIG_REQUEST)[0] for _ in range(40)]
        codes = [reply.get("code", reply["kind"]) for reply in kinds]
        assert "too_fast" in codes  # reconnecting does not refill the allowance
        refused = next(r for r in kinds if r.get("code") == "too_fast")
        assert "from all clients together" in str(refused["message"])
        assert _talk(table.socket, STATUS)[0]["kind"] == "result"
