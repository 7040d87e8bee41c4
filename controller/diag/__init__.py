"""Technician diagnostics and the local control socket they talk to."""
