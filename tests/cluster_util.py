"""Real server processes on 127.0.0.1 for the distributed tests (killed by pid, every wait bounded)."""

import json
import os
import subprocess
import sys
import time

from distflow.tools.launcher import free_ports

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Run by a new interpreter: limit its open files (argv[1]), then become the command that follows.
_LIMIT_THEN_EXEC = ("import os, resource, sys; "
                    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), "
                    "resource.getrlimit(resource.RLIMIT_NOFILE)[1])); "
                    "os.execv(sys.argv[2], sys.argv[2:])")


class LocalCluster:
    """Starts one ``distflow server`` process per task; ``kill(job, index)`` ends one by pid."""

    def __init__(self, jobs: dict[str, int], start_jobs=None, open_files: int | None = None, env=None):
        """``start_jobs``: the jobs whose servers start now (all by default); others are left to the test.
        ``open_files``: the most file descriptors each server may hold (RLIMIT_NOFILE).
        ``env``: variables each server's environment adds."""
        self._open_files = open_files
        self._env = dict(env or {})
        ports = iter(free_ports(sum(jobs.values())))
        self.spec = {job: [f"127.0.0.1:{next(ports)}" for _ in range(n)] for job, n in jobs.items()}
        self.procs: dict[tuple[str, int], subprocess.Popen] = {}
        for job, addresses in self.spec.items():
            if start_jobs is None or job in start_jobs:
                for index in range(len(addresses)):
                    self.start(job, index)

    def start(self, job: str, index: int, timeout: float = 30.0) -> None:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), **self._env)
        argv = [sys.executable, "-m", "distflow.tools.cli", "server", "--cluster", json.dumps(self.spec), "--job", job,
                "--task", str(index)]
        if self._open_files:  # (set by the new process itself before it becomes the server: a preexec_fn
            # runs Python between fork and exec, which a parent with threads can crash or hang)
            argv = [sys.executable, "-c", _LIMIT_THEN_EXEC, str(self._open_files)] + argv
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        self.procs[(job, index)] = proc
        deadline = time.monotonic() + timeout
        line, said = b"", []
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if line.startswith(b"serving") or not line:
                break
            said.append(line)
        if not line.startswith(b"serving"):
            try:  # (a process that exited says how: its status, or the signal that ended it)
                status = proc.wait(5)
            except subprocess.TimeoutExpired:
                status = "still running"
            self.close()
            raise RuntimeError(f"server {job}:{index} did not start (exit status {status}); it said:\n"
                               f"{b''.join(said).decode(errors='replace')[-3000:]}")

    def target(self, job: str, index: int = 0) -> str:
        return "grpc://" + self.spec[job][index]

    def address(self, job: str, index: int = 0) -> str:
        return self.spec[job][index]

    def waiting_kernels(self, job: str, index: int = 0) -> int:
        """How many kernels the task is blocked in now (its GetStatus says)."""
        return waiting_kernels_at(self.address(job, index))

    def kill(self, job: str, index: int) -> None:
        proc = self.procs.pop((job, index))
        proc.kill()
        proc.wait(10)

    def close(self) -> None:
        for proc in self.procs.values():
            proc.kill()
        for proc in self.procs.values():
            proc.wait(10)
        self.procs.clear()


_STATUS_CHANNELS: dict = {}  # by the token they carry: one connection per server for every poll


def waiting_kernels_at(address: str) -> int:
    """The number of blocked kernels that the server at ``address`` reports.

    Tests poll this every few milliseconds while a process they started gets going: on a
    channel of its own each poll was a new connection, thousands a second, and the CPU
    they took delayed what the test waited for (past its bound, on a loaded machine)."""
    from distflow.distributed.auth import configured_token
    from distflow.distributed.rpc import Channels
    from distflow.protos import distflow_pb2 as pb

    token = configured_token()
    channels = _STATUS_CHANNELS.get(token)
    if channels is None:
        channels = _STATUS_CHANNELS[token] = Channels()
    return channels.call(address, "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=10).waiting_kernels
