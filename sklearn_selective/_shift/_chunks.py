"""Splitting a stream of samples into chunks: by size, by number, or by time."""

import warnings
from numbers import Integral, Number
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._warnings import warn


class Chunks(NamedTuple):
    """Chunk ``c`` holds the samples ``members[c]``; ``start``/``stop`` label it."""

    start: np.ndarray  # first index (size/number) or period start (time)
    stop: np.ndarray  # one past the last index, or the next period's start
    partial: np.ndarray  # bool: the last chunk by size when it is short
    members: list  # index arrays into the samples
    chunk_id: np.ndarray  # (n_samples,) chunk of each sample


def _check_count(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def chunk_rows(members):
    """The rows of a chunk to index its samples with: a slice where its
    ``members`` are consecutive (a view, not a copy of a large chunk), else
    ``members`` itself."""
    members = np.asarray(members)
    if members.size and np.array_equal(
        members, np.arange(members[0], members[0] + members.size)
    ):
        return slice(int(members[0]), int(members[0]) + members.size)
    return members


def _contiguous(n_samples, sizes, partial):
    stop = np.cumsum(sizes)
    start = stop - sizes
    members = [np.arange(a, b) for a, b in zip(start, stop, strict=True)]
    chunk_id = np.repeat(np.arange(len(sizes)), sizes)
    return Chunks(start, stop, partial, members, chunk_id)


def _by_size(n_samples, chunk_size):
    n_full, rest = divmod(n_samples, chunk_size)
    sizes = [chunk_size] * n_full + ([rest] if rest else [])
    partial = np.zeros(len(sizes), dtype=bool)
    partial[-1] = bool(rest)
    return _contiguous(n_samples, np.asarray(sizes), partial)


def _by_number(n_samples, n_chunks):
    if n_chunks > n_samples:
        raise ValueError(
            f"n_chunks={n_chunks} is larger than the number of samples "
            f"({n_samples}); use at most {n_samples} chunks."
        )
    # Sizes differ by at most one (np.array_split): no chunk is partial.
    sizes = np.full(n_chunks, n_samples // n_chunks)
    sizes[: n_samples % n_chunks] += 1
    return _contiguous(n_samples, sizes, np.zeros(n_chunks, dtype=bool))


def _by_time(n_samples, timestamps, freq):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is an optional extra
        raise ImportError(
            "Chunking by time needs pandas: pip install pandas, or chunk by "
            "chunk_size / n_chunks."
        ) from exc
    if np.ndim(timestamps) != 1 or len(timestamps) != n_samples:
        raise ValueError(
            f"timestamps must hold one time per sample of X ({n_samples}); got "
            f"shape {np.shape(timestamps)}."
        )
    times = _read_times(pd, np.asarray(timestamps))
    if times.isna().any():
        raise ValueError(
            f"timestamps contain {int(times.isna().sum())} missing values (NaT); "
            "every sample needs a time."
        )
    zone = times.tz
    step = _period_step(times[:1].tz_localize(None) if zone else times[:1], freq)
    wall_clock = _is_calendar(step)
    if wall_clock:  # days and longer of the samples' own wall clock (a Berlin
        # day: 23 or 25 hours at a clock change)
        chunk_id, origin = _period_ids(times.tz_localize(None) if zone else times, step)
    else:  # spans of absolute time: the hour the clock repeats is two chunks
        chunk_id, origin = _span_ids(pd, times, step.nanos)
    n_periods = int(chunk_id.max()) + 1
    if n_periods > MAX_PERIODS:
        raise ValueError(
            f"freq={freq!r} cuts the span of the timestamps ({times.min()} to "
            f"{times.max()}) into {n_periods:,} chunks, most of them empty (at "
            f"most {MAX_PERIODS:,}); choose a coarser freq such as 'h' or 'D'."
        )
    # Every period between the first and the last is a chunk, empty ones too.
    order = np.argsort(chunk_id, kind="stable")
    sizes = np.bincount(chunk_id, minlength=n_periods)
    members = np.split(order, np.cumsum(sizes)[:-1])
    if wall_clock:
        first = pd.Period(ordinal=int(origin), freq=step.base)
        calendar = pd.period_range(start=first, periods=n_periods, freq=step)
        start, stop = calendar.start_time, (calendar + 1).start_time
    else:
        start = pd.DatetimeIndex(
            (origin + step.nanos * np.arange(n_periods)).astype("datetime64[ns]")
        )
        stop = start + pd.Timedelta(step.nanos, unit="ns")
    if zone is not None:  # the bounds in the samples' zone, as given
        start, stop = (_localize(bounds, zone, wall_clock) for bounds in (start, stop))
    start, stop = start.to_numpy(), stop.to_numpy()
    partial = np.zeros(n_periods, dtype=bool)
    return Chunks(start, stop, partial, members, chunk_id)


def _read_times(pd, values):
    """``values`` as a DatetimeIndex. Refused with what to do: numbers (their
    unit is a guess) and times whose UTC offsets differ (strings written from
    a zone across a clock change name no zone; not read as instants of UTC)."""
    numbers = values.dtype.kind in "biuf" or (
        values.dtype.kind == "O"
        and values.size
        and isinstance(values.flat[0], Number)
        and not isinstance(values.flat[0], bool)
    )
    if numbers:
        raise ValueError(
            f"timestamps are numbers (e.g. {values.flat[0]}), which pandas reads "
            "as nanoseconds since 1970, so unix seconds would all fall on "
            "1970-01-01. Pass dates: pd.to_datetime(timestamps, unit='s') (or "
            "'ms') for unix times."
        )
    with warnings.catch_warnings():
        # pandas 2.1-2.2 warn before returning mixed offsets as objects
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return pd.DatetimeIndex(pd.to_datetime(values))
        except (TypeError, ValueError) as exc:
            try:
                pd.to_datetime(values, utc=True)
            except (TypeError, ValueError):
                raise ValueError(
                    f"timestamps could not be read as dates: {exc}"
                ) from exc
    raise ValueError(
        "timestamps mix UTC offsets (e.g. '+01:00' and '+02:00' across a clock "
        "change), or times with and without one, so they name no time zone to "
        "cut days in. Pass them as one zone's times: pd.to_datetime(timestamps, "
        "utc=True) (which reads times without an offset as UTC), and "
        ".tz_convert('Europe/Berlin') (your zone) for its local days."
    ) from None


def _period_ids(times, step):
    """``(chunk of each sample, the first chunk's base ordinal)`` of periods
    of the naive wall-clock ``times``; a multiple ('2D', '3M') counts periods
    of its base from the first sample's (periods of '2D' would each start at
    a sample's own day)."""
    base = times.to_period(step.base).asi8
    first = base.min()
    return (base - first) // step.n, first


def _span_ids(pd, times, span):
    """``(chunk of each sample, the first chunk's start in UTC nanoseconds)``
    of fixed spans of ``span`` nanoseconds ('h', '2h', '90min') stepping from
    midnight of the first sample's local day, as pandas' resample does: '2h'
    chunks start at even hours of the local clock, in any zone (Kolkata's
    too, half an hour off UTC)."""
    zone = times.tz
    naive = times.tz_convert(None) if zone is not None else times
    ticks = naive.as_unit("ns").asi8
    midnight = pd.DatetimeIndex([times.min().tz_localize(None).normalize()])
    if zone is not None:  # the local midnight, as an instant of UTC
        midnight = _localize(midnight, zone, True).tz_convert(None)
    midnight = midnight.as_unit("ns").asi8[0]
    origin = midnight + (ticks.min() - midnight) // span * span
    return (ticks - origin) // span, origin


def _period_step(first, freq):
    """The period frequency ``freq`` names (an offset): a period alias ('M',
    'Q', '2h') or the offset alias resample takes for it ('ME', 'QE', 'YE');
    ``first``: a naive time to read it on."""
    from pandas.tseries.frequencies import to_offset
    from pandas.tseries.offsets import BusinessDay

    business = r"(PeriodDtype\[B\]|Period with BDay)"  # said below, in our words
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", business, FutureWarning)
            step = first.to_period(freq).freq
    except (TypeError, ValueError) as exc:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                step = first.to_period(to_offset(freq)).freq
        except (AttributeError, TypeError, ValueError):
            raise ValueError(
                f"freq={freq!r} is not a pandas period frequency (e.g. 'D', "
                f"'W', 'M' or 'ME', 'h'): {exc}"
            ) from exc
    if isinstance(step, BusinessDay):
        raise ValueError(
            f"freq={freq!r}: a period of business days puts a weekend's samples "
            "in the next Monday's chunk, before its start, and pandas deprecates "
            "such periods. Pass freq='D' (a weekend day is then a chunk of its "
            "own, empty without samples), or drop the weekend's samples first."
        )
    return step


def _is_calendar(step):
    """Whether ``step`` counts calendar periods of the wall clock (days and
    their multiples, weeks, months, ...), or is a fixed span of absolute time
    (hours, minutes, seconds and their multiples, '24h' too)."""
    from pandas.tseries.offsets import Day, Tick

    return not isinstance(step, Tick) or isinstance(step, Day)


def _localize(bounds, zone, wall_clock):
    """Period bounds in ``zone``. Wall-clock bounds the clock skips (spring
    forward) become the first instant after the gap, and ones it shows twice
    (fall back) the first of the two instants; absolute ones are UTC."""
    if not wall_clock:
        return bounds.tz_localize("UTC").tz_convert(zone)
    return bounds.tz_localize(
        zone, ambiguous=np.ones(len(bounds), dtype=bool), nonexistent="shift_forward"
    )


# Chunks by time at most: every period of the span is a chunk, empty or not.
MAX_PERIODS = 100_000


def make_chunks(n_samples, chunk_size, n_chunks, timestamps, freq):
    """Chunks from exactly one rule; one chunk of everything when none is given."""
    given = [
        name
        for name, value in (
            ("chunk_size", chunk_size),
            ("n_chunks", n_chunks),
            ("timestamps", timestamps),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise ValueError(
            f"Chunk by one rule only; got {given}. Pass chunk_size, n_chunks, or "
            "timestamps with freq."
        )
    if (timestamps is None) != (freq is None):
        raise ValueError(
            "Chunking by time needs both timestamps (one per sample) and freq (a "
            "pandas frequency string such as 'D' or 'W')."
        )
    if chunk_size is not None:
        return _by_size(n_samples, _check_count(chunk_size, "chunk_size"))
    if n_chunks is not None:
        return _by_number(n_samples, _check_count(n_chunks, "n_chunks"))
    if timestamps is not None:
        return _by_time(n_samples, timestamps, freq)
    return _by_number(n_samples, 1)


def undefined_reason(n_samples, n_accepted, min_chunk_size):
    """Why a chunk's estimates are NaN (empty string when they are not)."""
    if n_samples == 0:
        return "no samples in this period"
    if n_samples < min_chunk_size:
        return f"{n_samples} samples < min_chunk_size={min_chunk_size}"
    if n_accepted < min_chunk_size:
        return (
            f"selective accuracy and per-class values: {n_accepted} accepted "
            f"samples < min_chunk_size={min_chunk_size}"
        )
    return ""


def warn_undefined(reasons):
    """One warning for all chunks too small for an estimate."""
    flagged = np.flatnonzero(reasons != "")
    if flagged.shape[0]:
        warn(
            f"{flagged.shape[0]} chunk(s) too small for an estimate (chunks "
            f"{flagged[:5].tolist()}{'...' if flagged.shape[0] > 5 else ''}: "
            f"{reasons[flagged[0]]}); their estimates are NaN, see "
            "result.reason. Use larger chunks or a smaller min_chunk_size.",
            UndefinedMetricWarning,
        )
