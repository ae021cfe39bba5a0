"""MLP training throughput: distflow beside TensorFlow and hand-written NumPy.

MLP 784-512-512-10 with ReLU, softmax cross-entropy, plain SGD, batch 256, synthetic
data, float32. Four measurements, samples per second (higher is better), each the median of 7 rounds:
  numpy:        the same step written by hand in NumPy (forward, backward, in-place update);
  one device:   distflow and TensorFlow (tf.compat.v1 graph mode, feed_dict);
                TensorFlow runs in its own process, its rounds alternating with distflow's;
  in-graph x2:  two towers on two CPU devices (device_count={"CPU": 2}), each on half of
                the batch, gradients averaged and applied once;
  in-graph x2, intra 1: the same with intra_op_parallelism_threads=1 and
                inter_op_parallelism_threads=2 in both libraries (one thread per op, the
                towers at once).

Usage:
  python benchmarks/bench_mlp.py [--tf-python /path/to/venv/bin/python] [--steps N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from common import TOWERS, alternate_rounds, machine_line, use_distflow_source

# The measurement, written once for both libraries: `tf` is distflow or tf.compat.v1.
MEASURE = TOWERS + r'''
import time
import numpy as np

SIZES = [784, 512, 512, 10]
BATCH = 256


def build_model(tf, x, y):
    h = x
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        w = tf.get_variable(f"w{i}", [n_in, n_out], initializer=tf.random_normal_initializer(stddev=0.05))
        b = tf.get_variable(f"b{i}", [n_out], initializer=tf.zeros_initializer())
        h = tf.matmul(h, w) + b
        if i < len(SIZES) - 2:
            h = tf.nn.relu(h)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))


def build(tf, mode):
    tf.reset_default_graph()
    tf.set_random_seed(0)
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    yv = rng.integers(0, SIZES[-1], size=BATCH).astype(np.int64)
    x = tf.placeholder(tf.float32, [BATCH, SIZES[0]])
    y = tf.placeholder(tf.int64, [BATCH])
    opt = tf.train.GradientDescentOptimizer(0.01)
    train, config = train_op(tf, opt, build_model, x, y, mode, "mlp")
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    return timed_rounds(sess, train, {x: xv, y: yv}, BATCH)


def measure(tf, mode, steps, rounds=7):
    timed_round = build(tf, mode)
    return float(np.median([timed_round(steps) for _ in range(rounds)]))
'''


INTRA_1 = "in-graph x2, intra 1"
MODES = ("one device", "in-graph x2", INTRA_1)


def numpy_step():
    """The same training step written by hand in NumPy (float32, in-place SGD)."""
    sizes, batch, lr = [784, 512, 512, 10], 256, np.float32(0.01)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], size=batch)
    ws = [(rng.standard_normal((a, b)) * 0.05).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]

    def step():
        acts, pre = [x], []
        for i, (w, b) in enumerate(zip(ws, bs)):
            z = acts[-1] @ w + b
            pre.append(z)
            acts.append(np.maximum(z, 0) if i < len(ws) - 1 else z)
        logits = acts[-1]
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p[np.arange(batch), y] -= 1
        grad = p / batch
        for i in range(len(ws) - 1, -1, -1):
            dw = acts[i].T @ grad
            db = grad.sum(0)
            if i:
                grad = (grad @ ws[i].T) * (pre[i - 1] > 0)
            ws[i] -= lr * dw
            bs[i] -= lr * db

    for _ in range(10):
        step()
    return step


def numpy_round(step, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps * 256 / (time.perf_counter() - start)




def run_side_by_side(tf_python: str | None, steps: int, rounds: int = 7) -> tuple[dict, dict, float]:
    """Rounds of distflow, TensorFlow and hand-written NumPy, taken in turn.

    The VM's speed drifts by +-30% over seconds, so each figure is the median of its
    rounds, and the three take their rounds one after another to see the same drift.
    Returns (distflow's rates, TensorFlow's rates, NumPy's rate).
    """
    use_distflow_source()
    ref_step = numpy_step()
    numpy_rates: list[float] = []

    def numpy_turn(mode):  # NumPy's round in the same turn (not beside INTRA_1: its BLAS has one thread)
        if mode != INTRA_1:
            numpy_rates.append(numpy_round(ref_step, steps))
    # INTRA_1 last: it sets BLAS's threads for the whole process
    rates, tf_rates = alternate_rounds(MEASURE, MODES, steps, tf_python, rounds, each_round=numpy_turn)
    rates["numpy"] = numpy_rates
    medians = {mode: float(np.median(r)) for mode, r in rates.items()}
    tf_medians = {mode: float(np.median(r)) for mode, r in tf_rates.items()}
    return {m: v for m, v in medians.items() if m != "numpy"}, tf_medians, medians["numpy"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    print(machine_line())
    df, tf, ref = run_side_by_side(args.tf_python, args.steps)
    print(f"{'hand-written NumPy':<22} {ref:>10.0f} samples/s")
    print(f"{'mode':<22} {'distflow':>10} {'TensorFlow':>11} {'df/TF':>7} {'df/NumPy':>9}")
    for mode in MODES:
        t = tf.get(mode, float("nan"))
        vs_numpy = df[mode] / ref if mode != INTRA_1 else float("nan")  # NumPy ran with more threads
        print(f"{mode:<22} {df[mode]:>10.0f} {t:>11.0f} {df[mode] / t:>7.2f} {vs_numpy:>9.2f}")


if __name__ == "__main__":
    main()
