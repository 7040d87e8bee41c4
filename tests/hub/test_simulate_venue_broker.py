"""A simulated table plays into the venue broker as shipped (TLS, a client certificate per
table, ACLs): `simulate --ca-file --cert-file --key-file` connects as its own table and the
recorder (with the hub's certificate) records every hand."""

import asyncio
import sys
from pathlib import Path

import pytest

from tests.hub.factories import KEY_TEXT
from tests.hub.helpers import eventually, make_recorder, running
from tests.hub.test_venue_broker import Venue, venue  # noqa: F401  (the fixture)

pytestmark = pytest.mark.broker
ROOT = Path(__file__).parents[2]


async def _simulate(v: Venue, tmp_path: Path, table: str, *extra: str) -> tuple[int, str]:
    keys = tmp_path / "keys.toml"
    keys.write_text(f'[tables]\n{table} = "{KEY_TEXT}"\n')
    keys.chmod(0o600)
    tls = v.tls(table)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "controller", "simulate", "--fast", "--plain", "--hands", "2",
        "--seed", "3", "--mqtt", v.url, "--keys", str(keys), "--table", table,
        "--ca-file", str(tls["ca_file"]), "--ack-wait", "20", *extra, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, out.decode()


async def test_a_simulated_table_plays_over_tls_with_its_own_certificate(
    venue: Venue,  # noqa: F811
    tmp_path: Path,
) -> None:
    recorder = make_recorder(venue.url, tmp_path / "hub.db", ("table-a",), tls=venue.tls("hub"))
    async with running(recorder.run()):
        await eventually(recorder.connected.is_set, "recorder online over TLS")
        tls = venue.tls("table-a")
        files = ["--cert-file", str(tls["cert_file"]), "--key-file", str(tls["key_file"])]
        code, out = await _simulate(venue, tmp_path, "table-a", *files)
        assert code == 0, out
        await eventually(lambda: recorder.store.sync.count() == 2, "both hands recorded")


async def test_a_simulated_table_cannot_speak_for_another(
    venue: Venue,  # noqa: F811
    tmp_path: Path,
) -> None:
    # table-b's certificate, claiming to be table-a: the ACL keeps it off table-a's topics.
    tls = venue.tls("table-b")
    files = ["--cert-file", str(tls["cert_file"]), "--key-file", str(tls["key_file"])]
    code, out = await _simulate(venue, tmp_path, "table-a", *files, "--ack-wait", "2")
    assert code == 1 and "ack" in out, out
