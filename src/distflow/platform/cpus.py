"""What this process may use of the machine: its cores, and which addresses are this host.

``usable_cores`` is what a process may actually run on: the CPUs of its affinity mask
(``taskset``, a container's cpuset) and, under a cgroup CPU quota (``docker --cpus``), the
quota rounded up; ``os.cpu_count()`` reports the machine's cores whatever the limits.
``is_local_host`` tells whether a cluster address names this machine.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import os
import socket


def usable_cores() -> int:
    """The cores this process may run on: affinity mask, then cgroup quota (at least 1)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def _cgroup_quota() -> float | None:
    """CPUs allowed by the cgroup's quota (v2 ``cpu.max``, else v1 ``cfs_quota_us``), or None."""
    try:
        with open("/sys/fs/cgroup/cpu.max", encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", encoding="ascii") as f:
            quota = int(f.read())
        with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us", encoding="ascii") as f:
            period = int(f.read())
        return None if quota <= 0 or period <= 0 else quota / period
    except (OSError, ValueError):
        return None


@functools.lru_cache(maxsize=256)
def is_local_host(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine: a loopback address, this
    machine's name, or an address one of its interfaces holds."""
    host = host.strip("[]")
    if host in ("localhost", "", socket.gethostname(), socket.getfqdn()):
        return True
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return False
    return any(_is_mine(address) for address in addresses)


def _is_mine(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.bind((address, 0))  # only an address of this machine can be bound
        return True
    except OSError:
        return False


def others_runnable() -> int | None:
    """How many threads of other processes are runnable now (running or waiting for a
    core), or None where the kernel does not say (not Linux): the machine-wide count of
    /proc/loadavg less this process's own runnable threads."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            runnable = int(f.read().split()[3].split("/")[0])
        own = 0
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/stat", encoding="ascii", errors="replace") as f:
                    stat = f.read()
            except OSError:
                continue  # the thread ended meanwhile
            if stat[stat.rindex(")") + 2:stat.rindex(")") + 3] == "R":
                own += 1
    except (OSError, ValueError, IndexError):
        return None
    return max(0, runnable - own)
