"""The diag reports in plain words for a technician's terminal."""

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from controller.diag.status_view import StatusData, healthy

if TYPE_CHECKING:  # a client renders one report: it loads no other report's module
    from controller.diag.config_view import ConfigReport
    from controller.diag.events import EventLine, EventsReport
    from controller.diag.gpio import GpioReport
    from controller.diag.selftest import SelftestReport
    from controller.diag.tiles import EnrolReport, TilesReport


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} ms"


def status_text(report: "StatusData") -> str:
    """`diag status` (the report as JSON values: a client renders it without decoding it)."""
    problems = report["problems"]
    verdict = "OK" if healthy(report) else f"PROBLEM ({len(problems)})"
    lines = [f"Table {report['table']}: {verdict}   [{report['mode']}]", f"  {report['headline']}"]
    if problems:
        lines.append("What is wrong:")
        lines += [f"  - {problem}" for problem in problems]
    if report["session"]:
        paused = ", paused" if report["paused"] else ""
        hand = f"hand {report['hand']}" if report["hand"] else "between hands"
        played = report["hands_played"]
        lines.append(f"Session {report['session']}: {hand}, {played} played{paused}")
        lines += [f"  {s['seat']} {s['player']:<16} {s['score']:+d}" for s in report["seats"]]
    mcu = report["mcu"]
    if mcu["connected"]:
        lines.append(
            f"MCU: connected, firmware {mcu['firmware']}, protocol {mcu['protocol']}, boot "
            f"#{mcu['boot_count']} ({mcu['reset_cause']}), up {_duration(mcu['uptime_s'])}"
        )
    else:
        lines.append(f"MCU: NOT connected ({mcu['problem']})")
    lines.append(
        f"  link: round trip {_ms(mcu['rtt_ms_p50'])} median, {_ms(mcu['rtt_ms_p99'])} p99; "
        f"{mcu['crc_errors']} damaged frames, {mcu['retransmits']} resent, "
        f"{mcu['reconnects']} reconnects"
    )
    hub = report["hub"]
    if not hub["configured"]:
        lines.append("Hub: not configured (results go to the log)")
    else:
        state = "connected" if hub["connected"] else "NOT connected"
        recorder = "recorder online" if hub["hub_online"] else "recorder offline"
        oldest = f", oldest unacked {hub['oldest_unacked']}" if hub["oldest_unacked"] else ""
        lines.append(
            f"Hub: {state}, {recorder}; outbox {hub['outbox_depth']} waiting{oldest}; "
            f"{hub['refused_results']} refused"
        )
    inputs = report["inputs"]
    pressed = [name for name, on in inputs.items() if on]
    if inputs:
        lines.append(f"Panel: {'pressed: ' + ', '.join(pressed) if pressed else 'all released'}")
    v = report["versions"]
    lines.append(
        f"Versions: daemon {v['daemon']}, firmware {v['firmware'] or 'n/a'}, protocol "
        f"{v['protocol'] or 'n/a'}, ruleset {v['ruleset']} (data {v['ruleset_data']})"
    )
    refused = report["control_refused"]
    said = f"; {refused} diag requests refused" if refused else ""
    boots = report["boot_count"]
    lines.append(f"Up {_duration(report['uptime_s'])}; MCU boot counter {boots}{said}")
    return "\n".join(lines)


def selftest_text(report: "SelftestReport") -> str:
    """`diag selftest`."""
    lines = []
    for step in report.steps:
        mark = "PASS" if step.passed else "FAIL"
        detail = f": {step.detail}" if step.detail else ""
        lines.append(f"{mark}  {step.name}{detail}")
        if not step.passed and step.check:
            lines.append(f"      check: {step.check}")
    failed = sum(not s.passed for s in report.steps)
    lines.append("Result: all steps passed" if not failed else f"Result: {failed} step(s) FAILED")
    return "\n".join(lines)


def tiles_text(report: "TilesReport") -> str:
    """`diag tiles`."""
    lines = [f"Tile set {report.tileset}:"]
    for s in report.sets:
        good = not (s.missing or s.duplicated or s.unknown or s.unread)
        lines.append(f"  set {s.set}: {s.tiles_read} tiles read" + (", complete" if good else ""))
        if s.missing:
            lines.append(f"    missing: {' '.join(s.missing)}")
        if s.duplicated:
            lines.append(f"    read twice: {'; '.join(s.duplicated)}")
        if s.unknown:
            lines.append(f"    unknown tags (not in the file): {' '.join(s.unknown)}")
        if s.unread:
            lines.append(f"    {s.unread} places read no tag: check the wall reader")
    lines.append("Result: OK" if report.healthy else "Result: PROBLEM (see above)")
    return "\n".join(lines)


def enrol_text(report: "EnrolReport") -> str:
    """`diag tiles enroll`."""
    if report.healthy:
        return f"Tile set {report.name}: {report.tiles} tags written to {report.path}"
    lines = [f"Tile set {report.name}: NOT written ({report.tiles} tags learnt):"]
    lines += [f"  - {problem}" for problem in report.problems]
    return "\n".join(lines)


def gpio_text(report: "GpioReport") -> str:
    """`diag gpio`."""
    lines = [
        f"  {name.replace('_', ' '):<12} {'PRESSED' if on else 'released'}"
        if name != "estop"
        else f"  {'e-stop':<12} {'OPEN (stopped)' if on else 'closed (safe)'}"
        for name, on in report.inputs.items()
    ]
    if report.blinked:
        lines.append(f"Blinked {report.blinked.replace('_', ' ')} 3 times.")
    lines += [f"PROBLEM: {problem}" for problem in report.problems]
    return "Inputs:\n" + "\n".join(lines)


def config_text(report: "ConfigReport") -> str:
    """`diag config`."""
    lines = [f"# effective configuration ({report.source}); (default) marks defaults"]
    for key in report.keys:
        mark = "   (default)" if key.default else ""
        lines.append(f"{key.key} = {key.value!r}{mark}")
    return "\n".join(lines)


def event_text(line: "EventLine") -> str:
    """One feed line."""
    at = datetime.fromtimestamp(line.at, UTC).strftime("%H:%M:%S.%f")[:-3]
    return f"{at} {line.source:<5} {line.text}"


def events_text(report: "EventsReport") -> str:
    """`diag events` without --follow."""
    text = "\n".join(event_text(line) for line in report.lines) or "(no events yet)"
    return f"{text}\nPROBLEM: {report.problem}" if report.problem else text
