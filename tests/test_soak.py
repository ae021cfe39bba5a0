"""A bounded soak: a ps and four workers in their own processes, thousands of steps.

Every increment arrives (exact counters), and once the workers are gone the ps is as it
was: memory flat between a short and a long round, no threads, sockets or shared-memory
segments left behind.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import distflow as tf
from distflow.distributed.server import RPC_THREADS
from cluster_util import ROOT, LocalCluster
from thread_util import wait_until

WORKER = r'''
import json, sys
import numpy as np
import distflow as tf
cluster, index, steps = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
server = tf.train.Server(cluster, job_name="worker", task_index=index)
with tf.device(tf.train.replica_device_setter(worker_device=f"/job:worker/task:{index}", cluster=cluster)):
    count = tf.Variable(0, name="count")
    total = tf.Variable(tf.zeros([40000]), name="total")  # 160 KB: through shared memory on this host
    # (use_locking: without it, as in TF, concurrent updates of one variable may lose some)
    step = tf.group(count.assign_add(1, use_locking=True),
                    total.assign_add(tf.ones([40000]) * (index + 1), use_locking=True))
config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{index}"])
with tf.Session(server.target, config=config) as sess:
    sess.run(tf.variables_initializer([count, total]) if index == 0 and steps < 0 else tf.no_op())
    for _ in range(abs(steps)):
        sess.run(step)
print("done", flush=True)
'''


def _ps_state(pid: int) -> dict:
    """The ps's memory, descriptors, and threads: those of its RPC pool apart (named so for the
    OS; a bounded pool whose threads are made as calls come in, and stay), the rest counted."""
    with open(f"/proc/{pid}/status") as f:
        status = dict(line.split(":", 1) for line in f)
    pool = _thread_names(pid).count("distflow-rpc")
    return {"rss_mb": int(status["VmRSS"].split()[0]) / 1024, "threads": int(status["Threads"]) - pool,
            "rpc_pool": pool, "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def _thread_names(pid: int) -> list:
    """The names the kernel knows the process's threads by (for a failure's message)."""
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            continue
    return sorted(names)


def _segments_of(pids) -> list:
    return [n for n in os.listdir("/dev/shm") if any(n.startswith(f"distflow-{p}-") for p in pids)] \
        if os.path.isdir("/dev/shm") else []


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the ps's memory, threads and sockets from /proc")
def test_four_workers_thousands_of_steps_lose_nothing_and_leave_the_ps_as_it_was():
    c = LocalCluster({"ps": 1, "worker": 4}, start_jobs=["ps"])
    ps = c.procs[("ps", 0)]
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    spec = json.dumps(c.spec)

    def round_of(steps: int) -> None:
        workers = [subprocess.Popen([sys.executable, "-c", WORKER, spec, str(i), str(steps)], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(4)]
        pids = [w.pid for w in workers]
        for w in workers:
            out, err = w.communicate(timeout=240)
            assert w.returncode == 0 and "done" in out, err[-2000:]
        wait_until(lambda: not _segments_of(pids), what="the workers' shared-memory segments to go")

    try:
        subprocess.run([sys.executable, "-c", WORKER, spec, "0", "-1"], env=env, check=True, timeout=120,
                       capture_output=True)  # initializes the variables (and counts one step)
        round_of(150)
        settled = _ps_state(ps.pid)
        settled_threads = _thread_names(ps.pid)
        round_of(600)

        def back_to_settled():  # (a connection's thread ends just after it closes its socket)
            now = _ps_state(ps.pid)
            return now["fds"] <= settled["fds"] and now["threads"] <= settled["threads"] + 2

        try:
            wait_until(back_to_settled, what="the ps to close the workers' sockets and end their threads")
        except AssertionError as e:  # (say what stayed: descriptors or threads, and how many)
            raise AssertionError(f"{e}: settled {settled} (threads {settled_threads}), now {_ps_state(ps.pid)} "
                                 f"(threads {_thread_names(ps.pid)}), the ps's descriptors "
                                 f"{sorted(os.readlink(f'/proc/{ps.pid}/fd/{n}') for n in os.listdir(f'/proc/{ps.pid}/fd'))}"
                                 ) from None
        after = _ps_state(ps.pid)
        assert after["threads"] <= settled["threads"] + 2, (settled, after)
        assert after["rpc_pool"] <= RPC_THREADS, (settled, after)
        assert after["rss_mb"] - settled["rss_mb"] < 30, (settled, after)
        assert not _segments_of([ps.pid])
        g = tf.Graph()
        with g.as_default(), tf.device("/job:ps/task:0"):
            count = tf.Variable(0, name="count")
            total = tf.Variable(tf.zeros([40000]), name="total")
        with tf.Session(c.target("ps"), graph=g, config=tf.ConfigProto(device_filters=["/job:ps"])) as sess:
            assert sess.run(count) == 1 + 4 * (150 + 600)
            np.testing.assert_array_equal(sess.run(total), np.full(40000, 1 + (1 + 2 + 3 + 4) * (150 + 600),
                                                                   np.float32))
    finally:
        c.close()
