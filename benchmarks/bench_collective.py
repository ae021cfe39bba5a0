"""A ring all-reduce among server processes on one host, beside the loopback ceiling.

N tasks (``distflow server`` processes on 127.0.0.1) each run a graph of their own with one
``CollectiveReduce`` of S bytes (float32), as between-graph collective training does; a
client thread per task runs the step again and again. In a ring each process must send,
and receive, 2(N-1)/N x S bytes per all-reduce. The ceiling is that many bytes through a
loopback TCP socket between two processes at its best measured rate (bench_distributed's
reference); the ratio is the ceiling's time over the measured time (higher is better).
A second reference moves the same bytes in the ring's own pattern: N processes, each
sending its share to its right neighbour over loopback TCP while it receives from its
left, all at once, with no arithmetic. Where the N processes share fewer cores than N
(4 on the 2-core VM), that is what the machine can do at best for these bytes.

Usage:
  python benchmarks/bench_collective.py [--tasks 4] [--mbytes 16] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

from bench_distributed import loopback_tcp_gbps
from common import machine_line, use_distflow_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start_servers(tf, n: int) -> tuple[dict, list]:
    from distflow.tools.launcher import free_ports

    spec = {"worker": [f"127.0.0.1:{p}" for p in free_ports(n)]}
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    procs = []
    for i in range(n):
        procs.append(subprocess.Popen([sys.executable, "-m", "distflow.tools.cli", "server", "--cluster",
                                       json.dumps(spec), "--job", "worker", "--task", str(i)],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env))
    for proc in procs:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not proc.stdout.readline().startswith(b"serving"):
            if proc.poll() is not None:
                raise RuntimeError("a server did not start")
    return spec, procs


def measure(n: int, mbytes: float, runs: int) -> float:
    """Seconds per all-reduce (the slowest member's mean over ``runs``, after 3 warm-up runs)."""
    tf = use_distflow_source()
    import numpy as np
    from distflow.ops import collective_ops

    size = int(mbytes * 2**20 / 4)
    spec, procs = start_servers(tf, n)
    times: dict = {}
    start = threading.Barrier(n)
    try:
        def member(i):
            g = tf.Graph()
            with g.as_default(), tf.device(f"/job:worker/task:{i}"):
                x = tf.constant(np.full(size, float(i), np.float32))
                reduced = collective_ops.all_reduce(x, n, 1, 1)
                checksum = tf.reduce_sum(reduced[:4])
            with tf.Session("grpc://" + spec["worker"][i], graph=g) as sess:
                for _ in range(3):
                    sess.run(checksum)
                start.wait(60)
                begin = time.perf_counter()
                for _ in range(runs):
                    got = sess.run(checksum)
                times[i] = (time.perf_counter() - begin) / runs
                assert got == 4 * sum(range(n)), got

        threads = [threading.Thread(target=member, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)
    if len(times) != n:
        raise RuntimeError("a member failed")
    return max(times.values())


_RING_MEMBER = r"""
import socket, sys, threading, time
rank, nbytes, rounds = map(int, sys.argv[1:4])
ports = [int(p) for p in sys.argv[4].split(",")]
n = len(ports)
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", ports[rank]))
server.listen(1)
print("ready", flush=True)
sys.stdin.readline()
right = socket.create_connection(("127.0.0.1", ports[(rank + 1) % n]))
left, _ = server.accept()
data, buf = b"x" * nbytes, bytearray(nbytes)
view, best = memoryview(buf), float("inf")
for _ in range(rounds):
    if rank == 0:  # (a token once round the ring: every member starts the round together)
        right.sendall(b"t"); left.recv(1)
    else:
        left.recv(1); right.sendall(b"t")
    start = time.perf_counter()
    sender = threading.Thread(target=right.sendall, args=(data,))
    sender.start()
    got = 0
    while got < nbytes:
        got += left.recv_into(view[got:])
    sender.join()
    best = min(best, time.perf_counter() - start)
print(best, flush=True)
"""


def ring_loopback_seconds(n: int, nbytes: int, rounds: int = 5) -> float:
    """The second reference (module docstring): seconds for ``n`` processes in a ring to each
    send ``nbytes`` to the right while receiving as many from the left (the slowest
    member's best round)."""
    from distflow.tools.launcher import free_ports

    ports = ",".join(str(p) for p in free_ports(n))
    members = [subprocess.Popen([sys.executable, "-c", _RING_MEMBER, str(rank), str(nbytes), str(rounds), ports],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for rank in range(n)]
    try:
        for member in members:
            member.stdout.readline()  # ("ready": listening; a member that died reads as end of file)
        for member in members:
            member.stdin.write("go\n")
            member.stdin.flush()
        times = [member.communicate(timeout=120)[0].split() for member in members]
        if not all(times):
            raise RuntimeError("a member of the ring-shaped loopback reference failed")
        return max(float(t[-1]) for t in times)
    finally:
        for member in members:
            member.kill()
            member.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--mbytes", type=float, default=16.0)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(machine_line())
    seconds = measure(args.tasks, args.mbytes, args.runs)
    gbps = loopback_tcp_gbps()
    moved = 2 * (args.tasks - 1) / args.tasks * args.mbytes * 2**20
    ceiling = moved / (gbps * 1e9)
    print(f"loopback TCP, 16 MB between two processes: {gbps:.2f} GB/s")
    ring = ring_loopback_seconds(args.tasks, int(moved))
    print(f"ring all-reduce of {args.mbytes:g} MB among {args.tasks} processes: {seconds * 1e3:.1f} ms "
          f"({moved / seconds / 1e9:.2f} GB/s sent and received by each process); the loopback ceiling for "
          f"{moved / 2**20:.1f} MB: {ceiling * 1e3:.1f} ms; ratio {ceiling / seconds:.2f} (target 0.8)")
    print(f"the same bytes in the ring's pattern over loopback TCP ({args.tasks} processes at once, no "
          f"arithmetic): {ring * 1e3:.1f} ms; ratio {ring / seconds:.2f}")


if __name__ == "__main__":
    main()
