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


def _cgroup_quota(proc: str = "/proc", root: str = "") -> float | None:
    """CPUs allowed by the CPU quotas of this process's own cgroup and its ancestors (the
    smallest of them; cgroup v2's ``cpu.max``, else v1's ``cpu.cfs_quota_us``), or None.

    The cgroup is the one ``/proc/self/cgroup`` names, not the hierarchy's root: a task in
    a child group (a Kubernetes pod, a systemd slice, a Slurm job step) gets its own
    quota. ``proc`` and ``root`` (a prefix for the mount points) are for tests.
    """
    try:
        with open(os.path.join(proc, "self", "cgroup"), encoding="utf-8") as f:
            entries = [line.rstrip("\n").split(":", 2) for line in f if line.count(":") >= 2]
    except OSError:
        return None
    quotas = []
    for hierarchy, controllers, path in entries:
        if hierarchy == "0" and controllers == "":  # v2: one unified hierarchy
            mount = _mount_of(proc, root, "cgroup2", None)
            if mount is not None:
                quotas += _quotas_up(mount, path, _v2_quota)
        elif "cpu" in controllers.split(","):  # v1: the cpu controller's hierarchy
            mount = _mount_of(proc, root, "cgroup", "cpu")
            if mount is not None:
                quotas += _quotas_up(mount, path, _v1_quota)
    return min(quotas) if quotas else None


def _mount_of(proc: str, root: str, fstype: str, controller: str | None):
    """(mount point, the cgroup path mounted there) of a cgroup hierarchy, from mountinfo."""
    try:
        with open(os.path.join(proc, "self", "mountinfo"), encoding="utf-8") as f:
            for line in f:
                fields = line.split()
                if " - " not in line:
                    continue
                after = line.split(" - ", 1)[1].split()
                if after[0] != fstype:
                    continue
                if controller is not None and controller not in after[-1].split(","):
                    continue
                return root + fields[4], fields[3]
    except (OSError, IndexError):
        pass
    return None


def _quotas_up(mount, path: str, read) -> list[float]:
    """The quotas of cgroup ``path`` and of each ancestor up to the hierarchy's mount."""
    mount_point, mounted = mount
    if mounted != "/" and (path + "/").startswith(mounted.rstrip("/") + "/"):
        path = path[len(mounted.rstrip("/")):]  # (a container sees its own group as the root)
    parts = [p for p in path.split("/") if p and p != ".."]
    quotas = []
    for depth in range(len(parts), -1, -1):
        quota = read(os.path.join(mount_point, *parts[:depth]))
        if quota is not None:
            quotas.append(quota)
    return quotas


def _v2_quota(directory: str) -> float | None:
    try:
        with open(os.path.join(directory, "cpu.max"), encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        return None


def _v1_quota(directory: str) -> float | None:
    try:
        with open(os.path.join(directory, "cpu.cfs_quota_us"), encoding="ascii") as f:
            quota = int(f.read())
        with open(os.path.join(directory, "cpu.cfs_period_us"), encoding="ascii") as f:
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


def wake_latency_us(samples: int = 7, idle_s: float = 0.001) -> float:
    """How long a thread that has slept for a moment takes to run again once woken, in
    microseconds (the median of ``samples`` tries, each after ``idle_s`` of idleness).

    Where the other cores halt when idle (a virtual machine's vCPUs, deep C-states), a
    wake-up crosses the hypervisor or the power state: 60-150 us on a 2-vCPU Xeon VM,
    against some 10 us between threads that are awake."""
    import threading
    import time

    go, back = threading.Event(), threading.Event()
    stop = False

    def sleeper():
        while True:
            go.wait()
            go.clear()
            if stop:
                return
            back.set()

    thread = threading.Thread(target=sleeper, daemon=True, name="distflow-wake-probe")
    thread.start()
    times = []
    try:
        for _ in range(samples + 1):  # (the first try also starts the thread)
            time.sleep(idle_s)
            start = time.perf_counter()
            go.set()
            if not back.wait(1.0):
                break
            times.append(time.perf_counter() - start)
            back.clear()
    finally:
        stop = True
        go.set()
        thread.join(1.0)
    times = sorted(times[1:]) or [0.0]
    return times[len(times) // 2] * 1e6
