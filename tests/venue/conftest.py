"""Venue hub test set-up: one throwaway PostgreSQL cluster per test session, a store of either
kind per test (SQLite file or a fresh PostgreSQL database)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.venue.store import ResultStore, open_store
from tests.venue.postgres import PgCluster, cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    with cluster() as pg:
        yield pg


@pytest.fixture(params=["sqlite", "postgresql"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store lives: a SQLite file, or a fresh database of the test cluster."""
    if request.param == "sqlite":
        return str(tmp_path / "hub.sqlite3")
    pg: PgCluster = request.getfixturevalue("pg_cluster")
    return pg.new_database()


@pytest.fixture
def store(store_spec: str) -> Iterator[ResultStore]:
    opened = open_store(store_spec)
    yield opened
    opened.close()
