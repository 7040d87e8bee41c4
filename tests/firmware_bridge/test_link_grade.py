"""Grading a link from its statistics: what `diag link` tells a technician; and how often a
noisy line puts the frame ring into the log."""

import logging
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.frame import encode
from firmware_bridge.link import LinkSettings
from firmware_bridge.link_stats import FrameRing, Grade, LinkStats, grade_link

CLEAN = LinkStats(
    frames_sent=200, frames_received=200, bytes_sent=2400, bytes_received=2400, crc_errors=0,
    frame_errors=0, protocol_errors=0, retransmits=0, timeouts=0, reconnects=0, mcu_resets=0,
    event_gaps=0, duplicate_replies=0, late_replies=0, bugs=0, rtt_samples=100, rtt_ms_p50=1.0,
    rtt_ms_p99=2.0,
)  # fmt: skip


def test_a_clean_line_is_healthy() -> None:
    assert grade_link(CLEAN, 100, 100).grade is Grade.HEALTHY


def test_one_percent_corruption_with_119_resends_per_100_pings_is_not_healthy() -> None:
    noisy = replace(CLEAN, frames_sent=420, frames_received=330, crc_errors=9, retransmits=119)
    verdict = grade_link(noisy, 100, 100)
    assert verdict.grade is Grade.FAILING
    assert "119 resends per 100 commands" in verdict.reasons


def test_a_few_resends_are_degraded_with_the_figures() -> None:
    verdict = grade_link(replace(CLEAN, crc_errors=3, retransmits=8), 100, 100)
    assert verdict.grade is Grade.DEGRADED
    assert verdict.reasons == ("8 resends per 100 commands", "3 damaged frames of 203")


def test_an_unanswered_ping_or_a_dropped_link_is_failing() -> None:
    assert grade_link(CLEAN, 100, 99).grade is Grade.FAILING
    assert grade_link(replace(CLEAN, reconnects=1), 100, 100).grade is Grade.FAILING


@given(st.integers(0, 1000), st.integers(0, 1000), st.integers(1, 500))
def test_more_errors_never_grade_better(resends: int, damaged: int, pings: int) -> None:
    order = [Grade.HEALTHY, Grade.DEGRADED, Grade.FAILING]
    stats = replace(CLEAN, retransmits=resends, crc_errors=damaged)
    worse = replace(stats, retransmits=resends + 10, crc_errors=damaged + 10)
    grade, worse_grade = (
        grade_link(stats, pings, pings).grade,
        grade_link(worse, pings, pings).grade,
    )
    assert order.index(worse_grade) >= order.index(grade)


def test_a_noisy_line_puts_the_frame_ring_in_the_log_once_a_minute_with_the_errors_between(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ring = FrameRing(4)
    ring.add((0.0, "tx", encode(0x10, b"\x01", seq=1)))
    ring.add((0.1, "bad", b"\x05\x01\x02"))
    interval = LinkSettings().ring_dump_interval
    caplog.set_level(logging.WARNING, logger="firmware_bridge.link_stats")
    for tenth in range(1, 1200):  # two minutes of an error every 0.1 s
        ring.dump(tenth / 10, "checksum mismatch", interval)

    dumps = [record.getMessage() for record in caplog.records]
    assert interval == 60.0
    assert len(dumps) == 2, dumps
    assert dumps[0].startswith("protocol error: checksum mismatch; last 2 frames:")
    assert "type=0x10 seq=1" in dumps[0] and "raw=050102" in dumps[0]
    assert dumps[1].startswith("protocol error: checksum mismatch (599 more errors since")
