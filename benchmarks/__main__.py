"""Every benchmark, one table: ``python -m benchmarks [--tf-python PY] [--quick] [--write]``.

``python -m benchmarks --gpu`` is the GPU machine's command instead: the GPU kernel tests
(``pytest -m gpu``), then bench_gpu.py's table, distflow on the GPU beside PyTorch eager,
and bench_torch_cpu.py's rows, distflow on every CPU core beside PyTorch's CPU build.

Runs each benchmark of this folder in turn (they are also scripts of their own, with more
detail) and prints one Markdown table: what was measured, distflow's figure, TensorFlow's
(with ``--tf-python``, a Python with ``tensorflow`` installed; TensorFlow is never a
dependency of distflow), their ratio, the ceiling where one applies (hand-written NumPy,
a GEMM-bound estimate, loopback TCP, the link rate), the target, and whether it is met.
``--write`` puts the table into docs/benchmarks.md between its markers (the notes around
it are kept). ``--quick`` takes fewer steps: for trying the command, not for the record.
Rows that need what the machine lacks (root for network namespaces) say so.

Run it with ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` unset if your environment sets
them: users' machines do not.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_busy  # noqa: E402
import bench_cifar  # noqa: E402
import bench_cluster  # noqa: E402
import bench_cnn  # noqa: E402
import bench_distributed  # noqa: E402
import bench_gpu  # noqa: E402
import bench_gpu_cluster  # noqa: E402
import bench_hosts  # noqa: E402
import bench_keras  # noqa: E402
import bench_mlp  # noqa: E402
import bench_rnn  # noqa: E402
import bench_seed_latency  # noqa: E402
import bench_sync  # noqa: E402
import bench_torch_cpu  # noqa: E402
import netns  # noqa: E402
from common import TF_PRELUDE, machine_line, run_tensorflow, use_distflow_source  # noqa: E402

DOC = os.path.join(HERE, "..", "docs", "benchmarks.md")
BEGIN, END = "<!-- benchmark table: begin -->", "<!-- benchmark table: end -->"
GPU_BEGIN, GPU_END = "<!-- gpu benchmark table: begin -->", "<!-- gpu benchmark table: end -->"
NAN = float("nan")


class Table:
    def __init__(self):
        self.rows: list[tuple] = []

    def add(self, what: str, df: float, tf: float = NAN, ceiling: float = NAN, target: str = "",
            met: bool | None = None, lower_is_better: bool = False, unit: str = "") -> None:
        ratio = df / tf if tf == tf and tf else NAN
        self.rows.append((what, df, tf, ratio, ceiling, target, met, unit))
        flag = "" if met is None else ("met" if met else "NOT MET")
        print(f"  {what}: distflow {df:.4g}{unit} TF {tf:.4g} ratio {ratio:.3g} {target} {flag}", flush=True)

    def markdown(self) -> str:
        lines = ["| measure | distflow | TensorFlow | ratio | ceiling | target | met |",
                 "|---|---:|---:|---:|---:|---|---|"]
        for what, df, tf, ratio, ceiling, target, met, unit in self.rows:
            lines.append(f"| {what} | {_num(df)}{unit} | {_num(tf)} | {_num(ratio, 2)} | {_num(ceiling)} | {target} | "
                         f"{'' if met is None else ('yes' if met else '**no**')} |")
        return "\n".join(lines)


def _num(x: float, digits: int | None = None) -> str:
    if x != x:
        return ""
    if digits is not None:
        return f"{x:.{digits}f}"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.4g}"


def gemm_gflops() -> float:
    """What this NumPy's BLAS reaches on a large float32 product (the GEMM ceiling): the
    median of 15 products, as other work on the machine can slow any one of them (a run
    that measured it right after TensorFlow's processes read half the usual rate)."""
    a = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
    a @ a
    seconds = float(np.median([_timed(lambda: a @ a) for _ in range(15)]))
    return 2 * 1024 ** 3 / seconds / 1e9


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def deep_mnist_gflop_per_sample() -> float:
    """Multiply-adds of one Deep MNIST training sample, as GEMMs: forward, and two
    products (input and weight gradients) backward, for the four layers."""
    convs = [(28 * 28, 5 * 5 * 1, 32, False), (14 * 14, 5 * 5 * 32, 64, True)]  # rows, K, N, input grad
    flops = 0.0
    for rows, k, n, input_grad in convs:
        flops += 2 * rows * k * n * (3 if input_grad else 2)
    for k, n in ((7 * 7 * 64, 1024), (1024, 10)):
        flops += 2 * k * n * 3
    return flops / 1e9


def median_run(runs: list[dict]) -> dict:
    """The run whose samples/s is the median of ``runs`` (the lower middle one of an even count)."""
    return sorted(runs, key=lambda r: r["samples"])[(len(runs) - 1) // 2]


def import_cost(python: str, module: str) -> tuple[float, float]:
    """(seconds, MB of resident memory) to import ``module`` in a fresh interpreter."""
    # VmRSS, not ru_maxrss: a child's ru_maxrss starts from its parent's (fork, then exec)
    code = (f"import time\nstart = time.perf_counter()\n{module}\nseconds = time.perf_counter() - start\n"
            "rss = [l for l in open('/proc/self/status') if l.startswith('VmRSS:')][0].split()[1]\n"
            "print(seconds, int(rss) / 1024)")
    best = None
    for _ in range(3):
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        seconds, rss = (float(v) for v in out.stdout.split()[-2:])
        best = (seconds, rss) if best is None or seconds < best[0] else best
    return best


def run_all(tf_python: str | None, quick: bool) -> Table:
    table = Table()
    use_distflow_source()

    def size(full: int, fast: int) -> int:
        return fast if quick else full

    print("seed latency", flush=True)
    runs = size(5000, 1000)
    df = bench_seed_latency.run_distflow(runs)
    tf = bench_seed_latency.run_tensorflow_side(tf_python, runs) if tf_python else {}
    for mode in ("single", "in-graph"):
        t = tf.get(mode, NAN)
        table.add(f"seed {mode} Session.run (us, lower is better)", df[mode], t, target="<= 0.5x TF",
                  met=df[mode] <= 0.5 * t if tf else None, lower_is_better=True)

    print("distributed runtime", flush=True)
    df = bench_distributed.run_distflow(size(300, 100))
    tf = run_tensorflow(tf_python, bench_distributed.MEASURE,
                        f"measure(tf, {bench_distributed.TF_PS!r}, {size(300, 100)})",
                        timeout=900) if tf_python else {}
    t = tf.get("tiny step us", NAN)
    table.add("tiny step on a server (us, lower is better)", df["tiny step us"], t, target="<= 1.0x TF",
              met=df["tiny step us"] <= t if tf else None)
    loopback = bench_distributed.loopback_tcp_gbps()
    read = df["16 MB read GB/s"]
    table.add("16 MB read from a ps (GB/s)", read, tf.get("16 MB read GB/s", NAN), ceiling=loopback,
              target=">= 1.5 GB/s", met=read >= 1.5)

    print("Deep MNIST training", flush=True)
    # (rounds of 20 steps, some 0.35 s: after the idle pause before each round the first
    # two steps of either library are slow on this VM, and rounds of 5 steps measured that)
    df, tf = bench_cnn.run_side_by_side(tf_python, size(20, 2))
    gemm = gemm_gflops() / deep_mnist_gflop_per_sample()
    for mode in bench_cnn.MODES:
        t = tf.get(mode, NAN)
        table.add(f"Deep MNIST {mode} (samples/s)", df[mode], t, ceiling=gemm, target=">= 1.0x TF",
                  met=df[mode] >= t if tf else None)

    print("CIFAR-10 tutorial model training", flush=True)
    df, tf = bench_cifar.run_side_by_side(tf_python, size(10, 2))
    t = tf.get("one device", NAN)
    table.add("CIFAR-10 tutorial model one device (samples/s)", df["one device"], t, target=">= 1.0x TF",
              met=df["one device"] >= t if tf else None)

    print("LSTM language model training (dynamic_rnn)", flush=True)
    df, tf = bench_rnn.run_side_by_side(tf_python, size(5, 2))
    for mode in bench_rnn.MODES:
        t = tf.get(mode, NAN)
        table.add(f"LSTM LM dynamic_rnn {mode} (samples/s)", df[mode], t, target=">= 1.0x TF",
                  met=df[mode] >= t if tf else None)

    print("tf.keras fit", flush=True)
    df, tf = bench_keras.run_side_by_side(tf_python, size(20, 4))
    for mode in bench_keras.MODES:
        t = tf.get(mode, NAN)
        table.add(f"Keras fit, {mode} (samples/s)", df[mode], t, target=">= 1.0x TF",
                  met=df[mode] >= t if tf else None)

    print("cluster on one host", flush=True)
    repeats, cluster_steps = size(3, 1), size(60, 20)
    launched = [bench_cluster.run_cluster(sys.executable, "distflow", cluster_steps) for _ in range(repeats)]
    by_hand = [bench_cluster.run_cluster(sys.executable, "distflow", cluster_steps, by_hand=True)
               for _ in range(repeats)]
    tfs = [bench_cluster.run_cluster(tf_python, "tensorflow", cluster_steps) for _ in range(repeats)] \
        if tf_python else []
    t = float(np.median(tfs)) if tfs else NAN
    for label, runs_ in (("launcher", launched), ("started by hand", by_hand)):
        d = float(np.median(runs_))
        table.add(f"cluster 1 ps + 2 workers, {label} (samples/s)", d, t, target=">= 1.5x TF",
                  met=d >= 1.5 * t if tfs else None)

    print("emulated hosts", flush=True)
    reason = netns.unavailable()
    if reason:
        table.add(f"emulated hosts: skipped ({reason})", NAN)
    else:
        cpus = bench_hosts.default_cpus_per_host()  # (each host a CPU budget of its own, no thread variables)
        for rate in (None, "10gbit", "1gbit"):
            # (the libraries' runs in turn, each library's median run: one run of either
            # has come out 1.5x its neighbours on this VM)
            ds, ts = [], []
            for _ in range(repeats):
                ds.append(bench_hosts.run_cluster(sys.executable, "distflow", cluster_steps, rate, cpus))
                if tf_python:
                    ts.append(bench_hosts.run_cluster(tf_python, "tensorflow", cluster_steps, rate, cpus))
            d, t = median_run(ds), (median_run(ts) if ts else None)
            name = f"{rate or 'unlimited'} ({cpus} cores each)"
            ceiling = bench_hosts.link_ceiling(rate, d["received"])
            if rate == "1gbit":
                # (a pull, a compute and a push in turn leave the ps's link idle by design: the
                # ceiling is reported, the target is TF's throughput)
                table.add(f"hosts at {name}, 1 ps + 2 workers (samples/s)", d["samples"],
                          t["samples"] if t else NAN, ceiling=ceiling, target=">= 1.0x TF",
                          met=d["samples"] >= t["samples"] if t else None)
            else:
                table.add(f"hosts at {name}, 1 ps + 2 workers (samples/s)", d["samples"], t["samples"] if t else NAN,
                          ceiling=ceiling, target=">= 1.5x TF", met=d["samples"] >= 1.5 * t["samples"] if t else None)
            moved = (d["sent"] + d["received"]) / (2 * bench_hosts.PARAM_BYTES)
            table.add(f"hosts at {name}: bytes per worker step / (params + grads)", moved,
                      ((t["sent"] + t["received"]) / (2 * bench_hosts.PARAM_BYTES)) if t else NAN,
                      target="<= 1.05", met=moved <= 1.05)

    print("busy machine", flush=True)
    # (rounds of about half a second quiet: at 15 MLP steps, a tenth of a second, distflow's
    # quiet MLP measured 35-42k samples/s in one command and 62k in the next)
    for name, body, n in (("MLP", bench_mlp.MEASURE, size(60, 6)), ("Deep MNIST", bench_cnn.MEASURE, size(15, 2))):
        r = bench_busy.measure(name, body, n, tf_python, size(5, 3))
        busy, tf_busy = r["distflow"]["busy"], r["TensorFlow"]["busy"] if tf_python else NAN
        table.add(f"{name} beside two CPU-bound processes (samples/s)", busy, tf_busy, target=">= 1.0x TF",
                  met=busy >= tf_busy if tf_python else None)
        d = r["distflow"]["quiet"] / busy
        t = r["TensorFlow"]["quiet"] / tf_busy if tf_python else NAN
        table.add(f"{name} slowdown beside two CPU-bound processes (quiet / busy, lower is better)", d, t)

    # Last of the steps measured in this process: its "intra 1" mode sets BLAS's threads
    # for the whole process, as intra_op_parallelism_threads does (and TensorFlow's pool).
    print("MLP training", flush=True)
    df, tf, ref = bench_mlp.run_side_by_side(tf_python, size(30, 5))
    one = df["one device"]
    table.add("MLP one device (samples/s)", one, tf.get("one device", NAN), ceiling=ref,
              target=">= 1.2x TF and >= 0.9x NumPy",
              met=(one >= 1.2 * tf["one device"] and one >= 0.9 * ref) if tf else one >= 0.9 * ref)
    table.add("MLP in-graph x2 (samples/s)", df["in-graph x2"], tf.get("in-graph x2", NAN), ceiling=ref,
              target=">= 1.0x TF", met=df["in-graph x2"] >= tf["in-graph x2"] if tf else None)

    print("sync replicas with a straggler", flush=True)
    # (healthy and stalled runs in turn, the ratio of their medians: one pair of runs has
    # given 0.89-1.05 on this VM, the healthy rate alone moving 155-166 steps/s)
    healthy_rates, stalled_rates = [], []
    with tempfile.TemporaryDirectory() as workdir:
        train_steps = size(400, 100)
        for _ in range(repeats):
            healthy = bench_sync.run(2, train_steps, 0.0, workdir)
            stalled = bench_sync.run(2, train_steps, 10 * healthy["secs_per_local_step"], workdir)
            healthy_rates.append(healthy["global_steps_per_sec"])
            stalled_rates.append(stalled["global_steps_per_sec"])
    kept = float(np.median(stalled_rates) / np.median(healthy_rates))
    table.add("sync 2 of 3 with a 10x straggler: steps/s kept", kept, target=">= 0.9", met=kept >= 0.9)

    print("import", flush=True)
    seconds, rss = import_cost(sys.executable, "import distflow")
    tf_cost = import_cost(tf_python, TF_PRELUDE.replace("import json, os\n", "import os\n")) if tf_python \
        else (NAN, NAN)
    table.add("import time (s, lower is better)", seconds, tf_cost[0])
    table.add("resident memory after import (MB, lower is better)", rss, tf_cost[1])
    return table


def write_doc(table: Table, header: str, begin: str = BEGIN, end: str = END) -> None:
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    if begin not in text or end not in text:
        raise SystemExit(f"{DOC} has no {begin} ... {end} markers")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    markdown = table.markdown().replace("| TensorFlow |", "| reference |") if begin == GPU_BEGIN else table.markdown()
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(f"{head}{begin}\n{header}\n\n{markdown}\n{end}{tail}")


def run_gpu(quick: bool) -> tuple[Table, int]:
    """The GPU kernel tests, then the GPU table; and the tests' exit status."""
    print("GPU kernel tests (pytest -m gpu)", flush=True)
    # (in one process: the suite's pytest-xdist options are dropped, for images without it)
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                            "-m", "gpu", os.path.join(HERE, "..", "tests", "test_gpu.py")], check=False)
    table = Table()
    print("GPU throughput (samples/s; reference: PyTorch eager on the same GPU)", flush=True)
    bench_gpu.run(quick, lambda what, df, ref, target, met: table.add(what, df, ref, target=target, met=met))
    print("1 CPU ps + 2 GPU workers (steps/s; ceiling: the 16 MB read rate over the bytes a step moves)", flush=True)
    cluster = bench_gpu_cluster.run(100 if quick else 300)
    kept = cluster["steps_per_sec"] / cluster["ceiling"]
    on_gpu = sum(w["ops_on_gpu"] for w in cluster["workers"])
    on_cpu = sum(w["ops_on_cpu"] for w in cluster["workers"])
    table.add(f"1 ps + 2 GPU workers, MLP batch 256, async: steps/s (workers' ops: {on_gpu} on GPU, {on_cpu} on "
              "CPU)", cluster["steps_per_sec"], ceiling=cluster["ceiling"], target=">= 0.8 of the ceiling",
              met=kept >= 0.8)
    print("every CPU core, no GPU (samples/s; reference: PyTorch on the CPU)", flush=True)
    bench_torch_cpu.run(pairs=1 if quick else 3, quick=quick,
                        add=lambda what, df, ref, target, met: table.add(what, df, ref, target=target, met=met))
    return table, tests.returncode


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--quick", action="store_true", help="fewer steps (not for the record)")
    parser.add_argument("--write", action="store_true", help="put the table into docs/benchmarks.md")
    parser.add_argument("--gpu", action="store_true", help="the GPU tests and benchmarks (needs CuPy and a GPU)")
    args = parser.parse_args()
    header = machine_line().lstrip("# ")
    if args.gpu:
        use_distflow_source()
        from distflow.runtime.gpu import find_backend  # noqa: PLC0415

        backend = find_backend()
        if backend is None:
            raise SystemExit("--gpu: no CUDA GPU (CuPy is not installed or sees no device)")
        header = f"{header}; GPU: {backend.describe(0)}"
        print(header, flush=True)
        table, tests_status = run_gpu(args.quick)
        print()
        print(table.markdown())
        if args.write:
            write_doc(table, f"Measured by `python -m benchmarks --gpu{' --quick' if args.quick else ''}` on "
                      f"{header}.", GPU_BEGIN, GPU_END)
        raise SystemExit(tests_status)
    print(header, flush=True)
    table = run_all(args.tf_python, args.quick)
    print()
    print(table.markdown())
    if args.write:
        write_doc(table, f"Measured by `python -m benchmarks{' --quick' if args.quick else ''}` on {header}.")


if __name__ == "__main__":
    main()
