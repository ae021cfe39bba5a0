"""``distflow launch``: a local cluster in one command.

    distflow launch --ps 1 --workers 2 [--chief] [--evaluator] [--logdir DIR] -- python train.py ARGS

Every task runs the same command with TF_CONFIG in TensorFlow's format (so the
script finds its job and index with TFConfigClusterResolver, as under Kubernetes
TFJob; an evaluator, as in TF, is a task of its own outside the cluster's jobs), and with BLAS thread counts that share the cores among the tasks (unless the
user set them). Each output line is prefixed with its task. When every worker (and the
chief) has exited, the ps tasks are asked to stop (their ``server.join()``
returns), and killed if they do not exit in time. The exit code is the first
failing worker's, and the launcher lists every task that failed. Each task runs in its
own process group: Ctrl-C or SIGTERM to the launcher stops every task (and anything they
started) and exits with 130 or 143. The tasks share a token that their servers require of
every caller (a new one for each launch, unless DISTFLOW_TOKEN or DISTFLOW_TOKEN_FILE is
set): other processes on the machine cannot use the cluster. The ports come from
DISTFLOW_PORT_RANGE where it is set (:func:`port_range`).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from ..distributed.auth import TOKEN_ENV, configured_token
from ..distributed.cpu_share import BLAS_THREAD_VARIABLES
from ..platform.cpus import usable_cores


PORT_RANGE_ENV = "DISTFLOW_PORT_RANGE"


def port_range() -> range | None:
    """The ports the launcher picks from: ``DISTFLOW_PORT_RANGE`` ("LOW-HIGH", both included)
    where it is set (a firewall's open range, or one launcher's share where several start
    clusters on one machine at once), else the 12,000 ports below the kernel's ephemeral
    range, or None where that is unknown."""
    given = os.environ.get(PORT_RANGE_ENV, "").strip()
    if given:
        try:
            low, high = (int(part) for part in given.split("-"))
        except ValueError:
            raise ValueError(f"{PORT_RANGE_ENV}={given!r}: expected LOW-HIGH, e.g. 20000-20999") from None
        if not 1024 <= low <= high <= 65535:
            raise ValueError(f"{PORT_RANGE_ENV}={given!r}: expected 1024 <= LOW <= HIGH <= 65535")
        return range(low, high + 1)
    low = _ephemeral_low()
    return range(max(1024, low - 12000), low) if low and low > 2048 else None


def free_ports(n: int) -> list[int]:
    """n distinct free TCP ports on 127.0.0.1 (held open together while chosen), from
    :func:`port_range`.

    By default they are taken below the kernel's ephemeral range when it can say what that
    is: a port from that range could be handed out again by the kernel (to a data-path
    socket binding port 0, say) before the task it was chosen for starts listening.
    """
    chosen = port_range()
    candidates = list(chosen) if chosen is not None else []
    random.shuffle(candidates)
    socks = []
    try:
        for port in candidates:
            if len(socks) == n:
                break
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            socks.append(s)
        if len(socks) < n and os.environ.get(PORT_RANGE_ENV, "").strip():
            raise RuntimeError(f"{PORT_RANGE_ENV}={os.environ[PORT_RANGE_ENV]}: fewer than {n} free ports in it")
        while len(socks) < n:  # no range known, or not enough free ports below it
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _ephemeral_low() -> int | None:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def make_cluster(ps: int, workers: int, chief: bool) -> dict:
    jobs = [("chief", 1 if chief else 0), ("worker", workers), ("ps", ps)]
    ports = iter(free_ports(sum(n for _, n in jobs)))
    return {job: [f"127.0.0.1:{next(ports)}" for _ in range(n)] for job, n in jobs if n}


def blas_thread_env(n_tasks: int, environ=None) -> dict:
    """BLAS thread counts for ``n_tasks`` processes sharing this machine's cores.

    Each BLAS library starts one thread per core in every process; with several tasks on
    one machine they oversubscribe the cores (2 workers and a ps on 2 cores ran 2.3x
    slower). Variables the user set are kept.
    """
    environ = os.environ if environ is None else environ
    threads = str(max(1, usable_cores() // max(1, n_tasks)))
    return {name: threads for name in BLAS_THREAD_VARIABLES if name not in environ}


_WRITE_LOCK = threading.Lock()


def _pump(stream, prefix: str, out, log=None) -> None:
    """Copies a task's output to ``out`` line by line (whole lines, never interleaved)."""
    for line in iter(stream.readline, b""):
        text = line.decode(errors="replace")
        with _WRITE_LOCK:
            out.write(f"[{prefix}] {text}")
            out.flush()
        if log is not None:
            log.write(text)
            log.flush()
    stream.close()
    if log is not None:
        log.close()


class _Stop(Exception):
    """A signal asked the launcher to stop every task."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop_group(proc: subprocess.Popen, sig) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _wait_for_trainers(trainers: dict, chief_key, out, stop: list) -> dict:
    """Exit codes of the chief and workers. Another worker's failure leaves the rest running
    (asynchronous training survives a lost worker); the chief's failure stops them all, since
    they would wait for it forever."""
    codes: dict = {}
    while len(codes) < len(trainers):
        if stop:
            raise _Stop(stop[0])
        for key, proc in trainers.items():
            if key not in codes and proc.poll() is not None:
                codes[key] = proc.returncode
                if key == chief_key and proc.returncode != 0:
                    out.write(f"[launch] the chief {key[0]}:{key[1]} failed (exit code {proc.returncode}); "
                              "stopping the other tasks\n")
                    for other in trainers.values():
                        if other.poll() is None:
                            other.terminate()
        time.sleep(0.05)
    return codes


def gpu_env(cluster: dict, gpus_per_worker: int, environ=None) -> dict:
    """``CUDA_VISIBLE_DEVICES`` for each task, keyed (job, index): ``gpus_per_worker`` GPUs of
    this process's own (its CUDA_VISIBLE_DEVICES, or ids 0, 1, ...) for each trainer (chief,
    then workers) in turn, none for a ps. Empty with no GPUs per worker.

    Raises:
      ValueError: CUDA_VISIBLE_DEVICES names fewer GPUs than the trainers need.
    """
    if not gpus_per_worker:
        return {}
    environ = os.environ if environ is None else environ
    trainers = [(job, i) for job in ("chief", "worker") for i in range(len(cluster.get(job, [])))]
    need = gpus_per_worker * len(trainers)
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible is not None else [str(i) for i in range(need)]
    if len(ids) < need:
        raise ValueError(f"--gpus-per-worker {gpus_per_worker} for {len(trainers)} trainers needs {need} GPUs, but "
                         f"CUDA_VISIBLE_DEVICES={visible!r} names {len(ids)}")
    env = {("ps", i): "" for i in range(len(cluster.get("ps", [])))}
    for k, task in enumerate(trainers):
        env[task] = ",".join(ids[k * gpus_per_worker:(k + 1) * gpus_per_worker])
    return env


def launch(command: list[str], ps: int, workers: int, chief: bool = False, ps_grace: float = 10.0,
           out=None, logdir: str | None = None, gpus_per_worker: int = 0, evaluator: bool = False) -> int:
    out = out or sys.stdout
    if shutil.which(command[0]) is None:
        out.write(f"[launch] error: cannot run {command[0]!r}: no such program, or it is not executable\n")
        return 2
    cluster = make_cluster(ps, workers, chief)
    try:
        gpus = gpu_env(cluster, gpus_per_worker)
    except ValueError as e:
        out.write(f"[launch] error: {e}\n")
        return 2
    if gpus:
        out.write("[launch] GPUs: " + ", ".join(f"{job}:{i} CUDA_VISIBLE_DEVICES={ids or '(none)'}"
                                               for (job, i), ids in gpus.items()) + "\n")
    procs: dict[tuple[str, int], subprocess.Popen] = {}
    pumps = []
    n_tasks = sum(len(tasks) for tasks in cluster.values()) + (1 if evaluator else 0)
    threads = blas_thread_env(n_tasks)
    # The cluster's token: the user's (DISTFLOW_TOKEN or DISTFLOW_TOKEN_FILE), else a new one
    # for this cluster, so that no other process on the machine can use its tasks.
    token, token_env = configured_token(), {}
    if token is None:
        token = secrets.token_urlsafe(24).encode()
        token_env = {TOKEN_ENV: token.decode()}
    if threads:
        out.write(f"[launch] {n_tasks} tasks share {os.cpu_count()} cores: "
                  f"{', '.join(f'{k}={v}' for k, v in threads.items())} for each\n")
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    stop: list = []
    handlers = _catch_signals(stop)
    try:
        tasks = [(job, index) for job in ("ps", "chief", "worker") for index in range(len(cluster.get(job, [])))]
        for job, index in tasks + ([("evaluator", 0)] if evaluator else []):
            env = dict(os.environ, **threads, **token_env, TF_CONFIG=json.dumps(
                {"cluster": cluster, "task": {"type": job, "index": index}, "rpc_layer": "grpc"}))
            if gpus:
                env["CUDA_VISIBLE_DEVICES"] = gpus.get((job, index), "")
            proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            procs[(job, index)] = proc
            log = open(os.path.join(logdir, f"{job}-{index}.log"), "w") if logdir else None  # noqa: SIM115
            pump = threading.Thread(target=_pump, args=(proc.stdout, f"{job}:{index}", out, log), daemon=True)
            pump.start()
            pumps.append(pump)
        trainers = {k: p for k, p in procs.items() if k[0] != "ps"}  # (an evaluator too: it is waited for)
        codes = _wait_for_trainers(trainers, ("chief", 0) if chief else ("worker", 0), out, stop)
    except _Stop as e:
        name = signal.Signals(e.signum).name
        out.write(f"[launch] {name}: stopping every task\n")
        _stop_all(procs, pumps)
        return 128 + e.signum
    finally:
        _restore_signals(handlers)
    return _finish(cluster, procs, pumps, codes, ps_grace, out, token)


def _catch_signals(stop: list) -> dict:
    """SIGINT and SIGTERM recorded in ``stop`` (the wait loop ends on them); the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        old[sig] = signal.signal(sig, lambda signum, frame: stop.append(signum))
    return old


def _restore_signals(handlers: dict) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


def _stop_all(procs: dict, pumps: list, grace: float = 5.0) -> None:
    """SIGTERM to every task's process group, SIGKILL to those still there after ``grace``."""
    for proc in procs.values():
        if proc.poll() is None:
            _stop_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs.values():
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _stop_group(proc, signal.SIGKILL)
            proc.wait(5)
    for pump in pumps:
        pump.join(5)


def _finish(cluster: dict, procs: dict, pumps: list, codes: dict, ps_grace: float, out,
            token: bytes | None = None) -> int:
    """Stops the ps tasks once the trainers are done; reports every failed task."""
    from ..distributed.server import shutdown_task  # noqa: PLC0415 - only the ps stop needs gRPC

    deadline = time.monotonic() + ps_grace
    for index, address in enumerate(cluster.get("ps", [])):
        proc = procs[("ps", index)]
        # A ps may still be starting (trainers that fail at once): ask until it answers or exits.
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                shutdown_task(address, timeout=min(1.0, max(0.1, deadline - time.monotonic())), wait_for_ready=True,
                              token=token)
                break
            except Exception:  # noqa: BLE001 - not serving yet, or gone already (killed below)
                continue
    for index in range(len(cluster.get("ps", []))):
        proc = procs[("ps", index)]
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            out.write(f"[launch] ps:{index} did not stop within {ps_grace:.0f} s; killing pid {proc.pid}\n")
            proc.kill()
            proc.wait(5)
    for pump in pumps:
        pump.join(5)
    failed = [(k, c) for k, c in codes.items() if c != 0]
    if failed:
        for (job, index), code in failed:
            out.write(f"[launch] {job}:{index} failed with exit code {code}\n")
        return failed[0][1]
    out.write("[launch] all tasks finished\n")
    return 0
