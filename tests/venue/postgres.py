"""A throwaway PostgreSQL cluster (Debian's postgresql package) on a free loopback port.

initdb refuses to run as root, so as root the cluster belongs to the `postgres` user made by
the package and lives in a directory of its own under /tmp (pytest's tmp dirs are root-only).
"""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from devsupport.mosquitto import free_port

_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def find_pg_bin() -> Path | None:
    """The folder holding initdb and pg_ctl, newest PostgreSQL first."""
    for folder in _BIN_DIRS:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


class PgCluster:
    """One postgres server with trust authentication on 127.0.0.1:port."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="mahjong-pg-"))
        self.data = self.root / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, cwd=self.root)

    def start(self) -> None:
        """initdb, then start the server and wait until it accepts connections."""
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--no-sync")  # fmt: skip
        self.resume()

    def halt(self, mode: str = "immediate") -> None:
        """Stop the server as a crash (`immediate`) or a failover (`fast`) would."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def resume(self) -> None:
        """Start the server (again) and wait until it accepts connections."""
        options = f"-p {self.port} -h 127.0.0.1 -k {self.root} -F"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"),
                  "-o", options, "-w", "start")  # fmt: skip

    def stop(self) -> None:
        """Stop the server at once and delete the cluster."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """A psycopg URL of one database of this cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; returns its URL."""
        import psycopg

        name = "t" + uuid.uuid4().hex[:12]
        deadline = time.monotonic() + 10
        while True:
            try:
                with psycopg.connect(self.url(), autocommit=True) as db:
                    db.execute(f"CREATE DATABASE {name}")
                return self.url(name)
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)


@contextlib.contextmanager
def cluster() -> Iterator[PgCluster]:
    """A running cluster for the block; stopped and deleted afterwards."""
    bin_dir = find_pg_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed: run ./scripts/test, which installs it")
    pg = PgCluster(bin_dir)
    try:
        pg.start()
        yield pg
    finally:
        pg.stop()
