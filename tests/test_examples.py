"""The seed programs run as scripts and print the right result."""

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPECTED = "[[ 9.]\n [21.]\n [33.]\n [45.]]"


def run_example(name, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", name), *args], capture_output=True,
                          text=True, timeout=240, env=env)


@pytest.mark.parametrize("name", ["seed_in_graph.py", "seed_single_device.py"])
def test_seed_prints_result(name):
    out = run_example(name)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == EXPECTED


def test_in_graph_placement_log_shows_each_matmul_on_its_own_gpu():
    log = run_example("seed_in_graph.py").stderr.splitlines()
    placed = {line.split(":")[0]: line for line in log if "(MatMul)" in line or "(ConcatV2)" in line}
    assert placed["MatMul"].split(": ")[-1].startswith("/job:localhost/replica:0/task:0/device:GPU:0")
    assert placed["MatMul_1"].split(": ")[-1].startswith("/job:localhost/replica:0/task:0/device:GPU:1")
    assert "simulated" in placed["MatMul"]
    assert placed["concat"].endswith("/job:localhost/replica:0/task:0/device:CPU:0")


def accuracy_of(name, *args):
    out = run_example(name, *args)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("test accuracy:")]
    assert lines, out.stdout
    return float(lines[-1].split(":")[1])


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                    reason="the digits data set comes with scikit-learn (the 'examples' extra)")
@pytest.mark.parametrize("name,args,minimum", [
    ("train_digits.py", ("--model", "mlp"), 0.97),
    ("in_graph_training.py", (), 0.97),
    ("model_parallel.py", (), 0.97),
    ("hybrid_parallel.py", (), 0.97),
    ("train_digits.py", ("--model", "cnn", "--steps", "600"), 0.95),
])
def test_training_examples_reach_accuracy(name, args, minimum):
    assert accuracy_of(name, *args) >= minimum


def test_digits_without_scikit_learn_says_how_to_install():
    code = ("import sys; sys.modules['sklearn'] = None\n"
            "from distflow.datasets import load_digits\n"
            "load_digits()\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode != 0
    assert "pip install 'distflow[examples]'" in out.stderr


def test_char_lstm_learns_well_below_the_unigram_baseline():
    out = run_example("char_lstm.py", "--steps", "60")
    assert out.returncode == 0, out.stderr[-3000:]
    line = [line for line in out.stdout.splitlines() if line.startswith("validation perplexity:")][-1]
    perplexity = float(line.split(":")[1].split()[0])
    unigram = float(line.split("baseline")[1].strip(" )"))
    assert perplexity < 0.6 * unigram, line
