"""``tf.train.Server``: one gRPC port serving a master and a worker for one task."""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import weakref
from concurrent import futures

import grpc

from ..framework import errors, wire
from ..ops import blas
from ..platform.memory import release_free_memory
from ..platform.threads import name_os_thread
from ..runtime.config import ConfigProto
from .cluster_spec import ClusterSpec
from .cpu_share import blas_threads_for_task
from .master import Master
from ..protos import distflow_pb2 as pb
from .auth import TOKEN_ENV, TOKEN_FILE_ENV, TokenInterceptor, configured_token
from .tls import CA_ENV, CERT_ENV, KEY_ENV, configured_tls
from .rpc import CHANNEL_OPTIONS, MASTER_METHODS, WORKER_METHODS, Channels, StepCallLimit, generic_handler
from .task import TaskDirectory
from .worker import Worker



# The servers of this process, by "host:port": a session whose target is one of them
# calls its master directly, without a network round trip.
_LOCAL_SERVERS: "weakref.WeakValueDictionary[str, Server]" = weakref.WeakValueDictionary()
_log = logging.getLogger("distflow")

# A server's gRPC threads, and how many of them steps may hold at once (a step call holds
# its thread until the step ends, which may be never): the rest always answer the calls
# that return at once. Tasks call each other's steps on the data port, not here; these
# calls are clients' steps (remote sessions) and gRPC RunGraph callers.
RPC_THREADS = 128
RPC_STEP_CALLS = 96


def _housekeeping_s() -> float:
    """How often a server closes idle sessions and sweeps stale steps: 5 s, or the positive
    number of seconds ``DISTFLOW_HOUSEKEEPING_S`` gives."""
    text = os.environ.get("DISTFLOW_HOUSEKEEPING_S", "")
    try:
        value = float(text) if text else 5.0
    except ValueError:
        value = -1.0
    if not value > 0:
        logging.getLogger("distflow").warning("DISTFLOW_HOUSEKEEPING_S=%r is not a positive number of seconds: "
                                              "using 5", text)
        value = 5.0
    return value


HOUSEKEEPING_S = _housekeeping_s()


def _stop_local_servers() -> None:
    """Stops this process's servers as the program ends, before Python waits for its threads.

    A step that never ends (a dequeue from a queue nobody fills, another task's tensor)
    holds a thread of a server's pools, and Python waits for those threads at exit: the
    program would hang there. TF 1.x's process just ended; so does this one: the steps
    still running are cancelled and the servers stop."""
    servers = [s for s in _LOCAL_SERVERS.values() if not s._stopped.is_set()]
    try:
        for server in servers:  # (first every step, so that the calls between them end with it)
            server._worker.cancel_steps()
        for server in servers:
            server.stop()
    except Exception as e:  # noqa: BLE001 - the program is ending: nothing may stop it
        _log.debug("stopping this process's servers at exit: %s", e)


# (threading's exit hooks run before the non-daemon threads are joined; atexit's, after)
getattr(threading, "_register_atexit", __import__("atexit").register)(_stop_local_servers)
# A connection to the gRPC port must finish its handshake (HTTP/2's preface, TLS's) within
# this, as a data connection its hello; and the port holds at most a quarter of the
# process's file descriptors, so that connections nobody authenticated cannot take the
# descriptors that sessions, the data port and checkpoints need.
RPC_HANDSHAKE_TIMEOUT_MS = 10_000


