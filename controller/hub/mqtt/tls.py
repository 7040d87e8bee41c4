"""The TLS context of the table's broker connection, made in one place: `diag mqtt` connects
with it, and `config check` (and the daemon's own preflight) makes it once, so a CA file, a
certificate or a key the TLS library refuses is named before the daemon starts."""

import ssl
from pathlib import Path


class TlsFileRefused(ValueError):
    """A TLS file the TLS library will not load; `key` is the config key that names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def tls_context(
    ca_file: Path | None, cert_file: Path | None, key_file: Path | None
) -> ssl.SSLContext:
    """A client context trusting `ca_file` (the system's CAs when None), presenting
    `cert_file` and `key_file` if given; TlsFileRefused names the file it could not load."""
    try:
        context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
    except ssl.SSLError as error:
        raise TlsFileRefused(
            "ca_file",
            f"ca_file {ca_file} holds no PEM CA certificate the TLS library accepts "
            f"({error.reason or error})",
        ) from None
    if cert_file is not None:
        try:
            context.load_cert_chain(str(cert_file), str(key_file) if key_file else None)
        except ssl.SSLError as error:
            raise TlsFileRefused(
                "cert_file",
                f"cert_file {cert_file} and key_file {key_file} are not a PEM "
                f"certificate and its private key ({error.reason or error})",
            ) from None
    return context
