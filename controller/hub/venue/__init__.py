"""The venue hub beyond one recorder: the floor dashboard, tournaments, a PostgreSQL store for
a league of venues."""
