"""A traced step's StepStats as a Chrome trace (``chrome://tracing``, Perfetto): TF 1.x's
``tensorflow.python.client.timeline``, which ``tf.train.ProfilerHook`` writes.

One process per device, one row per thread that ran kernels; each kernel call is a
complete event ("ph": "X") named by its op type, with the op's name and the timeline
label in its arguments. Times are microseconds.
"""

from __future__ import annotations

import json


class Timeline:
    """``Timeline(step_stats).generate_chrome_trace_format()``, as TF's."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow: bool = True, show_memory: bool = False) -> str:
        """The trace as a JSON string. (Dataflow arrows and memory counters, which TF can
        add, are not drawn: distflow's StepStats carries neither.)"""
        events = []
        for pid, dev_stats in enumerate(self._step_stats.dev_stats):
            events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": dev_stats.device}})
            for node in dev_stats.node_stats:
                op_type = node.timeline_label.partition(" = ")[2].partition("(")[0] or node.node_name
                start = node.all_start_micros + node.op_start_rel_micros
                events.append({"name": op_type, "ph": "X", "cat": "Op", "pid": pid, "tid": node.thread_id,
                               "ts": start, "dur": max(0, node.op_end_rel_micros - node.op_start_rel_micros),
                               "args": {"name": node.node_name, "op": op_type}})
        return json.dumps({"traceEvents": events}, separators=(",", ":"))
