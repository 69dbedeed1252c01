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


@pytest.mark.parametrize("zone", [None, "Europe/Berlin"])
def test_multiples_of_an_hour_step_from_midnight(zone):
    # '2h' periods started at each sample's own hour, so samples in odd hours
    # had no chunk (numpy's "negative elements" error); they step from
    # midnight of the first sample's day, as pandas' resample does.
    times = pd.to_datetime(
        ["2024-01-01 03:15", "2024-01-01 04:10", "2024-01-01 06:59", "2024-01-01 11:00"]
    )
    if zone is not None:
        times = times.tz_localize(zone)
    chunks = _by_time(times, "2h")
    assert chunks.chunk_id.tolist() == [0, 1, 2, 4]
    assert [pd.Timestamp(t).hour for t in chunks.start] == [2, 4, 6, 8, 10]
    assert pd.Timestamp(chunks.stop[-1]).hour == 12
    assert [m.tolist() for m in chunks.members] == [[0], [1], [2], [], [3]]
    # Steps that do not divide a day go on across midnight, from the first day.
    assert _by_time(times, "5h").chunk_id.tolist() == [0, 0, 1, 2]


def test_multiples_of_an_hour_over_the_repeated_hour():
    # Two-hour chunks of absolute time from local midnight (22:00 UTC): the
    # repeated 02:30 falls in one chunk with the first 02:30.
    times = pd.date_range("2026-10-25 00:30", periods=5, freq="h", tz="Europe/Berlin")
    chunks = _by_time(times, "2h")
    assert chunks.chunk_id.tolist() == [0, 0, 1, 1, 2]
    assert [str(start)[11:] for start in chunks.start] == [
        "00:00:00+02:00",
        "02:00:00+02:00",
        "03:00:00+01:00",
    ]


def test_multiples_of_days_and_months_step_from_the_first_period():
    times = pd.date_range("2024-01-03", periods=10, freq="5D")  # to Feb 17
    two_days = _by_time(times, "2D")
    assert two_days.chunk_id.tolist() == [0, 2, 5, 7, 10, 12, 15, 17, 20, 22]
    assert pd.Timestamp(two_days.start[0]) == pd.Timestamp("2024-01-03")
    two_weeks = _by_time(times, "2W")  # weeks ending on Sunday
    assert two_weeks.chunk_id.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    assert pd.Timestamp(two_weeks.start[1]) == pd.Timestamp("2024-01-15")
    months = _by_time(pd.to_datetime(["2024-02-10", "2024-05-01", "2024-09-30"]), "3M")
    assert months.chunk_id.tolist() == [0, 1, 2]
    assert [str(pd.Timestamp(t).date()) for t in months.start] == [
        "2024-02-01",
        "2024-05-01",
        "2024-08-01",
    ]
