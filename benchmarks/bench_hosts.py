"""Between-graph replication across emulated hosts: 1 ps + 2 workers in three network
namespaces, at several link rates, distflow beside TensorFlow.

The cluster benchmark's model and steps (bench_cluster.py: MLP 784-512-512-10, batch 256
per worker, async SGD, variables on the ps), with each task on its own emulated host
(netns.py: its own address, a bridge between them, ``tc tbf`` on every link). For each
rate and library: the cluster's samples/s, and the bytes each worker's link carried per
step (from its interface counters, less 66 bytes of Ethernet, IP and TCP headers per
packet), beside the 2.68 MB of parameters a worker pulls and the 2.68 MB of gradients it
pushes each step. At a limited rate the table also gives the ceiling the link sets: the
ps's link carries every worker's pulls, so the cluster can take at most
rate / (bytes pulled per step) worker steps a second. *CPU ms/step* is a worker process's
CPU time (all its threads, user and system) over its timed steps, the mean of the workers.

Each host has a CPU budget of its own (netns.py's ``cpus``: a cgroup quota, by default this
machine's cores divided among the three hosts), and neither library is given a thread
variable: each task sizes its threads by the quota it sees, as it would on a host of that
size. ``--cpus-per-host 0`` shares the machine's cores instead (distflow's tasks then get
one BLAS thread each, as `distflow launch` gives three co-located tasks on two cores).
Needs root (skips with the reason).

Usage:
  sudo python benchmarks/bench_hosts.py [--tf-python /path/to/venv/bin/python] [--steps N]
                                        [--rates unlimited,10gbit,1gbit] [--cpus-per-host C]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import netns
from bench_cluster import cluster_samples, run_tasks
from common import SRC, machine_line

SIZES = [784, 512, 512, 10]
PARAM_BYTES = 4 * sum(a * b + b for a, b in zip(SIZES[:-1], SIZES[1:]))  # 2,678,824
HEADER_BYTES = 66  # Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12, per packet


def default_cpus_per_host() -> float:
    return round((os.cpu_count() or 2) / 3, 2)


def run_cluster(python: str, lib: str, steps: int, rate: str | None, cpus: float | None = None) -> dict:
    """One cluster on three emulated hosts (each with ``cpus`` cores of its own, or sharing the
    machine's with None): samples/s and each worker's bytes per step."""
    with netns.EmulatedHosts(3, rate=rate, cpus=cpus) as hosts:
        port = 2222
        cluster = {"ps": [f"{hosts.address(0)}:{port}"],
                   "worker": [f"{hosts.address(1)}:{port}", f"{hosts.address(2)}:{port}"]}
        env = dict(os.environ, PYTHONPATH=SRC, TF_CPP_MIN_LOG_LEVEL="3", BENCH_IFACE="eth0")
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.pop(name, None)
        if lib == "distflow" and cpus is None:
            env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        on_host = lambda job, i, argv, **popen: hosts.run(0 if job == "ps" else 1 + i, argv, **popen)  # noqa: E731
        reports = run_tasks(on_host, python, cluster, lib, steps, env)
    sent = [(r["traffic"][0] - HEADER_BYTES * r["traffic"][2]) / r["steps"] for r in reports]
    received = [(r["traffic"][1] - HEADER_BYTES * r["traffic"][3]) / r["steps"] for r in reports]
    cpu_ms = float(np.mean([r["cpu"] / r["steps"] * 1e3 for r in reports]))
    return {"samples": cluster_samples(reports), "sent": float(np.mean(sent)), "received": float(np.mean(received)),
            "cpu_ms": cpu_ms}


def link_ceiling(rate: str | None, received_per_step: float) -> float:
    """Samples/s the ps's link allows when it carries every worker's pulls."""
    if rate is None:
        return float("nan")
    bits = float(rate.rstrip("gbit").rstrip("mbit")) * (1e9 if rate.endswith("gbit") else 1e6)
    return bits / 8 / (received_per_step + HEADER_BYTES * received_per_step / 1448) * 256


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rates", default="unlimited,10gbit,1gbit")
    parser.add_argument("--cpus-per-host", type=float, default=default_cpus_per_host(),
                        help="each host's CPU quota in cores (default: the machine's cores over 3; 0: shared)")
    args = parser.parse_args()
    cpus = args.cpus_per_host or None
    reason = netns.unavailable()
    if reason:
        print(f"skipped: {reason}")
        return
    print(machine_line() + (f"; each host {cpus} cores (a cgroup quota)" if cpus else "; hosts share the cores"))
    print(f"{'link':<10} {'library':<11} {'samples/s':>10} {'vs TF':>6} {'MB sent/step':>13} "
          f"{'MB recv/step':>13} {'vs params':>10} {'link ceiling':>13} {'of ceiling':>11} {'CPU ms/step':>12}")
    for rate_name in args.rates.split(","):
        rate = None if rate_name == "unlimited" else rate_name
        results = {"distflow": run_cluster(sys.executable, "distflow", args.steps, rate, cpus)}
        if args.tf_python:
            results["TensorFlow"] = run_cluster(args.tf_python, "tensorflow", args.steps, rate, cpus)
        for lib, r in results.items():
            vs_tf = r["samples"] / results["TensorFlow"]["samples"] if "TensorFlow" in results else float("nan")
            ceiling = link_ceiling(rate, r["received"])
            print(f"{rate_name:<10} {lib:<11} {r['samples']:>10.0f} {vs_tf:>6.2f} {r['sent'] / 1e6:>13.3f} "
                  f"{r['received'] / 1e6:>13.3f} {(r['sent'] + r['received']) / (2 * PARAM_BYTES):>10.3f} "
                  f"{ceiling:>13.0f} {r['samples'] / ceiling:>11.2f} {r['cpu_ms']:>12.2f}")


if __name__ == "__main__":
    main()
