"""A cluster whose tasks are on different (emulated) hosts: network namespaces joined by a
bridge (benchmarks/netns.py). Skipped, with the reason, where namespaces cannot be made."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import netns  # noqa: E402
from bench_cluster import TASK  # noqa: E402
from bench_hosts import PARAM_BYTES, HEADER_BYTES  # noqa: E402

REASON = netns.unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=str(REASON))


def test_a_worker_on_another_host_moves_only_its_parameters_and_gradients():
    """Each step pulls the parameters and pushes the gradients once: the worker's link
    carries them and little else (within 5%), over real sockets between two hosts."""
    with netns.EmulatedHosts(2, rate="10gbit") as hosts:
        cluster = {"ps": [f"{hosts.address(0)}:2222"], "worker": [f"{hosts.address(1)}:2222"]}
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), BENCH_IFACE="eth0", OPENBLAS_NUM_THREADS="1")
        args = lambda job: [sys.executable, "-c", TASK, json.dumps(cluster), job, "0", "10", "distflow"]  # noqa: E731
        ps = hosts.run(0, args("ps"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            worker = hosts.run(1, args("worker"), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            out, err = worker.communicate(timeout=120)
            assert worker.returncode == 0, err[-3000:]
        finally:
            ps.kill()
            ps.wait(10)
    report = json.loads(out.strip().splitlines()[-1])
    tx_bytes, rx_bytes, tx_packets, rx_packets = report["traffic"]
    pushed = (tx_bytes - HEADER_BYTES * tx_packets) / report["steps"]
    pulled = (rx_bytes - HEADER_BYTES * rx_packets) / report["steps"]
    assert PARAM_BYTES <= pulled <= 1.05 * PARAM_BYTES, (pulled, PARAM_BYTES)
    assert PARAM_BYTES <= pushed <= 1.05 * PARAM_BYTES, (pushed, PARAM_BYTES)


def test_the_hosts_reach_each_other_only_through_their_links():
    with netns.EmulatedHosts(2) as hosts:
        probe = ("import socket, sys\n"
                 "try:\n    socket.create_connection((sys.argv[1], 9), timeout=2)\n"
                 "except ConnectionRefusedError:\n    print('reached')\n"
                 "except OSError as e:\n    print('unreachable', e)\n")
        there = hosts.run(1, [sys.executable, "-c", probe, hosts.address(0)], stdout=subprocess.PIPE, text=True)
        assert there.communicate(timeout=30)[0].startswith("reached")  # the other host answers (a refusal)
        mine = hosts.run(1, [sys.executable, "-c", probe, "10.231.255.254"], stdout=subprocess.PIPE, text=True)
        assert mine.communicate(timeout=30)[0].startswith("unreachable")  # nobody holds that address


def test_a_host_with_a_cpu_budget_gives_its_tasks_that_quota_and_they_see_it():
    probe = ("import json; from distflow.platform import cpus; "
             "print(json.dumps([cpus._cgroup_quota(), cpus.usable_cores()]))")
    with netns.EmulatedHosts(1, cpus=0.5) as hosts:
        task = hosts.run(0, [sys.executable, "-c", probe], env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = task.communicate(timeout=60)
        assert task.returncode == 0, err[-3000:]
        groups = list(hosts.cgroups)
    assert json.loads(out) == [0.5, 1]
    assert not any(os.path.exists(g) for g in groups)  # (removed with the hosts)
