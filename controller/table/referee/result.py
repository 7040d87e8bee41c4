"""The hand's result as the referee saw it: moves, wins, settlements, final tiles, incidents."""

from controller.rules import format_tiles, tile_str
from controller.table.referee.events import Move, RefereeResult, SeatEnd
from controller.table.referee.state import Play
from controller.table.tiles import seat_name


def build_result(play: Play) -> RefereeResult:
    """The result of the hand in play, as it stands now."""
    seats = tuple(
        SeatEnd(
            tuple(sorted(play.kinds(seat.concealed))),
            tuple(record.meld(play.tiles) for record in seat.melds),
            tuple(sorted(play.kinds(seat.flowers))),
            tuple(play.kinds(seat.river)),
        )
        for seat in play.seats
    )
    return RefereeResult(
        tuple(play.moves),
        tuple(play.wins),
        tuple(play.payments),
        seats,
        tuple(play.incidents),
        play.over,
        play.now,
    )


def result_json(result: RefereeResult) -> dict[str, object]:
    """The result as plain JSON data (what `replay --json` prints)."""
    return {
        "reason": result.reason,
        "moves": [move_json(m) for m in result.moves],
        "wins": [
            {
                "seat": w.place,
                "discarder": w.discarder,
                "win_type": w.win_type.value,
                "winning_tile": tile_str(w.win_tile),
                "concealed": format_tiles(w.concealed),
                "melds": [str(m) for m in w.melds],
                "flowers": format_tiles(w.flowers),
                "patterns": [[name, value] for name, value in w.patterns],
                "total": w.total,
                "unit": w.unit,
                "score": w.score,
                "payments": list(w.payments),
            }
            for w in result.wins
        ],
        "settlements": [{"reason": p.reason, "amounts": list(p.amounts)} for p in result.payments],
        "payments": list(result.totals),
        "seats": [
            {
                "concealed": format_tiles(s.concealed),
                "melds": [str(m) for m in s.melds],
                "flowers": format_tiles(s.flowers),
                "discards": format_tiles(s.discards),
            }
            for s in result.seats
        ],
        "incidents": [
            {
                "at": i.at.wall,
                "seat": i.place,
                "kind": i.kind,
                "ruling": i.ruling,
                "detail": i.detail,
            }
            for i in result.incidents
        ],
        "ended_at": result.ended_at.wall,
    }


def move_json(move: Move) -> dict[str, object]:
    """One move as plain JSON data."""
    return {
        "at": move.at.wall,
        "seat": move.place,
        "move": move.kind.value,
        "tiles": format_tiles(move.tiles),
        "from": move.source,
    }


def move_line(move: Move) -> str:
    """One move in words, as `replay --step` prints it."""
    source = "" if move.source is None else f" from {seat_name(move.source)}"
    tiles = format_tiles(move.tiles)
    return f"{move.at.monotonic:10.2f}  {seat_name(move.place)}  {move.kind.value} {tiles}{source}"
