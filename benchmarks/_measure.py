"""Timing and memory helpers shared by the benchmark scripts."""

import time
import tracemalloc


def best_time(func, repeat):
    """Best wall time of ``repeat`` calls of ``func``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(func):
    """Largest extra allocation traced by ``tracemalloc`` during one call, bytes."""
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak
