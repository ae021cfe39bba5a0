"""GPU training throughput: distflow on a CUDA GPU beside PyTorch eager, in one process.

The models of bench_mlp.py and bench_cnn.py, float32 (TF32 off on both sides), samples
per second (higher is better), the median of 5 rounds, the two libraries' rounds taken in
turn:
  MLP 784-512-512-10, SGD (0.01), batch 256 and 8192;
  Deep MNIST (conv 5x5x32, pool, conv 5x5x64, pool, fc 1024, fc 10), Adam (1e-4), batch 64
    and 1024;
  bench_rnn.py's LSTM language model (dynamic_rnn, batch 32 x 35, 200 units, vocabulary
    1000, SGD with clipping) against PyTorch's loop of one LSTMCell call per time step;
  in-graph x2: the MLP at batch 512 as two towers on two virtual GPUs of one card, against
    one tower at the same batch (distflow alone).
The batch is resident on the GPU on both sides (a constant in distflow's graph, a CUDA
tensor in PyTorch), so a step measures the training work, not the copy of its input;
``feed_dict`` rows say what feeding from host memory costs on top.

Usage:
  python benchmarks/bench_gpu.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("CUPY_TF32", "0")
os.environ.setdefault("NVIDIA_TF32_OVERRIDE", "0")

from common import use_distflow_source  # noqa: E402



def _rounds(step, sync, batch, steps, rounds, warm=2):
    for _ in range(warm):  # compile, allocate, cache kernels and primitives
        step()
    sync()
    rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        rates.append(batch * steps / (time.perf_counter() - t0))
    return statistics.median(rates)


# -- distflow -----------------------------------------------------------------------

def _model(name: str):
    """``build_model(tf, x, y) -> loss`` of bench_mlp.py or bench_cnn.py: the CPU rows' models."""
    import bench_cnn  # noqa: PLC0415
    import bench_mlp  # noqa: PLC0415

    scope: dict = {}
    exec({"mlp": bench_mlp, "cnn": bench_cnn}[name].MEASURE, scope)  # noqa: S102 - our own benchmark's code
    return scope["build_model"]


def distflow_lstm_rate(steps, rounds):
    """bench_rnn.py's model (its ops placed by default: the GPU where they have a kernel)."""
    import bench_rnn  # noqa: PLC0415
    import distflow as tf

    scope: dict = {}
    exec(bench_rnn.MEASURE, scope)  # noqa: S102 - our own benchmark's code
    timed_round = scope["build"](tf, "one device")
    rates = [timed_round(steps) for _ in range(rounds)]
    timed_round.session.run(timed_round.train, timed_round.feed)  # (waits for the last step)
    return statistics.median(rates)


def distflow_rate(model, batch, steps, rounds, feed=False, towers=1, replay=True, device="gpu", warm=2):
    """Samples/s of ``model`` on ``device`` ("gpu", or "cpu": the session then sees no GPU)."""
    if model == "lstm":
        return distflow_lstm_rate(steps, rounds)
    import distflow as tf

    tf.reset_default_graph()
    tf.set_random_seed(0)
    rng = np.random.default_rng(0)
    xv = rng.random((batch, 784)).astype(np.float32)
    yv = rng.integers(0, 10, batch).astype(np.int64)
    build = _model(model)
    opt = {"mlp": lambda: tf.train.GradientDescentOptimizer(0.01), "cnn": lambda: tf.train.AdamOptimizer(1e-4)}[model]
    config = None
    if feed:
        x, y = tf.placeholder(tf.float32, [batch, 784]), tf.placeholder(tf.int64, [batch])
        feeds = {x: xv, y: yv}
    else:
        with tf.device(f"/{device}:0"):
            x, y = tf.constant(xv), tf.constant(yv)
        feeds = None
    if towers == 1:
        with tf.device(f"/{device}:0"):
            loss = build(tf, x, y)
            train = opt().minimize(loss)
    else:
        config = tf.ConfigProto(gpu_options=tf.GPUOptions(experimental=tf.GPUOptions.Experimental(
            virtual_devices=[tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[1024] * towers)])))
        optimizer, grads = opt(), []
        with tf.device("/gpu:0"):
            splits = zip(tf.split(x, towers), tf.split(y, towers))
        for i, (xs, ys) in enumerate(splits):
            with tf.device(f"/gpu:{i}"), tf.variable_scope("model", reuse=i > 0):
                loss = build(tf, xs, ys)
                grads.append(optimizer.compute_gradients(loss))
        with tf.device("/gpu:0"):
            train = optimizer.apply_gradients([(tf.add_n([g for g, _ in gv]) / towers, gv[0][1])
                                               for gv in zip(*grads)])
    config = config or tf.ConfigProto(device_count={"GPU": 0} if device == "cpu" else None)
    config.graph_options.replay_gpu_steps = replay
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    run = sess.make_callable(train, list(feeds) if feeds else None)
    args = tuple(feeds.values()) if feeds else ()
    rate = _rounds(lambda: run(*args), lambda: sess.run(loss, feeds), batch, steps, rounds, warm)
    sess.close()
    return rate


def isolated_rate(**kwargs) -> float:
    """``distflow_rate(**kwargs)`` in a process of its own: a GPU error in one measurement
    (a CUDA context left unusable) cannot spoil the others."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", json.dumps(kwargs)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(out.stderr[-3000:], file=sys.stderr, flush=True)
        return float("nan")
    return float(out.stdout.strip().splitlines()[-1])


# -- PyTorch eager ----------------------------------------------------------------------

def torch_lstm_rate(steps, rounds):
    """The same language model in PyTorch, one LSTMCell call per time step (the usual loop)."""
    import torch

    nn, dev = torch.nn, torch.device("cuda")
    torch.manual_seed(0)
    batch, time_steps, units, vocab = 32, 35, 200, 1000
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.integers(0, vocab, (batch, time_steps))).to(dev)
    y = torch.from_numpy(rng.integers(0, vocab, (batch, time_steps))).to(dev)
    embedding, cell, proj = nn.Embedding(vocab, units).to(dev), nn.LSTMCell(units, units).to(dev), \
        nn.Linear(units, vocab).to(dev)
    params = [*embedding.parameters(), *cell.parameters(), *proj.parameters()]
    opt = torch.optim.SGD(params, lr=1.0)

    def step():
        opt.zero_grad(set_to_none=True)
        inputs = embedding(x)
        h = c = torch.zeros(batch, units, device=dev)
        outs = []
        for t in range(time_steps):
            h, c = cell(inputs[:, t], (h, c))
            outs.append(h)
        logits = proj(torch.stack(outs, 1).reshape(-1, units))
        nn.functional.cross_entropy(logits, y.reshape(-1)).backward()
        nn.utils.clip_grad_norm_(params, 5.0)
        opt.step()

    return _rounds(step, torch.cuda.synchronize, batch, steps, rounds)


def torch_rate(model, batch, steps, rounds, device="cuda", warm=2):
    """Samples/s of the same model in PyTorch eager on ``device`` ("cuda" or "cpu")."""
    import torch

    if model == "lstm":
        return torch_lstm_rate(steps, rounds)

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    dev = torch.device(device)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.random((batch, 784)).astype(np.float32)).to(dev)
    y = torch.from_numpy(rng.integers(0, 10, batch).astype(np.int64)).to(dev)
    nn = torch.nn
    if model == "mlp":
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
    else:
        net = nn.Sequential(nn.Unflatten(1, (1, 28, 28)), nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                            nn.Linear(7 * 7 * 64, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)
        opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(net(x), y).backward()
        opt.step()

    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    return _rounds(step, sync, batch, steps, rounds, warm)


# -- the table ------------------------------------------------------------------------

ROWS = (  # what, model, batch, steps (full, quick), target ratio to PyTorch eager
    ("MLP, batch 256, SGD", "mlp", 256, (200, 40), 5.0),
    ("MLP, batch 8192, SGD", "mlp", 8192, (40, 10), 0.9),
    ("Deep MNIST, batch 64, Adam", "cnn", 64, (100, 20), 3.0),
    ("Deep MNIST, batch 1024, Adam", "cnn", 1024, (20, 5), 1.0),
    ("PTB-small LSTM through dynamic_rnn, batch 32 x 35 (reference: a cell-by-cell loop)", "lstm", 32, (20, 5), 1.0),
)


def run(quick: bool = False, add=None) -> list[tuple]:
    """Measures every row; ``add(what, distflow, reference, target, met)`` gets each as it comes."""
    rows = []
    rounds = 3 if quick else 5

    def emit(*row):
        rows.append(row)
        if add:
            add(*row)
        what, df, ref, target, met = row
        ratio = df / ref if ref == ref and ref else float("nan")
        flag = "" if met is None else ("met" if met else "NOT MET")
        print(f"  {what}: distflow {df:,.0f}/s, reference {ref:,.0f}/s, ratio {ratio:.2f} (target {target}) {flag}",
              flush=True)

    for what, model, batch, steps, target in ROWS:
        n = steps[1] if quick else steps[0]
        df = isolated_rate(model=model, batch=batch, steps=n, rounds=rounds)
        try:
            pt = torch_rate(model, batch, n, rounds)
        except Exception as e:  # noqa: BLE001 - a reference that fails is reported, not fatal
            print(f"  {what}: PyTorch failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            pt = float("nan")
        emit(what, df, pt, f">= {target}x PyTorch eager", df / pt >= target)
    n = 40 if quick else 200
    plain = isolated_rate(model="mlp", batch=256, steps=n, rounds=rounds, replay=False)
    emit("MLP, batch 256, SGD, op by op (no replay)", plain, float("nan"), "(no target)", None)
    fed = isolated_rate(model="mlp", batch=256, steps=n, rounds=rounds, feed=True)
    emit("MLP, batch 256, SGD, feed_dict from host", fed, float("nan"), "(no target)", None)
    plain = isolated_rate(model="cnn", batch=64, steps=20 if quick else 100, rounds=rounds, replay=False)
    emit("Deep MNIST, batch 64, Adam, op by op (no replay)", plain, float("nan"), "(no target)", None)
    one = isolated_rate(model="mlp", batch=512, steps=20 if quick else 100, rounds=rounds)
    two = isolated_rate(model="mlp", batch=512, steps=20 if quick else 100, rounds=rounds, towers=2)
    emit("MLP, batch 512, in-graph x2 on 2 virtual GPUs (reference: 1 tower)", two, one, ">= 0.9x 1 tower",
         two / one >= 0.9)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one distflow measurement (JSON keywords)
    args = parser.parse_args()
    use_distflow_source()
    if args.one:
        print(distflow_rate(**json.loads(args.one)), flush=True)
        return
    from distflow.runtime.gpu import find_backend

    backend = find_backend()
    if backend is None:
        sys.exit("no CUDA GPU: CuPy is not installed or sees no device")
    print(f"# {backend.describe(0)}", flush=True)
    run(args.quick)


if __name__ == "__main__":
    main()
