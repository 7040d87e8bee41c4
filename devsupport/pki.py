"""A throwaway certificate authority for tests and the bench: a CA, the broker's certificate
(for localhost) and a table's client certificate, made with the openssl command."""

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pki:
    """The files of a small PKI (PEM)."""

    ca: Path
    ca_key: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def _signed(directory: Path, name: str, subject: str, ca: Path, ca_key: Path) -> None:
    key, request = directory / f"{name}.key", directory / f"{name}.csr"
    _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", str(key), "-subj", subject, "-out", str(request))  # fmt: skip
    extensions = directory / f"{name}.ext"
    extensions.write_text("subjectAltName = DNS:localhost, IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key),
             "-CAcreateserial", "-days", "2", "-extfile", str(extensions),
             "-out", str(directory / f"{name}.crt"))  # fmt: skip


def make_pki(directory: Path, table: str = "table-07") -> Pki:
    """A CA, `server` (localhost) and `table` certificates in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_key = directory / "ca.crt", directory / "ca.key"
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", str(ca_key), "-subj", "/CN=test venue CA", "-days", "2",
             "-out", str(ca))  # fmt: skip
    _signed(directory, "server", "/CN=localhost", ca, ca_key)
    _signed(directory, table, f"/CN={table}", ca, ca_key)
    return Pki(
        ca,
        ca_key,
        directory / "server.crt",
        directory / "server.key",
        directory / f"{table}.crt",
        directory / f"{table}.key",
    )
