"""``distflow demo``: a local cluster trains a digits classifier, and you watch it.

Starts 1 ps and 2 workers (``--ps``, ``--workers``) through the launcher, each running
``distflow.tools.demo_task``: between-graph replication, variables on the ps, updates
asynchronous or, with ``--sync``, synchronous. While it trains, one line per worker shows
its global step, loss and samples/s (a bar that redraws itself on a terminal, plain lines
otherwise); at the end a table gives the test accuracy, the steps, the cluster's
throughput and the wall time. The log directory holds TensorBoard's event files (the
loss, the accuracy, the graph with each op's device), each task's output, and, where
Graphviz is installed, graph.svg: the worker's graph by task and device.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time

from .graph import load, render, to_dot
from .launcher import launch

BATCH = 64


class Progress:
    """What the launcher writes, read line by line: workers' progress and results become a
    display; anything else passes through."""

    def __init__(self, workers: int, steps: int, stream, live: bool):
        self.steps, self.stream, self.live = steps, stream, live
        self.state = {i: None for i in range(workers)}
        self.results: dict[int, dict] = {}
        self._pending = ""
        self._drawn = 0
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        with self._lock:
            self._pending += text
            while "\n" in self._pending:
                line, self._pending = self._pending.split("\n", 1)
                self._line(line)

    def flush(self) -> None:
        self.stream.flush()

    def finish(self) -> None:
        """Draws the bars one last time, for good: what is written next goes below them."""
        with self._lock:
            if self.live:
                self._clear()
                self._redraw()
                self.live = False
                self._drawn = 0

    def _line(self, line: str) -> None:
        if line.startswith("[launch] all tasks finished") and self.live:
            self._clear()  # (the bars' last state stays above the launcher's last word)
            self._redraw()
            self.live, self._drawn = False, 0
        task, _, message = line.partition("] ")
        kind, _, payload = message.partition(" ")
        if task.startswith("[worker:") and kind in ("progress", "result"):
            index = int(task[len("[worker:"):])
            try:
                values = json.loads(payload)
            except ValueError:
                values = None
            if values is not None:
                if kind == "result":
                    self.results[index] = values
                else:
                    self.state[index] = values
                    self._show(index)
                return
        self._clear()
        self.stream.write(line + "\n")
        self._redraw()

    def _text(self, index: int) -> str:
        s = self.state[index]
        if s is None:
            return f"worker {index}: starting"
        shown = min(s["step"], self.steps)  # (in-flight steps of other workers may pass the last one)
        done = shown / max(1, self.steps)
        bar = "#" * int(done * 20) + "." * (20 - int(done * 20))
        rate = "   timing..." if s["samples_per_sec"] is None else f"{s['samples_per_sec']:>7.0f} samples/s"
        return (f"worker {index} [{bar}] global step {shown:>5}/{self.steps}  its steps {s['local_steps']:>5}  "
                f"loss {s['loss']:.4f}  {rate}")

    def _show(self, index: int) -> None:
        if self.live:
            self._clear()
            self._redraw()
        else:
            s = self.state[index]
            rate = "" if s["samples_per_sec"] is None else f", {s['samples_per_sec']:.0f} samples/s"
            self.stream.write(f"worker {index}: global step {min(s['step'], self.steps)}/{self.steps}, its steps "
                              f"{s['local_steps']}, loss {s['loss']:.4f}{rate}\n")
        self.stream.flush()

    def _clear(self) -> None:
        if self.live and self._drawn:
            self.stream.write(f"\x1b[{self._drawn}F\x1b[J")  # up to the first progress line, erase below
            self._drawn = 0

    def _redraw(self) -> None:
        if self.live:
            lines = [self._text(i) for i in self.state]
            self.stream.write("\n".join(lines) + "\n")
            self._drawn = len(lines)


def _draw(logdir: str) -> str | None:
    """The chief's graph as SVG in ``logdir``, where Graphviz is installed; its path."""
    if shutil.which("dot") is None or not os.path.exists(os.path.join(logdir, "graph.pbtxt")):
        return None
    out = os.path.join(logdir, "graph.svg")
    render(to_dot(load(os.path.join(logdir, "graph.pbtxt")), depth=1), out)
    return out


def run(ps: int = 1, workers: int = 2, sync: bool = False, steps: int = 3000, logdir: str | None = None,
        stream=None) -> int:
    """Runs the demo; the launcher's exit code (0 when every task succeeded)."""
    stream = stream or sys.stdout
    logdir = os.path.abspath(logdir or tempfile.mkdtemp(prefix="distflow-demo-"))
    os.makedirs(logdir, exist_ok=True)
    mode = "synchronous" if sync else "asynchronous"
    stream.write(f"distflow demo: {ps} ps + {workers} workers, {mode} updates, {steps} global steps; "
                 f"logs in {logdir}\n")
    progress = Progress(workers, steps, stream, live=stream.isatty() if hasattr(stream, "isatty") else False)
    command = [sys.executable, "-m", "distflow.tools.demo_task", "--steps", str(steps), "--logdir", logdir]
    start = time.monotonic()
    try:
        code = launch(command + (["--sync"] if sync else []), ps, workers, out=progress,
                      logdir=os.path.join(logdir, "tasks"))
    except KeyboardInterrupt:
        code = 130
    progress.finish()
    wall = time.monotonic() - start
    chief = progress.results.get(0, {})
    if code == 130:
        stream.write(f"the demo was stopped (Ctrl-C); each task's output is in {os.path.join(logdir, 'tasks')}\n")
        return code
    if code != 0 or "test_accuracy" not in chief:
        stream.write(f"the demo failed (exit code {code}); each task's output is in {os.path.join(logdir, 'tasks')}\n")
        return code or 1
    local = [progress.results[i]["local_steps"] for i in sorted(progress.results)]
    train_secs = max(r["train_secs"] for r in progress.results.values())
    first = chief.get("first_step", 0)
    if first:
        stream.write(f"(resumed from the checkpoint at global step {first} in {logdir})\n")
    beyond = chief["global_step"] - steps
    rows = [("test accuracy", f"{chief['test_accuracy']:.4f}"),
            ("global steps", f"{chief['global_step']}" + (f" ({beyond} past {steps}: other workers' steps in flight "
                                                          "when the last one was reached)" if beyond > 0 else "")
             + (f", from {first}" if first else "")),
            ("worker steps", " + ".join(str(n) for n in local)),
            ("throughput", f"{sum(local) * BATCH / train_secs:,.0f} samples/s (all workers)"),
            ("wall time", f"{wall:.1f} s")]
    stream.write("\n" + "\n".join(f"  {name:<14} {value}" for name, value in rows) + "\n")
    picture = _draw(logdir)
    if picture:
        stream.write(f"\nThe graph, by task and device: {picture}")
    stream.write(f"\nTensorBoard: tensorboard --logdir {logdir}\n")
    stream.flush()
    return 0
