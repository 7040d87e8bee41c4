"""The venue side of the hub: the recorder program (it verifies, stores and acks results,
watches for gaps, audits walls, exports standings), the floor dashboard, tournaments, and a
PostgreSQL store for a league of venues."""
