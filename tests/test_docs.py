"""The README stands on its own: every file it links is in the repository, and it documents
what a technician reads off a running table (the systemd status line, the CSV's seat columns)."""

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
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


def test_the_readme_explains_the_status_line_and_the_csv_seat_columns() -> None:
    assert "`STATUS=`" in README
    assert "seat columns" in README and "the hand's winds" in README
