"""`diag link`: connect to the table MCU, ping it and grade the link (loaded only when run)."""

import argparse
import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from controller.errors import RuntimeFailure, UsageError
from controller.instance_lock import refuse_if_held
from firmware_bridge.errors import LinkDown, LinkError
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.link_stats import Grade, LinkStats, LinkVerdict, grade_link
from firmware_bridge.messages import MODEL_NAMES, TABLE_HASH, IdentifyReply, Ping
from firmware_bridge.serial_port import serial_opener


def run_link(args: argparse.Namespace) -> int:
    """Run the link check and print its report."""
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    if args.port is None:  # the table's own port, from its config
        from controller.commands.diag_actions import read_config

        args.port = read_config(args)[0].serial.port
    if not args.debug:
        logging.getLogger("firmware_bridge").setLevel(logging.ERROR)
    refuse_if_held(args.port)  # never take the port from a running daemon
    report = asyncio.run(check_link(args.port, args.count, args.timeout, args.deadline))
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(describe(report))
    return 1 if report.verdict.grade is Grade.FAILING else 0


@dataclass
class LinkReport:
    """What `diag link` found."""

    port: str
    identify: IdentifyReply
    pings_sent: int
    pings_answered: int
    stats: LinkStats
    out_of_time: bool = False
    """The deadline came before every ping was sent."""

    @property
    def verdict(self) -> LinkVerdict:
        """The link's grade from what the pings saw."""
        return grade_link(self.stats, self.pings_sent, self.pings_answered)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of `--json`."""
        stats = self.stats.as_dict()
        keys = ("rtt_ms_p50", "rtt_ms_p99", "crc_errors", "retransmits", "reconnects")
        return {
            "port": self.port,
            "identify": identify_dict(self.identify),
            "pings_sent": self.pings_sent,
            "pings_answered": self.pings_answered,
            **{key: stats[key] for key in keys},
            "grade": self.verdict.grade.value,
            "grade_reasons": list(self.verdict.reasons),
            "out_of_time": self.out_of_time,
            "stats": stats,
        }


def identify_dict(reply: IdentifyReply) -> dict[str, Any]:
    """The identify data in plain JSON types."""
    return {
        "firmware": f"{reply.firmware_major}.{reply.firmware_minor}.{reply.firmware_patch}",
        "protocol_version": reply.protocol_version,
        "table_hash": f"{reply.table_hash:08x}",
        "table_hash_matches": reply.table_hash == TABLE_HASH,
        "model": reply.model,
        "model_name": MODEL_NAMES.get(reply.model, "unknown model"),
        "seats": reply.seats,
        "zones_per_seat": reply.zones_per_seat,
        "max_payload": reply.max_payload,
        "max_window": reply.max_window,
        "reset_cause": reply.reset_cause.name.lower(),
        "boot_count": reply.boot_count,
        "event_counter": reply.event_counter,
    }


async def check_link(port: str, count: int, wait_s: float, deadline_s: float = 60.0) -> LinkReport:
    """Handshake, `count` pings one after another (until `deadline_s`), then the statistics."""
    link = Link(serial_opener(port), LinkSettings(connect_timeout=wait_s))
    try:
        await link.start()
    except LinkError as error:
        raise RuntimeFailure(f"cannot talk to the table MCU on {port}: {error}") from None
    try:
        answered = sent = 0
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(deadline_s):
                for token in range(count):
                    answered += await _ping(link, token, wait_s)
                    sent += 1  # a ping the deadline cut short counts as not sent
        assert link.identify is not None
        return LinkReport(port, link.identify, sent, answered, link.stats(), sent < count)
    finally:
        await link.close()


async def _ping(link: Link, token: int, wait_s: float) -> int:
    try:
        pong = await link.request(Ping(token))
    except LinkDown:
        with contextlib.suppress(TimeoutError, LinkError):
            await link.wait_connected(wait_s)
        return 0
    except LinkError:
        return 0
    return int(pong.token == token)


def describe(report: LinkReport) -> str:
    """The report in plain words for a technician."""
    ident, stats = report.identify, report.stats
    info = identify_dict(ident)
    matches = "matches this daemon" if info["table_hash_matches"] else "DIFFERS from this daemon"
    lines = [
        f"Table MCU on {report.port}: connected.",
        f"  Firmware {info['firmware']}, protocol {ident.protocol_version}, "
        f"message table {info['table_hash']} ({matches}).",
        f"  Table model: {info['model_name']}; {ident.seats} seats, "
        f"{ident.zones_per_seat} zones per seat.",
        f"  Last start: {info['reset_cause'].replace('_', ' ')}; boot number {ident.boot_count}.",
        f"Pings: {report.pings_sent} sent, {report.pings_answered} answered.",
        f"Round trip: median {_ms(stats.rtt_ms_p50)}, 99th percentile {_ms(stats.rtt_ms_p99)}.",
        f"Line: {stats.crc_errors} damaged frames (checksum errors), "
        f"{stats.retransmits} resent commands, {stats.reconnects} reconnects.",
        *(["Stopped at the deadline before every ping was sent."] if report.out_of_time else []),
        _result(report.verdict),
    ]
    return "\n".join(lines)


def _result(verdict: LinkVerdict) -> str:
    figures = "; ".join(verdict.reasons)
    advice = "check the USB cable, the MCU power and for motors running next to the cable"
    if verdict.grade is Grade.HEALTHY:
        return "Result: OK, the link to the table MCU is healthy."
    if verdict.grade is Grade.DEGRADED:
        return f"Result: DEGRADED, the link works but the line is noisy ({figures}): {advice}."
    return f"Result: FAILING ({figures}): {advice}."


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} ms"
