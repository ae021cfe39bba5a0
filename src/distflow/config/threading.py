"""``tf.config.threading``: the thread counts of the sessions made from now on (0: chosen
by distflow; see ConfigProto's ``inter_op_parallelism_threads`` and
``intra_op_parallelism_threads``)."""

from __future__ import annotations

from ..runtime import process_options


def get_inter_op_parallelism_threads() -> int:
    return process_options.threads("inter")


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    process_options.set_threads("inter", num_threads)


def get_intra_op_parallelism_threads() -> int:
    return process_options.threads("intra")


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    process_options.set_threads("intra", num_threads)
