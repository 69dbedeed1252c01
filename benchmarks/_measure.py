"""Timing and memory helpers shared by the benchmark scripts."""

import time
import tracemalloc


def best_time(func, repeat, number=1):
    """Best wall time of ``repeat`` rounds of ``number`` calls of ``func``, seconds
    per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def best_cpu_time(func, repeat, number=1):
    """Like :func:`best_time` with the CPU time of this thread: on a shared machine
    it leaves out the time spent waiting for a core."""
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        for _ in range(number):
            func()
        best = min(best, (time.thread_time() - start) / number)
    return best


def peak_memory(func):
    """Largest extra allocation traced by ``tracemalloc`` during one call, bytes."""
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak
