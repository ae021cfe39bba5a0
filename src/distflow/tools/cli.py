"""The ``distflow`` command: a ``demo``, ``launch`` a local cluster, run one ``server`` task,
draw a ``graph``, write a checkpoint in TensorFlow's format (``convert-checkpoint``), or
freeze a graph and checkpoint for inference (``freeze-graph``, TF 1.x's tool)."""

from __future__ import annotations

import argparse
import json
import sys


def _count(minimum: int):
    """An argparse type: an integer of at least ``minimum`` (a one-line error otherwise)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def _version() -> str:
    from .. import version  # noqa: PLC0415

    return f"distflow {version.DISTFLOW_VERSION} (the TensorFlow {version.VERSION} API)"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["graph"]:  # its own parser: a script's arguments follow it
        from .graph import main as graph_main  # noqa: PLC0415

        return graph_main(argv[1:])
    if argv[:1] == ["freeze-graph"]:  # (TF's tool's own flags)
        from .freeze_graph import main as freeze_main  # noqa: PLC0415

        return freeze_main(argv[1:], prog="distflow freeze-graph")
    command = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(prog="distflow", description=" ".join(__doc__.split()).replace("``", ""))
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="cmd", metavar="{demo,launch,server,graph,convert-checkpoint,freeze-graph}")
    sub.add_parser("graph", help="draw a graph (GraphDef, meta graph or script) as SVG, by task and device",
                   add_help=False)
    sub.add_parser("freeze-graph", help="freeze a graph and a checkpoint into one GraphDef for inference "
                                        "(TF 1.x's freeze_graph and its flags)", add_help=False)
    launch = sub.add_parser(
        "launch", help="start a local cluster running one command per task",
        usage="distflow launch [--ps N] [--workers N] [--chief] [--evaluator] [--logdir DIR] [--gpus-per-worker N] "
              "-- COMMAND [ARGS ...]",
        description="Starts one process per task on free loopback ports, each running COMMAND with TF_CONFIG "
                    "naming its job and index; prefixes their output with the task; stops the ps tasks when "
                    "the workers are done; Ctrl-C or SIGTERM stops every task.",
        epilog="example: distflow launch --ps 1 --workers 2 -- python examples/seed_between_graph.py",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    launch.add_argument("--ps", type=_count(0), default=1, help="parameter-server tasks (default 1)")
    launch.add_argument("--workers", type=_count(1), default=2, help="worker tasks (default 2)")
    launch.add_argument("--chief", action="store_true", help="add a 'chief' task")
    launch.add_argument("--evaluator", action="store_true",
                        help="add an 'evaluator' task (outside the cluster, as TF_CONFIG has it in TensorFlow)")
    launch.add_argument("--logdir", help="also write each task's output to DIR/<job>-<index>.log")
    launch.add_argument("--gpus-per-worker", type=_count(0), default=0, metavar="N",
                        help="give each chief and worker task N GPUs of its own (CUDA_VISIBLE_DEVICES), "
                             "the ps tasks none (default 0: every task sees what this process sees)")
    demo = sub.add_parser("demo", help="train a digits classifier on a local cluster, and watch it",
                          description="Starts a local cluster (1 ps and 2 workers by default) that trains a "
                                      "digits classifier with between-graph replication; shows each worker's "
                                      "progress and a final table; writes TensorBoard logs.")
    demo.add_argument("--ps", type=_count(1), default=1, help="parameter-server tasks (default 1)")
    demo.add_argument("--workers", type=_count(1), default=2, help="worker tasks (default 2)")
    demo.add_argument("--sync", action="store_true", help="synchronous updates (SyncReplicasOptimizer)")
    demo.add_argument("--steps", type=_count(1), default=3000, help="global steps (default 3000)")
    demo.add_argument("--logdir", help="where the TensorBoard events, checkpoints and task logs go (default: a new "
                                       "temp dir; one with a checkpoint resumes from it)")
    server = sub.add_parser("server", help="run one task's server until it is stopped")
    server.add_argument("--cluster", required=True, help='JSON, e.g. {"ps": ["127.0.0.1:2222"]}')
    server.add_argument("--job", required=True)
    server.add_argument("--task", type=int, default=0)
    convert = sub.add_parser(
        "convert-checkpoint", help="write a checkpoint in TensorFlow's format, for TensorFlow to restore",
        description="Reads the checkpoint at SOURCE (distflow's, TensorFlow's, or a folder's latest) and writes "
                    "its tensors as a TensorFlow checkpoint at OUT_PREFIX (OUT_PREFIX.index and one data file), "
                    "which TensorFlow's Saver restores and its tools read.")
    convert.add_argument("source", metavar="SOURCE", help="a checkpoint prefix, or a folder")
    convert.add_argument("out_prefix", metavar="OUT_PREFIX", help="the prefix to write")
    args, unknown = parser.parse_known_args(argv)
    if args.cmd is None:  # (a bare `distflow`: what it can do, not a missing argument)
        parser.print_help()
        return 2
    if unknown:
        hint = " (the command a task runs goes after --)" if args.cmd == "launch" else ""
        parser.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
    if args.cmd == "launch":
        if not command:
            launch.error("launch needs a command after --, e.g. distflow launch --ps 1 --workers 2 -- python "
                         "examples/seed_between_graph.py")
        from .launcher import launch as run  # noqa: PLC0415

        return run(command, args.ps, args.workers, args.chief, logdir=args.logdir,
                   gpus_per_worker=args.gpus_per_worker, evaluator=args.evaluator)
    if args.cmd == "convert-checkpoint":
        from ..framework.errors import OpError  # noqa: PLC0415
        from ..train.saver import to_tensorflow  # noqa: PLC0415

        try:
            names = to_tensorflow(args.source, args.out_prefix)
        except (OpError, ValueError, TypeError, OSError) as e:
            convert.error(getattr(e, "message", None) or str(e))
        print(f"wrote {len(names)} tensors to {args.out_prefix} (TensorFlow's format)")
        return 0
    if args.cmd == "demo":
        from .demo import run as demo_run  # noqa: PLC0415

        return demo_run(args.ps, args.workers, args.sync, args.steps, args.logdir)
    from ..distributed.server import Server  # noqa: PLC0415
    from ..framework.errors import OpError  # noqa: PLC0415

    try:
        srv = Server(json.loads(args.cluster), job_name=args.job, task_index=args.task)
    except json.JSONDecodeError as e:
        server.error(f"--cluster is not JSON ({e}): {args.cluster[:200]!r}")
    except (ValueError, TypeError) as e:
        server.error(str(e))
    except OpError as e:
        server.error(e.message)
    print(f"serving {srv.target}", flush=True)
    srv.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
