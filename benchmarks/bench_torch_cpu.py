"""CPU training throughput on every core of a machine: distflow beside PyTorch's CPU build.

TensorFlow cannot be brought to the GPU machine, so on its 16 CPU cores (no GPU used) the
reference is PyTorch eager on the CPU. The models are bench_gpu.py's (those of
bench_cnn.py and bench_mlp.py), float32, the batch resident in memory on both sides:
  Deep MNIST, batch 64, Adam (1e-4): target at least 1.0x PyTorch;
  MLP 784-512-512-10, batch 256, SGD (0.01): measured beside it, no target.
Neither library is given a thread variable: each sizes its pools by the cores it sees, as
a user's program does. Each measurement runs in a process of its own (10 warm-up steps,
then the median of its rounds), distflow's and PyTorch's processes taken in turn
``--pairs`` times; a row's figures are the medians over the pairs. distflow runs with no
GPU in its session (``device_count={"GPU": 0}``) wherever CuPy is installed.

Usage:
  python benchmarks/bench_torch_cpu.py [--torch-python PY] [--pairs N] [--quick]

``--torch-python`` is a Python with ``torch`` installed (by default this one). PyTorch is
never a dependency of distflow.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

ROWS = (  # what, model, batch, steps a round (full, quick), target ratio to PyTorch or None
    ("Deep MNIST, batch 64, Adam", "cnn", 64, (60, 15), 1.0),
    ("MLP, batch 256, SGD", "mlp", 256, (200, 40), None),
)
WARM = 10


def one_rate(python: str, lib: str, **kwargs) -> float:
    """Samples/s of one measurement (``bench_gpu``'s distflow_rate or torch_rate on the CPU)
    in a fresh process of ``python``; nan, with its error printed, if it failed."""
    out = subprocess.run([python, os.path.abspath(__file__), "--one", lib, json.dumps(kwargs)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"{lib} failed:\n{out.stderr[-3000:]}", file=sys.stderr, flush=True)
        return float("nan")
    return float(out.stdout.strip().splitlines()[-1])


def run(torch_python: str | None = None, pairs: int = 3, quick: bool = False, add=None) -> list[tuple]:
    """Measures every row; ``add(what, distflow, pytorch, target, met)`` gets each as it
    comes (``met`` None for a row without a target)."""
    torch_python = torch_python or sys.executable
    rows, rounds = [], 3 if quick else 5
    for what, model, batch, steps, target in ROWS:
        kwargs = dict(model=model, batch=batch, steps=steps[1] if quick else steps[0], rounds=rounds, warm=WARM)
        df, pt = [], []
        for _ in range(pairs):
            df.append(one_rate(sys.executable, "distflow", **kwargs))
            pt.append(one_rate(torch_python, "torch", **kwargs))
        d, p = statistics.median(df), statistics.median(pt)
        label = f"{os.cpu_count()} cores, no GPU: {what}"
        met = None if target is None else d / p >= target
        row = (label, d, p, "(no target)" if target is None else f">= {target}x PyTorch CPU", met)
        rows.append(row)
        if add:
            add(*row)
        print(f"  {label}: distflow {d:,.0f}/s (runs {', '.join(f'{v:,.0f}' for v in df)}), PyTorch {p:,.0f}/s "
              f"(runs {', '.join(f'{v:,.0f}' for v in pt)}), ratio {d / p:.2f}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch-python", help="a Python with torch installed (default: this one)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # one measurement: library, JSON keywords
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    import bench_gpu  # noqa: PLC0415
    from common import machine_line, use_distflow_source  # noqa: PLC0415

    if args.one:
        lib, kwargs = args.one[0], json.loads(args.one[1])
        if lib == "distflow":
            use_distflow_source()
            print(bench_gpu.distflow_rate(device="cpu", **kwargs), flush=True)
        else:
            print(bench_gpu.torch_rate(device="cpu", **kwargs), flush=True)
        return
    print(machine_line(), flush=True)
    run(args.torch_python, args.pairs, args.quick)


if __name__ == "__main__":
    main()