def _rpc_connection_limit() -> int | None:
    try:
        import resource  # noqa: PLC0415 - POSIX only

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else max(64, soft // 4)


def _grpc_limit() -> int:
    """The largest message this server's gRPC port takes (-1: what protobuf allows)."""
    return wire.MAX_MESSAGE_BYTES if wire.MAX_MESSAGE_BYTES < 2**31 - 1 else -1


def _check_ipv4_port_free(port: int, job: str, task: int, address: str) -> None:
    """gRPC binds "localhost" on IPv4 and IPv6 and succeeds if either is free: a task whose
    IPv4 port another process holds would serve on ::1 only, and IPv4 peers would reach
    that other process. Fail instead, as for any address in use."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # (as gRPC binds: a port in TIME_WAIT is free, one another socket listens on is not)
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
    except OSError:
        raise errors.UnknownError(None, None, f"Could not start gRPC server for /job:{job}/task:{task} on {address}: "
                                  f"127.0.0.1:{port} is in use") from None
    finally:
        probe.close()


def _is_loopback_host(host: str) -> bool:
    return host in ("localhost", "::1", "[::1]") or host.startswith("127.")


def local_master(address: str):
    """The master of this process's server at ``address``, or None."""
    server = _LOCAL_SERVERS.get(address)
    return None if server is None or server._stopped.is_set() else server._master


class Server:
    """An in-process server for one task of a cluster.

    Every server hosts a master (which sessions connect to with ``server.target``)
    and a worker (which runs this task's share of every step and holds its
    variables). Unlike TF 1.x's, ``stop()`` exists and ``join()`` returns once the
    server is stopped, for example by ``distflow launch`` when training ends.
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True):
        if protocol not in (None, "grpc"):
            raise errors.UnimplementedError(None, None, f"protocol {protocol!r} is not supported; use 'grpc'")
        cluster = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError(f"Must specify an explicit `job_name` (the cluster has jobs {cluster.jobs})")
            job_name = cluster.jobs[0]
        if task_index is None:
            indices = cluster.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError(f"Must specify an explicit `task_index` (job {job_name!r} has "
                                 f"{len(indices)} tasks)")
            task_index = indices[0]
        address = cluster.task_address(job_name, task_index)
        host, sep, port = address.rpartition(":")
        if not sep or not host or not port.isdigit() or int(port) > 65535:
            raise errors.InvalidArgumentError(None, None, f"Could not start a server for /job:{job_name}/task:"
                                              f"{task_index}: address {address!r} needs the form host:port, with "
                                              "a port from 1 to 65535 (or 0 for any free port)")
        if host == "localhost" and port != "0":
            _check_ipv4_port_free(int(port), job_name, task_index, address)
        self._config = config if config is not None else ConfigProto()
        self._job, self._task = job_name, task_index
        self._channels = Channels()
        token = configured_token()
        where = f"/job:{job_name}/task:{task_index} ({address})"
        options = [o for o in CHANNEL_OPTIONS if o[0] != "grpc.max_receive_message_length"] + [
            ("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", _grpc_limit()),
            ("grpc.server_handshake_timeout_ms", RPC_HANDSHAKE_TIMEOUT_MS)]
        if _rpc_connection_limit() is not None:
            options.append(("grpc.max_allowed_incoming_connections", _rpc_connection_limit()))
        # (its threads are made as calls come in and stay, up to RPC_THREADS: named for the OS,
        # they can be told from a connection's threads, which end with it)
        pool = futures.ThreadPoolExecutor(max_workers=RPC_THREADS, thread_name_prefix="distflow-rpc",
                                          initializer=name_os_thread, initargs=("distflow-rpc",))
        self._grpc = grpc.server(pool,
                                 options=options,
                                 interceptors=[TokenInterceptor(token, where)] if token is not None else None)
        if token is not None:
            _log.info("%s: every call and data connection must carry the cluster's token", where)
        elif not _is_loopback_host(host):
            _log.warning("%s: no token (%s or %s): anyone who can reach %s may run graphs on this task, which can "
                         "read and write its files; give the cluster a token (docs/security.md)", where,
                         TOKEN_ENV, TOKEN_FILE_ENV, address)
        else:
            _log.info("%s: no token (%s or %s): any process of this machine may run graphs on this task",
                      where, TOKEN_ENV, TOKEN_FILE_ENV)
        tls = configured_tls()
        try:
            bound = self._grpc.add_secure_port(address, tls.server_credentials()) if tls is not None and tls.serves \
                else self._grpc.add_insecure_port(address)
        except RuntimeError:
            bound = 0
        if not bound:
            raise errors.UnknownError(None, None, f"Could not start gRPC server for /job:{job_name}/task:"
                                      f"{task_index} on {address}: the address is in use or not local")
        if port == "0":
            address = f"{host}:{bound}"
            jobs = cluster.as_dict()
            tasks = dict(enumerate(jobs[job_name])) if isinstance(jobs[job_name], list) else jobs[job_name]
            tasks[task_index] = address
            jobs[job_name] = tasks
            cluster = ClusterSpec(jobs)
        self._cluster = cluster
        self._address = address
        # Master and worker call every task, this one included, through one directory.
        self._tasks = TaskDirectory(cluster, self._channels)
        self._worker = Worker(job_name, task_index, self._tasks, self._config, token=token,
                              tls=tls.server_context() if tls is not None and tls.serves else None)
        if tls is not None and tls.serves:
            _log.info("%s: TLS on gRPC and the data port, serving with a certificate%s", where,
                      "; clients need a certificate of the cluster's CA, and servers' are verified"
                      if tls.connects else "")
        elif tls is not None:
            _log.warning("%s: %s is set but %s and %s are not: this server serves in CLEAR TEXT (its calls to "
                         "other tasks use TLS); give it a certificate and key to serve TLS", where, CA_ENV,
                         CERT_ENV, KEY_ENV)
        self._worker.on_shutdown = self.stop
        self._tasks.add_local(self._worker)
        self._master = Master(job_name, task_index, self._tasks, self._config,
                              connect_timeout=self._config.connect_timeout_in_ms / 1000.0)
        steps = StepCallLimit(RPC_STEP_CALLS, f"task /job:{job_name}/task:{task_index} ({address})")
        self._grpc.add_generic_rpc_handlers((generic_handler("distflow.Master", MASTER_METHODS, self._master, steps),
                                             generic_handler("distflow.Worker", WORKER_METHODS, self._worker, steps)))
        self._stopped = threading.Event()
        self._housekeeping: threading.Thread | None = None
        self._started = False
        self._blas_threads_before: int | None = None
        if start:
            self.start()

    @property
    def target(self) -> str:
        return f"grpc://{self._address}"

    @property
    def server_def(self):
        return self._cluster.as_cluster_def()

    @property
    def cluster_spec(self) -> ClusterSpec:
        return self._cluster

    def start(self) -> None:
        if not self._started:
            self._grpc.start()
            self._started = True
            self._housekeeping = threading.Thread(target=self._keep_house, daemon=True,
                                                  name=f"distflow-housekeeping-{self._address}")
            self._housekeeping.start()
            if not any(s is not self and not s._stopped.is_set() for s in _LOCAL_SERVERS.values()):
                self._size_blas_threads()  # (several servers in one process: the first one decides)
            _LOCAL_SERVERS[self._address] = self

    def _size_blas_threads(self) -> None:
        """Sizes this process's BLAS threads for its share of the host (cpu_share.py)."""
        choice = blas_threads_for_task(self._cluster, self._job, self._config, os.environ)
        before = blas.get_threads()
        if choice.threads is not None and before is not None and choice.threads != before:
            blas.set_threads(choice.threads, chosen=choice.chosen)
            self._blas_threads_before = before
        if not choice.chosen:
            blas.watch_load()
        _log.info("/job:%s/task:%d: %s BLAS threads (%s)", self._job, self._task,
                  blas.get_threads() if before is not None else "unknown", choice.reason)

    def _keep_house(self) -> None:
        """Every HOUSEKEEPING_S, reclaims what clients and steps that went away left behind."""
        while not self._stopped.wait(HOUSEKEEPING_S):
            try:
                self._master.close_idle_sessions()
                self._worker.sweep()
                self._tasks.data.sweep()
                release_free_memory()
            except Exception:  # noqa: BLE001 - housekeeping never stops the server
                _log.exception("%s: housekeeping failed", self.target)

    def join(self) -> None:
        """Blocks until the server is stopped (by stop(), a Shutdown call, or the launcher).

        Ctrl-C (KeyboardInterrupt) while it waits stops the server, says so in one line, and
        exits the program with status 130, the shell's code for it: a task started by hand
        ends without a traceback (TF 1.x printed one from join)."""
        try:
            # In short waits: a Ctrl-C that the kernel hands to another thread (gRPC's, say)
            # only sets a flag, which the main thread reads when its wait returns. A wait
            # with no timeout would never return, and the Ctrl-C would be lost.
            while not self._stopped.wait(0.2):
                pass
        except KeyboardInterrupt:
            self.stop()
            sys.stderr.write(f"{self.target}: stopped (Ctrl-C)\n")
            raise SystemExit(130) from None

    def stop(self, grace: float | None = 0.5) -> None:
        """Stops serving; join() returns."""
        if not self._stopped.is_set():
            self._grpc.stop(grace).wait(5.0)
            self._worker.close()
            self._tasks.close()
            self._channels.close()
            if self._blas_threads_before is not None:  # the process's own again
                blas.set_threads(self._blas_threads_before)
            self._stopped.set()

    @staticmethod
    def create_local_server(config=None, start=True) -> "Server":
        """A single-task server on a free port of this machine."""
        return Server({"localhost": ["localhost:0"]}, job_name="localhost", task_index=0, config=config,
                      start=start)


def shutdown_task(address: str, timeout: float = 5.0, wait_for_ready: bool = False,
                  token: bytes | None = None) -> None:
    """Asks the server at ``address`` to stop (what the launcher does to ps tasks); with
    ``wait_for_ready``, a server that is not up yet is waited for, up to ``timeout``.
    ``token``: the cluster's, if not this process's own (auth.py)."""
    channels = Channels(token)
    try:
        channels.call(address, "distflow.Worker", "Shutdown", pb.ShutdownRequest(), timeout=timeout,
                      wait_for_ready=wait_for_ready)
    finally:
        channels.close()
