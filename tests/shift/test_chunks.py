"""Chunks by time with time zones, and spans too long for the frequency."""

import warnings

import numpy as np
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


def test_strings_with_offsets_across_a_clock_change_say_what_to_do():
    # A tz-aware column written to CSV: '+01:00' before the clock change,
    # '+02:00' after; pandas' own advice (utc=True) named no argument of ours.
    times = pd.date_range(
        "2024-03-30 20:00", periods=20, freq="37min", tz="Europe/Berlin"
    )
    written = times.strftime("%Y-%m-%d %H:%M:%S%z").tolist()
    with pytest.raises(ValueError, match=r"mix UTC offsets.*tz_convert"):
        _by_time(written, "D")
    # What the message says to do gives the local days.
    read = pd.to_datetime(written, utc=True).tz_convert("Europe/Berlin")
    assert (
        _by_time(read, "D").chunk_id.tolist() == _by_time(times, "D").chunk_id.tolist()
    )
    # One offset throughout is one zone and is read as given; text that is no
    # date keeps pandas' reason.
    assert _by_time(written[:5], "h").chunk_id.tolist() == [0, 0, 1, 1, 2]
    with pytest.raises(ValueError, match="could not be read as dates"):
        _by_time(["2024-01-01", "tomorrow-ish"], "D")


@pytest.mark.parametrize("freq", ["M", "Q", "Y", "2h", "D", "W"])
def test_period_aliases_warn_nothing(freq):
    # pandas 2.2 deprecated 'M', 'Q' and 'Y' as offsets (not as periods): the
    # length check read them as offsets and leaked a FutureWarning.
    times = pd.date_range("2024-01-01", periods=50, freq="5D", tz="Europe/Berlin")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _by_time(times, freq)


@pytest.mark.parametrize("freq", ["B", "2B"])
def test_business_days_are_refused_without_pandas_warning(freq):
    # pandas put a Saturday's samples in the next Monday's period, before its
    # start time, and warned FutureWarning (PeriodDtype[B] is deprecated).
    times = pd.date_range("2024-01-01", periods=50, freq="5h")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"freq='2?B'.*Pass freq='D'"):
            _by_time(times, freq)


@pytest.mark.skipif(
    tuple(map(int, pd.__version__.split(".")[:2])) < (2, 2),
    reason="'ME', 'QE' and 'YE' came with pandas 2.2",
)
@pytest.mark.parametrize(("offset", "period"), [("ME", "M"), ("QE", "Q"), ("YE", "Y")])
def test_resample_spellings_are_the_periods(offset, period):
    # resample('ME') is a month; estimate(freq='ME') was refused.
    times = pd.date_range("2024-01-01", periods=50, freq="9D")
    got, expected = _by_time(times, offset), _by_time(times, period)
    assert got.chunk_id.tolist() == expected.chunk_id.tolist()
    assert (got.start == expected.start).all() and (got.stop == expected.stop).all()


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_numbers_are_refused_with_their_unit(dtype):
    # Unix seconds were read as nanoseconds: 50 days in one chunk of 1970.
    unix = (1_700_000_000 + np.arange(400) * 3 * 3600).astype(dtype)
    with pytest.raises(ValueError, match=r"timestamps are numbers.*unit='s'"):
        _by_time(unix, "D")
    as_objects = (unix.astype(object), pd.array(unix.astype(np.int64), "Int64"))
    for given in as_objects:  # a column of Python numbers, a nullable one
        with pytest.raises(ValueError, match=r"timestamps are numbers \(e.g. 17"):
            _by_time(given, "D")
    days = _by_time(pd.to_datetime(unix, unit="s"), "D")  # what it says to do
    assert pd.Timestamp(days.start[0]) == pd.Timestamp("2023-11-14")
    assert len(days.start) == 51  # 50 days from 22:13 on the 14th


def test_spans_step_from_local_midnight_in_a_half_hour_zone():
    # Kolkata is UTC+05:30: '2h' rounded local midnight to a UTC hour and
    # started on the day before at 23:30; 'h' chunks started at xx:30.
    times = pd.to_datetime(
        ["2024-03-05 01:10", "2024-03-05 02:10", "2024-03-05 03:10", "2024-03-05 05:40"]
    ).tz_localize("Asia/Kolkata")
    two = _by_time(times, "2h")
    resampled = pd.Series(1, index=times).resample("2h").size()
    assert [pd.Timestamp(t) for t in two.start] == list(resampled.index)
    assert two.chunk_id.tolist() == [0, 1, 1, 2]
    hours = _by_time(times, "h")
    assert [str(pd.Timestamp(t))[11:] for t in hours.start[:2]] == [
        "01:00:00+05:30",
        "02:00:00+05:30",
    ]


def test_24_hours_are_a_span_and_a_day_is_a_calendar_day():
    # Over the spring clock change Berlin's 29 March has 23 hours: 'D' chunks
    # are local days, '24h' (like '1440min') chunks are spans of absolute
    # time from local midnight; both started at the first sample's hour.
    times = pd.date_range("2026-03-28 20:10", periods=10, freq="5h", tz="Europe/Berlin")
    day, hours = _by_time(times, "D"), _by_time(times, "24h")
    assert day.chunk_id.tolist() == hours.chunk_id.tolist()
    assert str(pd.Timestamp(day.start[2])) == "2026-03-30 00:00:00+02:00"
    assert str(pd.Timestamp(hours.start[2])) == "2026-03-30 01:00:00+02:00"
    naive = _by_time(times.tz_localize(None), "1440min")
    assert str(pd.Timestamp(naive.start[0])) == "2026-03-28 00:00:00"
