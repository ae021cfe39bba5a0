"""The ``distflow`` command: ``launch`` a local cluster, or run one ``server`` task."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(prog="distflow")
    sub = parser.add_subparsers(dest="cmd", required=True)
    launch = sub.add_parser("launch", help="start a local cluster running one command per task")
    launch.add_argument("--ps", type=int, default=1, help="parameter-server tasks")
    launch.add_argument("--workers", type=int, default=2, help="worker tasks")
    launch.add_argument("--chief", action="store_true", help="add a 'chief' task")
    server = sub.add_parser("server", help="run one task's server until it is stopped")
    server.add_argument("--cluster", required=True, help='JSON, e.g. {"ps": ["127.0.0.1:2222"]}')
    server.add_argument("--job", required=True)
    server.add_argument("--task", type=int, default=0)
    args = parser.parse_args(argv)
    if args.cmd == "launch":
        if not command:
            parser.error("launch needs a command after --")
        from .launcher import launch as run  # noqa: PLC0415

        return run(command, args.ps, args.workers, args.chief)
    from ..distributed.server import Server  # noqa: PLC0415

    srv = Server(json.loads(args.cluster), job_name=args.job, task_index=args.task)
    print(f"serving {srv.target}", flush=True)
    srv.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
