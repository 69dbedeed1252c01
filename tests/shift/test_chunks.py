"""Chunks by time with time zones, and spans too long for the frequency."""

import pytest

from sklearn_selective._shift._chunks import MAX_PERIODS, make_chunks

pd = pytest.importorskip("pandas")


def _by_time(times, freq):
    return make_chunks(len(times), None, None, times, freq)


def test_tz_aware_days_are_local_days():
    # 4-hourly samples in Berlin over the spring clock change: the sample at
    # local midnight of the 29th (23:00 UTC of the 28th) was cut at the UTC day.
    times = pd.date_range("2026-03-28 20:00", periods=8, freq="4h", tz="Europe/Berlin")
    for given in (times, pd.Series(times), times.to_numpy()):
        chunks = _by_time(given, "D")
        assert chunks.chunk_id.tolist() == [0, 1, 1, 1, 1, 1, 1, 2]
    assert [str(start) for start in chunks.start] == [
        "2026-03-28 00:00:00+01:00",
        "2026-03-29 00:00:00+01:00",
        "2026-03-30 00:00:00+02:00",  # the clock moved on: still local midnight
    ]
    assert str(chunks.stop[-1]) == "2026-03-31 00:00:00+02:00"


def test_tz_aware_hours_keep_the_repeated_hour_apart():
    # Autumn: the clock shows 02:30 twice, one hour apart; hourly chunks keep
    # the two hours apart (absolute time), each labelled in local time.
    times = pd.date_range("2026-10-25 00:30", periods=5, freq="h", tz="Europe/Berlin")
    chunks = _by_time(times, "h")
    assert chunks.chunk_id.tolist() == [0, 1, 2, 3, 4]
    assert [str(start)[11:] for start in chunks.start] == [
        "00:00:00+02:00",
        "01:00:00+02:00",
        "02:00:00+02:00",
        "02:00:00+01:00",
        "03:00:00+01:00",
    ]


def test_naive_times_are_unchanged():
    times = pd.date_range("2024-01-01", periods=48, freq="h")
    chunks = _by_time(times, "D")
    assert chunks.chunk_id.tolist() == [0] * 24 + [1] * 24
    assert pd.Timestamp(chunks.start[1]) == pd.Timestamp("2024-01-02")


def test_a_frequency_too_fine_for_the_span_is_refused():
    # Six years in milliseconds made numpy raise a raw MemoryError.
    times = pd.to_datetime(["2020-01-01", "2026-01-01"])
    with pytest.raises(ValueError, match="choose a coarser freq"):
        _by_time(times, "ms")
    span = pd.date_range("2024-01-01", periods=2, freq=f"{MAX_PERIODS - 1}s")
    assert len(_by_time(span, "s").start) == MAX_PERIODS
