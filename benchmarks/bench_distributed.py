"""The distributed runtime beside TensorFlow's: step latency and bulk tensor transfer.

  tiny step:   a [1,2]x[2,1] matmul run again and again through a one-task server
               (Session(server.target)), microseconds per run (lower is better);
  16 MB read:  a worker-side session fetching a 16 MB float32 variable that lives on a
               ps task in another process, GB/s (higher is better).

Usage:
  python benchmarks/bench_distributed.py [--tf-python /path/to/venv/bin/python]

Both libraries run the same code (``tf`` is distflow or tf.compat.v1), each in its own
processes on 127.0.0.1 ports chosen free at start.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time

from common import machine_line, run_tensorflow, use_distflow_source

MEASURE = r'''
import json, subprocess, sys, time
import numpy as np

def free_ports(n):
    import socket
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports

def measure(tf, ps_command, runs):
    out = {}
    server = tf.train.Server.create_local_server()
    a = tf.constant([[1.0, 2.0]])
    b = tf.constant([[3.0], [4.0]])
    c = tf.matmul(a, b)
    with tf.Session(server.target) as sess:
        for _ in range(50):
            sess.run(c)
        start = time.perf_counter()
        for _ in range(runs):
            sess.run(c)
        out["tiny step us"] = (time.perf_counter() - start) / runs * 1e6
    tf.reset_default_graph()

    ps_port, worker_port = free_ports(2)
    cluster = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    ps = subprocess.Popen([sys.executable, "-c", ps_command % json.dumps(cluster)])
    try:
        worker = tf.train.Server(tf.train.ClusterSpec(cluster), job_name="worker", task_index=0)
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([4 * 1024 * 1024]), name="big")
        with tf.Session(worker.target) as sess:
            sess.run(v.initializer)
            for _ in range(3):
                sess.run(v)
            best = float("inf")
            for _ in range(10):
                start = time.perf_counter()
                sess.run(v)
                best = min(best, time.perf_counter() - start)
            out["16 MB read GB/s"] = 16 * 2**20 / best / 1e9
    finally:
        ps.kill()
        ps.wait()
    return out
'''

DISTFLOW_PS = ("import json, distflow as tf; s = tf.train.Server(json.loads('%s'), job_name='ps', task_index=0); "
               "s.join()")
TF_PS = ("import json, os; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'; import tensorflow.compat.v1 as tf; "
         "tf.disable_eager_execution(); s = tf.train.Server(json.loads('%s'), job_name='ps', task_index=0); "
         "s.join()")


def run_distflow(runs: int) -> dict:
    """distflow's side, in a process of its own as TensorFlow's is: a server sizes its
    process's BLAS threads (a worker of a two-task cluster on one host takes 1), and the
    servers of this body stay up, so in the caller's process they would slow every
    benchmark measured after it."""
    use_distflow_source()  # (exports this checkout's PYTHONPATH to the child)
    code = (MEASURE + "\nimport distflow as tf\n"
            f"print(json.dumps(measure(tf, {DISTFLOW_PS!r}, {runs})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"distflow's run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def loopback_tcp_gbps(size: int = 16 * 2**20, rounds: int = 10) -> float:
    """The reference: 16 MB through a loopback TCP socket between two processes."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    sender = subprocess.Popen([sys.executable, "-c", (
        "import socket, sys\n"
        f"s = socket.create_connection(('127.0.0.1', {port}))\n"
        f"data = b'x' * {size}\n"
        f"for _ in range({rounds}):\n"
        "    s.sendall(data)\n"
        "    s.recv(1)\n")])
    conn, _ = server.accept()
    buf = bytearray(size)
    best = float("inf")
    for _ in range(rounds):
        view, got = memoryview(buf), 0
        start = time.perf_counter()
        while got < size:
            got += conn.recv_into(view[got:])
        best = min(best, time.perf_counter() - start)
        conn.sendall(b"k")
    sender.wait(30)
    conn.close()
    server.close()
    return size / best / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    print(machine_line())
    df = run_distflow(args.runs)
    tf = run_tensorflow(args.tf_python, MEASURE, f"measure(tf, {TF_PS!r}, {args.runs})", timeout=900) \
        if args.tf_python else {}
    print(f"loopback TCP, 16 MB between two processes: {loopback_tcp_gbps():.2f} GB/s")
    print(f"{'measure':<18} {'distflow':>10} {'TensorFlow':>11} {'df/TF':>7}")
    for key in ("tiny step us", "16 MB read GB/s"):
        t = tf.get(key, float("nan"))
        print(f"{key:<18} {df[key]:>10.2f} {t:>11.2f} {df[key] / t:>7.2f}")


if __name__ == "__main__":
    main()
