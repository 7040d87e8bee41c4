"""Reads that come late or never, as on a lossy line: an MCU event lost and the zones read again
after the players have moved on. The referee must still see the moves that were made, in the
order they were made, with no incident nobody caused."""

from controller.rules.hand import WinType
from controller.table.ports import Zone
from controller.table.referee import EndNow, MoveKind, ReadsComplete, ReadsMissing
from controller.table.referee.events import Elapsed, ReadAgain
from tests.table.scripted import Table
from tests.table.test_referee import SHANGHAI_HANDS, TWO_WIN_ON_5S, ZJ_E, moves, replays_the_same
from tests.table.test_referee_fouls import HANDS

E, S, W, N = 0, 1, 2, 3


def test_a_flower_read_after_the_throw_that_followed_it_is_set_aside_first() -> None:
    # South draws a flower, sets it aside, draws its replacement and throws; the MELD read is
    # late, so the throw is read while the HAND antenna's last read still holds the flower.
    table = Table("shanghai", SHANGHAI_HANDS, draws="1f", replacements="6p")
    table.discard(E, "1z")
    flower = table.draw(S)
    table.discard(S, "4m")
    table.move([flower], S, Zone.MELD)
    table.replace(S)
    assert moves(table)[1:] == [
        (S, MoveKind.DRAW),
        (S, MoveKind.FLOWER),
        (S, MoveKind.REPLACEMENT),
        (S, MoveKind.DISCARD),
    ]
    assert table.incidents() == []
    assert table.referee.turn == W


def test_a_draw_thrown_and_chowed_between_two_reads_is_a_draw_a_throw_and_a_chow() -> None:
    # South draws the 4-bamboo and throws it, West chows it; South's HAND and river reads are
    # lost, so the tile is first read in West's set.
    table = Table("zung-jung", HANDS, draws="4s")
    table.discard(E, "5m")
    table.wait(3.1)  # no claim: South's turn
    drawn = next(u for u in table.live if u not in table.taken)
    table.taken.add(drawn)
    two, three = table.uid(W, "2s"), table.uid(W, "3s")
    table.move([two, three, drawn], W, Zone.MELD)
    assert moves(table)[1:] == [
        (S, MoveKind.DRAW),
        (S, MoveKind.DISCARD),
        (W, MoveKind.CHOW),
    ]
    table.wait(3.1)
    assert table.incidents() == []
    assert table.referee.turn == W


def test_a_pung_whose_set_is_read_only_after_the_claim_window_came_in_time() -> None:
    # West pungs East's 5-character at once. East's river and West's HAND are read as the
    # tiles leave them; the MELD antenna's event is lost, so the set is read after the window.
    table = Table("zung-jung", HANDS)
    thrown = table.discard(E, "5m")
    kind = table.tiles.kind(thrown)
    pair = sorted(u for u in table.zones[(W, Zone.HAND)] if table.tiles.kind(u) == kind)[:2]
    table.move([thrown, *pair], W, Zone.MELD, unread=[(W, Zone.MELD)])
    table.wait(3.1)  # longer than the claim window
    table.read((W, Zone.MELD))
    assert moves(table) == [(E, MoveKind.DISCARD), (W, MoveKind.PUNG)]
    assert table.incidents() == []
    assert table.referee.turn == W


def test_a_discard_won_on_then_laid_in_the_winners_hand_is_where_it_belongs() -> None:
    # Blood battle: West wins on East's 5-bamboo (the window closes with the tile still in the
    # river), then lays it with its hand; North draws and wins at once.
    table = Table("sichuan", TWO_WIN_ON_5S, draws="9s")
    thrown = table.discard(E, "5s")
    table.declare(W)
    table.wait(3.1)
    assert [win.place for win in table.referee.play.wins] == [W]
    table.move([thrown], W, Zone.HAND)
    table.draw(N)
    table.declare(N)
    table.wait(2.0)  # the tiles settled; no tile is out of place
    assert [win.place for win in table.referee.play.wins] == [W, N]
    assert table.incidents() == []


def test_a_win_declared_while_reads_are_missing_waits_for_the_state_read_again() -> None:
    # MCU events are lost: East's throw is not read, and West declares a win on it. A
    # declaration with no discard in sight would be out of turn; the referee waits until the
    # MCU's state is read again, then sees the discard and judges the win on it.
    table = Table("sichuan", TWO_WIN_ON_5S)
    table.feed(ReadsMissing(since=table.t))
    thrown = table.uid(E, "5s")
    table.move([thrown], E, Zone.DISCARD, unread=[(E, Zone.HAND), (E, Zone.DISCARD)])
    table.declare(W)
    table.wait(9.0)  # longer than the settle time and the claim window
    assert table.incidents() == [] and table.referee.play.wins == []
    table.read((E, Zone.HAND), (E, Zone.DISCARD))
    table.feed(ReadsComplete())
    table.wait(3.1)
    assert [(win.place, win.win_type) for win in table.referee.play.wins] == [(W, WinType.DISCARD)]
    assert table.incidents() == []
    table.feed(EndNow("the venue ends the hand"))
    replays_the_same(table)


def test_only_what_falls_due_after_a_loss_waits_for_its_re_read() -> None:
    # On a noisy line losses come faster than re-reads end: a declaration on a claim window
    # that fell due before the oldest loss not yet made good is judged on time; one due after
    # it waits. (A window nobody declared on stays open for sets until the next draw.)
    def window_after_a_loss(found_after_the_discard: float) -> bool:
        table = Table("zung-jung", HANDS)
        table.discard(E, "5m")
        table.declare(S)
        table.feed(ReadsMissing(since=table.t + found_after_the_discard))
        table.wait(3.1)
        return open_window(table)

    assert not window_after_a_loss(found_after_the_discard=5.0), "due 2 s before the loss"
    assert window_after_a_loss(found_after_the_discard=2.0), "the loss may hide a claim"


def test_a_decision_waits_for_missing_reads_at_most_the_strays_time() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.declare(S)
    table.feed(ReadsMissing(since=table.t))  # a re-read that never ends
    table.wait(9.0)
    assert open_window(table), "3 s due, waiting for the reads"
    table.wait(4.5)
    assert not open_window(table) and table.referee.turn == S


def open_window(table: Table) -> bool:
    """A claim window is open."""
    return table.referee.play.window is not None


def test_a_discard_taken_to_win_on_waits_out_the_window_where_it_lies_unasked() -> None:
    # South takes East's 5-character into its hand and declares. The window runs its time (a
    # seat nearer in turn might still declare); the tile is where a win on it puts it, so the
    # zones are not read again meanwhile, and the referee's next deadline is the window's end.
    hands = {0: ZJ_E, 1: "46m111p222p333p99p", 2: "2233s4466s6m2345z", 3: "55m777p888s999s11z"}
    table = Table("zung-jung", hands)
    table.discard(E, "5m")
    window = table.referee.play.window
    assert window is not None
    table.take_discard(S, of=E)
    table.declare(S)
    due = window.opened + table.referee.play.settings.window_s
    assert table.referee.next_deadline == due
    while table.t + 0.1 < due:
        table.wait(0.1)
    assert not [o for o in table.out if isinstance(o, ReadAgain)]
    assert table.referee.play.wins == []
    table.t = due
    table.feed(Elapsed())
    assert [(w.place, w.discarder) for w in table.referee.play.wins] == [(S, E)]
    assert table.incidents() == []
