"""Several hosts on one machine: Linux network namespaces joined by a bridge, with rate limits.

Each emulated host is a network namespace with one interface, ``eth0``, holding its own
address (10.231.<net>.<i>/24); the other end of its veth pair sits on a bridge in a
"switch" namespace. With ``rate`` (tc's syntax: "10gbit", "1gbit"), a token bucket
(``tc qdisc ... tbf``) limits both directions of every host's link, as a switch port of
that speed would. Processes started with ``run`` live in their host's namespace: they
reach the others only through the links (no loopback shortcut, no shared memory path
between tasks), and ``/sys/class/net/eth0/statistics`` counts their traffic.

With ``cpus`` (cores, 0.66 say), each host also gets a CPU budget of its own: a cgroup
with that CPU quota, which its processes join before they start, entering the host's
network namespace with ``nsenter`` (``ip netns exec`` would remount /sys and hide the
cgroup from them). A task then sees its quota as it would on a host or in a container of
that size, and sizes its threads by it. Without ``cpus`` the hosts share this machine's
cores, and a benchmark sizes thread counts for that.
Making namespaces needs root (CAP_NET_ADMIN) and the ``ip`` and ``tc`` commands;
``unavailable()`` says why when they cannot be made, and callers skip with that reason.

Used by benchmarks/bench_hosts.py and tests/test_emulated_hosts.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

_SUBNET = "10.231"


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


def unavailable() -> str | None:
    """Why namespaces cannot be made here, or None when they can."""
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "the ip and tc commands (iproute2) are not installed"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "making network namespaces needs root"
    probe = f"df-probe-{os.getpid()}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    _ip("netns", "del", probe, check=False)
    return None


class EmulatedHosts:
    """``hosts`` network namespaces on one bridge; ``address(i)``, ``run(i, argv)``, ``close()``."""

    def __init__(self, hosts: int, rate: str | None = None, net: int | None = None, cpus: float | None = None):
        self.rate = rate
        self.net = net if net is not None else 1 + os.getpid() % 250
        tag = f"{os.getpid()}-{self.net}"
        self.switch = f"df-sw-{tag}"
        self.names = [f"df-h{i}-{tag}" for i in range(hosts)]
        self._made: list[str] = []
        self.cgroups: list[str] = []
        try:
            self._build()
            if cpus is not None:
                self.cgroups = [_cpu_cgroup(name, cpus) for name in self.names]
        except BaseException:
            self.close()
            raise

    def _build(self) -> None:
        _ip("netns", "add", self.switch)
        self._made.append(self.switch)
        sw = ("-n", self.switch)
        _ip(*sw, "link", "add", "br0", "type", "bridge")
        _ip(*sw, "link", "set", "br0", "up")
        for i, name in enumerate(self.names):
            _ip("netns", "add", name)
            self._made.append(name)
            port = f"p{i}"
            _ip("link", "add", "eth0", "netns", name, "type", "veth", "peer", "name", port, "netns", self.switch)
            _ip(*sw, "link", "set", port, "master", "br0")
            _ip(*sw, "link", "set", port, "up")
            _ip("-n", name, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")
            _ip("-n", name, "link", "set", "lo", "up")
            if self.rate:
                # the host's sending side and the switch port's sending side (the host receiving)
                for netns, dev in ((name, "eth0"), (self.switch, port)):
                    subprocess.run(["tc", "-n", netns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", self.rate,
                                    "burst", _burst(self.rate), "latency", "100ms"],
                                   check=True, capture_output=True, text=True, timeout=30)

    def address(self, i: int) -> str:
        return f"{_SUBNET}.{self.net}.{i + 2}"

    def run(self, i: int, argv: list[str], **popen) -> subprocess.Popen:
        """Starts ``argv`` in host ``i``'s namespace (and in its CPU budget, where it has one)."""
        if not self.cgroups:
            return subprocess.Popen(["ip", "netns", "exec", self.names[i], *argv], **popen)
        procs = os.path.join(self.cgroups[i], "cgroup.procs")

        def join():  # (in the child, before it execs: everything it starts stays in the group)
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        return subprocess.Popen(["nsenter", f"--net=/run/netns/{self.names[i]}", "--", *argv], preexec_fn=join,
                                **popen)

    def close(self) -> None:
        """Deletes the namespaces (their interfaces and limits go with them) and the CPU groups
        (once the processes in them have ended)."""
        for name in reversed(self._made):
            _ip("netns", "del", name, check=False)
        self._made.clear()
        for group in self.cgroups:
            for _ in range(100):
                try:
                    os.rmdir(group)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # (busy: a process of it is still exiting)
                    time.sleep(0.05)
        self.cgroups = []

    def __enter__(self) -> "EmulatedHosts":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cpu_cgroup(name: str, cpus: float) -> str:
    """A new CPU cgroup (v2's cpu.max, else v1's cfs quota) allowing ``cpus`` cores; its path."""
    period = 100_000
    quota = max(1000, int(cpus * period))
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers") and not os.path.isdir("/sys/fs/cgroup/cpu"):
        group = f"/sys/fs/cgroup/{name}"
        os.mkdir(group)
        with open(os.path.join(group, "cpu.max"), "w") as f:
            f.write(f"{quota} {period}")
        return group
    group = f"/sys/fs/cgroup/cpu/{name}"
    os.mkdir(group)
    with open(os.path.join(group, "cpu.cfs_period_us"), "w") as f:
        f.write(str(period))
    with open(os.path.join(group, "cpu.cfs_quota_us"), "w") as f:
        f.write(str(quota))
    return group


def _burst(rate: str) -> str:
    """A token bucket size for ``rate``: about 1 ms of traffic, at least 64 KB (tbf needs
    a bucket larger than rate / HZ bytes to reach its rate)."""
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for suffix, scale in units.items():
        if rate.endswith(suffix):
            bits = float(rate[:-len(suffix)]) * scale
            return f"{max(64 * 1024, int(bits / 8 / 1000))}b"
    return "1mb"
