"""What every side-by-side benchmark shares: the machine line and running TensorFlow's side."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# Prepended to a benchmark body run in TensorFlow's interpreter: `tf` is tf.compat.v1.
# (TF_USE_LEGACY_KERAS: tf.compat.v1's RNN cells exist only with Keras 2, the tf_keras package)
TF_PRELUDE = ("import json, os\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\n"
              "os.environ.setdefault('TF_USE_LEGACY_KERAS', '1')\n"
              "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\n")


def machine_line() -> str:
    return (f"# {platform.node()} {platform.machine()} {os.cpu_count()} cores{cpu_model()}, Python "
            f"{platform.python_version()}, NumPy {np.__version__}, {time.strftime('%Y-%m-%d')}")


def cpu_model() -> str:
    """", <model name> (<widest vector instructions>)" from /proc/cpuinfo, or "" off Linux.

    The ratios depend on it: TensorFlow's oneDNN convolves with AVX-512 where the CPU has
    it, and its lead over products of windows (distflow's) grows there."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return ""
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    flags = set(fields.get("flags", "").split())
    vector = next((name for name in ("avx512f", "avx2", "avx", "sse4_2") if name in flags), "")
    return f", {fields.get('model name', 'unknown CPU')} ({vector})" if vector else ""


def use_distflow_source():
    """Imports distflow from this checkout (and lets child processes do the same)."""
    sys.path.insert(0, SRC)
    os.environ["PYTHONPATH"] = SRC + os.pathsep + os.environ.get("PYTHONPATH", "")
    import distflow  # noqa: PLC0415

    return distflow


def run_tensorflow(python: str, body: str, call: str, timeout: float = 1800):
    """Runs ``body`` then prints ``json.dumps(<call>)`` in TensorFlow's Python; returns the value."""
    code = body + "\n" + TF_PRELUDE + f"print(json.dumps({call}))\n"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"TensorFlow run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


class TensorFlowProcess:
    """TensorFlow's side kept running, so its rounds can alternate with distflow's.

    This VM's speed drifts by tens of percent over seconds; rounds taken in turn by the
    two libraries see the same drift, where one library's rounds taken after the
    other's do not. ``call(expr)`` evaluates ``expr`` in TensorFlow's interpreter (after
    ``body``) and returns its JSON-decoded value.
    """

    _LOOP = ("import sys\nfor _line in sys.stdin:\n"
             "    print(json.dumps(eval(_line)), flush=True)\n")

    def __init__(self, python: str, body: str):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        self._proc = subprocess.Popen([python, "-c", body + "\n" + TF_PRELUDE + self._LOOP], env=env, text=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def call(self, expr: str):
        self._proc.stdin.write(expr + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"TensorFlow's process ended (exit code {self._proc.wait(timeout=10)}) on: {expr}")
        return json.loads(line)

    def close(self) -> None:
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()



# An idle pause before each library's round: OpenBLAS's and Eigen's worker threads spin for
# up to ~0.1 s after their last task, and would otherwise eat into the other library's round.
SETTLE_S = 0.3


def alternate_rounds(body: str, modes, steps: int, tf_python: str | None, rounds: int = 7,
                     each_round=None) -> tuple[dict, dict]:
    """Samples/s of ``body``'s ``build(tf, mode)`` step for each mode, distflow's rounds and
    TensorFlow's (in its own process, with ``tf_python``) taken in turn, so that both see
    the same drift of the machine. ``each_round(mode)``, if given, runs before each of
    distflow's rounds (a reference measured in the same turn). Each library's list of
    rates per mode (TensorFlow's empty without ``tf_python``)."""
    tf = use_distflow_source()
    scope: dict = {}
    exec(body, scope)  # noqa: S102 - our own benchmark body
    rates: dict[str, list[float]] = {}
    tf_rates: dict[str, list[float]] = {}
    other = TensorFlowProcess(tf_python, body + "\nrounds = {}\n") if tf_python else None
    try:
        for mode in modes:
            timed_round = scope["build"](tf, mode)
            if other:
                other.call(f"rounds.__setitem__({mode!r}, build(tf, {mode!r}))")
            rates[mode], tf_rates[mode] = [], []
            for _ in range(rounds):
                time.sleep(SETTLE_S)
                if each_round is not None:
                    each_round(mode)
                rates[mode].append(timed_round(steps))
                if other:
                    time.sleep(SETTLE_S)
                    tf_rates[mode].append(other.call(f"rounds[{mode!r}]({steps})"))
    finally:
        if other:
            other.close()
    return rates, tf_rates


def median_rates(body: str, modes, steps: int, tf_python: str | None, rounds: int = 7) -> tuple[dict, dict]:
    """``alternate_rounds``' medians: (distflow's samples/s per mode, TensorFlow's)."""
    rates, tf_rates = alternate_rounds(body, modes, steps, tf_python, rounds)
    return ({m: float(np.median(r)) for m, r in rates.items()},
            {m: float(np.median(r)) for m, r in tf_rates.items() if r})


def profile_kernels(body: str, mode: str, steps: int, top: int = 20) -> None:
    """Prints distflow's kernel calls of ``body``'s step in ``mode``, summed by op type
    over ``steps`` traced steps (a control-flow op counts as one call, its functions inside)."""
    tf = use_distflow_source()
    scope: dict = {}
    exec(body, scope)  # noqa: S102 - our own benchmark body
    timed_round = scope["build"](tf, mode)
    by_type: dict[str, float] = {}
    for _ in range(steps):
        meta = tf.RunMetadata()
        timed_round.session.run(timed_round.train, timed_round.feed, run_metadata=meta,
                                options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
        for dev in meta.step_stats.dev_stats:
            for node in dev.node_stats:
                op_type = node.timeline_label.split(" = ")[1].rstrip("()")
                by_type[op_type] = by_type.get(op_type, 0.0) + node.op_end_rel_nanos / 1e6 / steps
    total = sum(by_type.values())
    print(f"{'op type':<34} {'ms/step':>8} {'share':>6}")
    for op_type, ms in sorted(by_type.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{op_type:<34} {ms:>8.2f} {ms / total:>6.1%}")
    print(f"{'all kernels':<34} {total:>8.2f}")


def side_by_side_main(doc: str, body: str, modes, title: str) -> None:
    """A training benchmark's command line: samples/s of each mode beside TensorFlow's, or
    (``--profile [MODE]``) distflow's kernel times in one mode (the first by default)."""
    import argparse  # noqa: PLC0415 - only the scripts' command lines need it

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--profile", nargs="?", const=modes[0], choices=modes, metavar="MODE",
                        help=f"list distflow's kernel times in MODE instead (default {modes[0]!r})")
    args = parser.parse_args()
    print(machine_line())
    if args.profile:
        profile_kernels(body, args.profile, args.steps)
        return
    df, tf = median_rates(body, modes, args.steps, args.tf_python)
    print(f"{title:<24} {'distflow':>10} {'TensorFlow':>11} {'df/TF':>7}")
    for mode in modes:
        t = tf.get(mode, float("nan"))
        print(f"{mode:<24} {df[mode]:>10.0f} {t:>11.0f} {df[mode] / t:>7.2f}")


# A training op for one device or for in-graph towers, and its timing, written once for both libraries (a
# benchmark body includes this text; `tf` is distflow or tf.compat.v1 there).
TOWERS = r'''
import time


def train_op(tf, opt, build_model, x, y, mode, scope, devices=("/cpu:0", "/cpu:1")):
    """(train op, ConfigProto): ``build_model(tf, x, y) -> loss`` on one device, or on
    towers that split the batch over ``devices``, their gradients averaged and applied once."""
    if mode == "one device":
        with tf.variable_scope(scope):
            return opt.minimize(build_model(tf, x, y)), tf.ConfigProto()
    xs, ys = tf.split(x, len(devices)), tf.split(y, len(devices))
    tower_grads = []
    for i, dev in enumerate(devices):
        with tf.device(dev), tf.variable_scope(scope, reuse=i > 0):
            loss = build_model(tf, xs[i], ys[i])
            tower_grads.append(opt.compute_gradients(loss, colocate_gradients_with_ops=True))
    averaged = []
    with tf.device(devices[0]):
        for pairs in zip(*tower_grads):
            averaged.append((tf.add_n([g for g, _ in pairs]) / float(len(pairs)), pairs[0][1]))
        train = opt.apply_gradients(averaged)
    # "intra 1": one BLAS/intra-op thread per partition, the two partitions at once
    intra = {"intra_op_parallelism_threads": 1, "inter_op_parallelism_threads": 2} if "intra 1" in mode else {}
    return train, tf.ConfigProto(device_count={"CPU": len(devices)}, **intra)


def timed_rounds(sess, train, feed, batch):
    """After 30 warm-up steps, a function that runs ``steps`` steps and returns samples/s.
    (30: a library may tune itself over its first steps, and the rounds time what follows.
    distflow measures its two executor forms over its first 24 runs of a multi-device step.)"""
    for _ in range(30):
        sess.run(train, feed)

    def timed_round(steps):
        start = time.perf_counter()
        for _ in range(steps):
            sess.run(train, feed)
        return steps * batch / (time.perf_counter() - start)
    timed_round.session, timed_round.train, timed_round.feed = sess, train, feed
    return timed_round
'''
