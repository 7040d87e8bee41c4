"""The incident vocabulary as the contract between the table and the venue carries it: every
kind a result's incident may have, and which kinds mean a forfeit. It is defined once, in
`controller.incident_kinds`, a leaf module below both the table core and the hub contract."""

from controller.incident_kinds import FORFEITS, IncidentKind

__all__ = ["FORFEITS", "IncidentKind"]
