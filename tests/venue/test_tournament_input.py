"""A tournament file is untrusted input: nesting deep enough to exhaust the parser's stack is
refused with its file and line (exit 2), as any other mistake, never an internal error."""

from pathlib import Path

import pytest

from controller.cli import main
from controller.config_loader import MAX_NESTING, too_deep


@pytest.mark.parametrize("opening", ["[", "{ a = "])
def test_a_deeply_nested_tournament_file_is_refused_with_its_line(
    tmp_path: Path, opening: str, capsys: pytest.CaptureFixture[str]
) -> None:
    closing = "]" if opening == "[" else "}"
    path = tmp_path / "cup.toml"
    path.write_text('[tournament]\nname = "cup"\n\nx = ' + opening * 5000 + "1" + closing * 5000)
    assert main(["hub", "standings", "--tournament", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: arrays or inline tables nested more than {MAX_NESTING} deep" in err
    assert "internal error" not in err


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    text = 'a = "' + "[" * 100 + '"\n# ' + "{" * 100 + "\nb = '''\n" + "[" * 100 + "'''\n"
    assert too_deep(text, MAX_NESTING) is None
    assert too_deep("a = [[1], [2]]\n" + "b = " + "[" * 40 + "]" * 40, MAX_NESTING) == 2
