"""Where a point's CPU goes: the time each kind of process on this machine spent while a
slice ran, from /proc. The bench runs everything on one machine, so what a request
costs is the sum over the web processes, PostgreSQL, Redis and the load generator
itself; the machine's busy time holds all of them and whatever else ran."""

import os
import subprocess
from pathlib import Path

from .processes import children

TICK = os.sysconf("SC_CLK_TCK")
KINDS = ("web", "postgres", "redis", "load generator", "machine")


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (field 3 onwards)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return []


def cpu_seconds(pids: list[int]) -> float:
    """The processes' user and system time, in seconds (a process gone counts none)."""
    return sum((int(f[11]) + int(f[12])) / TICK for f in map(_stat, pids) if f)


def _reaped(pid: int) -> float:
    """The user and system time of a process's children it has waited for: where a
    PostgreSQL backend's time goes when its connection closes."""
    fields = _stat(pid)
    return (int(fields[13]) + int(fields[14])) / TICK if fields else 0.0


def _pids(*pgrep: str) -> list[int]:
    found = subprocess.run(["pgrep", *pgrep], capture_output=True, text=True).stdout
    return [int(p) for p in found.split()]


def _machine_busy() -> float:
    """Every core's non-idle time since boot (user, nice, system, irq, softirq, steal)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / TICK  # less idle and iowait


def snapshot(server_pid: int) -> dict[str, float]:
    """The CPU seconds each kind of process has used so far. PostgreSQL counts its live
    processes and what its postmaster reaped from closed connections, so a slice whose
    connections open and close within it is counted whole."""
    postmaster = _pids("-o", "-u", "postgres")  # the oldest: the one that started the rest
    return {
        "web": cpu_seconds([server_pid, *children(server_pid)]),
        "postgres": cpu_seconds(_pids("-u", "postgres")) + sum(map(_reaped, postmaster)),
        "redis": cpu_seconds(_pids("-x", "redis-server")),
        "load generator": sum(os.times()[:2]),
        "machine": _machine_busy(),
    }


def metered(point, server_pid: int):
    """`point` (a function of a slice's length returning a load result) with the CPU its
    slices cost, by kind of process, added to each result as "cpu" (seconds)."""

    def slice_(seconds: float) -> dict:
        before = snapshot(server_pid)
        result = point(seconds)
        after = snapshot(server_pid)
        return {**result, "cpu": {k: after[k] - before[k] for k in KINDS}}

    return slice_


def per_request(result: dict) -> dict[str, float]:
    """A metered result's CPU per request, in milliseconds, by kind of process."""
    return {k: result["cpu"][k] / result["n"] * 1000 for k in KINDS}
