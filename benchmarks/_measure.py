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


def best_times(func, repeat, number=1):
    """``(wall, cpu)``: the best of each clock over the same ``repeat`` rounds of
    ``number`` calls, in seconds per call."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        start_wall, start_cpu = time.perf_counter(), time.thread_time()
        for _ in range(number):
            func()
        cpu = min(cpu, (time.thread_time() - start_cpu) / number)
        wall = min(wall, (time.perf_counter() - start_wall) / number)
    return wall, cpu


def peak_memory(func):
    """Largest extra allocation traced by ``tracemalloc`` during one call, bytes."""
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak
