"""The README is a short front page linking a page per reader; the pages stand on their own:
every file they link is in the repository, and they document what a technician reads off a
running table (the systemd status line) and a venue off its export (the CSV's seat columns)."""

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"
READERS = ("start-here", "technician", "venue-operator", "table-maker", "developer")
PAGES = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("controller/**/README.md")]


def test_every_relative_link_points_into_the_repository() -> None:
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            path = (page.parent / target).resolve()
            assert path.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
            assert path.exists(), f"{page.name} links a missing file: {target}"


def test_no_page_points_outside_the_repository() -> None:
    for page in PAGES:
        assert "../shared" not in page.read_text(), page


def test_the_rules_page_is_linked_and_says_how_thirteen_terminals_scores() -> None:
    assert "(docs/rules.md)" in README
    rules = " ".join((ROOT / "docs" / "rules.md").read_text().split())
    assert "Thirteen Terminals does not add Mixed Greater Terminals" in rules


def test_the_readme_is_a_short_front_page_linking_a_page_per_reader() -> None:
    assert len(README.splitlines()) < 150
    for reader in READERS:
        assert f"(docs/{reader}.md)" in README, reader
        assert (DOCS / f"{reader}.md").exists(), reader
    start = (DOCS / "start-here.md").read_text()
    assert all(f"({reader}.md)" in start for reader in READERS[1:])
    assert "(../hardware/protocol.md)" in (DOCS / "table-maker.md").read_text()


def test_the_pages_explain_the_status_line_and_the_csv_seat_columns() -> None:
    technician = (DOCS / "technician.md").read_text()
    assert "`STATUS=`" in technician
    venue = " ".join((DOCS / "venue-operator.md").read_text().split())
    assert "seat columns" in venue and "the hand's winds" in venue
