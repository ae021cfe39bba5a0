"""Runs the same expressions under distflow and under TensorFlow's ``tf.compat.v1`` (from
its own virtual environment) and prints where they differ: values, dtypes, shapes, or the
class of the error raised. A finder of defects, not a test: TensorFlow is never a
dependency, and each difference it finds becomes a test with a NumPy oracle.

    python tests/side_by_side/compare.py --tf-python tfvenv/bin/python tests/side_by_side/cases_*.py

A case file defines ``INPUTS`` (name -> NumPy array; each is a constant ``name`` in the graph,
and ``n_name`` the array) and ``CASES``, a list of strings:

- an expression, evaluated and run in a fresh graph (``tf.reduce_sum(a, 1)``);
- ``exec:`` code that sets ``out`` (what is fetched), optionally ``train`` (run ``steps``
  times first, after the variables are initialized) and ``runs`` (fetch ``out`` that many
  times: an iterator's elements);
- ``py:`` code that sets ``out`` to a Python value compared by its repr (names, shapes);
- ``sess:`` code run with ``sess`` open (it initializes what it needs) that sets ``out``
  to what it fetched: queue runners, readers, several runs in an order of its own.

Set RTOL/ATOL in the environment to change the float tolerance (2e-5, 1e-5).
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")


def _run_cases(library: str, case_file: str, out_path: str) -> None:
    if library == "tf":
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        os.environ["TF_USE_LEGACY_KERAS"] = "1"  # (Keras 2, TF 1.x's Keras)
        import tensorflow.compat.v1 as tf  # noqa: PLC0415
        tf.disable_v2_behavior()
    else:
        import distflow as tf  # noqa: PLC0415
    namespace: dict = {}
    with open(case_file, encoding="utf-8") as f:
        exec(f.read(), namespace)  # noqa: S102 - the developer's own case file
    results = {}
    for case in namespace["CASES"]:
        graph = tf.Graph()
        try:
            with graph.as_default():
                env = {"tf": tf, "np": np}
                env.update({k: tf.constant(v) for k, v in namespace["INPUTS"].items()})
                env.update({"n_" + k: v for k, v in namespace["INPUTS"].items()})
                if case.startswith("py:"):
                    exec(case[3:], env)  # noqa: S102
                    results[case] = ("ok", np.asarray(repr(env["out"])))
                    continue
                if case.startswith("sess:"):
                    with tf.Session(graph=graph) as sess:
                        env["sess"] = sess
                        exec(case[5:], env)  # noqa: S102
                    results[case] = ("ok", _plain(env["out"]))
                    continue
                if case.startswith("exec:"):
                    exec(case[5:], env)  # noqa: S102
                    fetch = env["out"]
                else:
                    fetch = eval(case, env)  # noqa: S307
                with tf.Session(graph=graph) as sess:
                    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
                              tf.tables_initializer()])
                    for _ in range(env.get("steps", 1) if "train" in env else 0):
                        sess.run(env["train"])
                    value = [sess.run(fetch) for _ in range(env["runs"])] if "runs" in env else sess.run(fetch)
            results[case] = ("ok", _plain(value))
        except Exception as e:  # noqa: BLE001 - the error's class is the result
            results[case] = ("err", type(e).__name__, str(e)[:300])
    with open(out_path, "wb") as f:
        pickle.dump(results, f)


def _plain(value):
    """A fetched value as NumPy arrays, lists and tuples (sparse and ragged values tagged)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return [("key", k, _plain(value[k])) for k in sorted(value)]
    if hasattr(value, "indices") and hasattr(value, "dense_shape"):
        return ("sparse", _plain(value.indices), _plain(value.values), _plain(value.dense_shape))
    if hasattr(value, "to_list"):
        return ("ragged", repr(value.to_list()))
    if isinstance(value, bytes):  # (as an object: NumPy's bytes dtype drops trailing zero bytes)
        return np.asarray(value, dtype=object)
    return np.asarray(value)


def _difference(a, b, rtol, atol):
    """Why two results differ, or None."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))) or len(a) != len(b):
            return f"structure {type(a).__name__} vs {type(b).__name__}"
        for x, y in zip(a, b):
            why = _difference(x, y, rtol, atol)
            if why:
                return why
        return None
    if isinstance(a, str) or isinstance(b, str):
        return None if a == b else f"{a!r} vs {b!r}"
    a, b = np.asarray(a), np.asarray(b)
    texts = a.dtype.kind in "OSU" and b.dtype.kind in "OSU"
    if a.dtype != b.dtype and not texts:
        return f"dtype {a.dtype} vs {b.dtype}"
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    if texts:
        same = [x if isinstance(x, bytes) else str(x).encode() for x in a.ravel()] == \
               [y if isinstance(y, bytes) else str(y).encode() for y in b.ravel()]
    elif a.dtype.kind in "fc":
        same = np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    else:
        same = np.array_equal(a, b)
    return None if same else f"values\n  tf={a.ravel()[:12]}\n  df={b.ravel()[:12]}"


def _shown(case: str) -> str:
    """A case as printed: its last line (after a prelude shared by a file's cases)."""
    return case.rstrip().rsplit("\n", 1)[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tf-python", required=True, help="the Python of a virtual environment with TensorFlow")
    parser.add_argument("--show-errors", action="store_true", help="also list the cases that raised under both")
    parser.add_argument("case_files", nargs="+")
    args = parser.parse_args(argv)
    rtol, atol = float(os.environ.get("RTOL", "2e-5")), float(os.environ.get("ATOL", "1e-5"))
    differ = both_raised = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case_file in args.case_files:
            paths = {lib: os.path.join(tmp, f"{lib}.pkl") for lib in ("tf", "df")}
            env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
            runs = [subprocess.Popen([python, os.path.abspath(__file__), "--run", lib, case_file, paths[lib]],
                                     env=env, stderr=subprocess.DEVNULL if lib == "tf" else None)
                    for lib, python in (("tf", args.tf_python), ("df", sys.executable))]
            for run in runs:
                run.wait(timeout=1800)
            with open(paths["tf"], "rb") as f:
                theirs = pickle.load(f)  # noqa: S301 - files this script just wrote
            with open(paths["df"], "rb") as f:
                ours = pickle.load(f)  # noqa: S301
            for case, t in theirs.items():
                d = ours[case]
                if t[0] == "err" and d[0] == "err":
                    both_raised += 1  # (the same class is agreement: but check that the case meant to fail)
                    if args.show_errors:
                        print(f"--- (both raised {t[1]}) {_shown(case)}\n    tf: {t[2][:150]}")
                    why = None if t[1] == d[1] else f"error class: tf {t[1]}, distflow {d[1]}: {d[2][:120]}"
                elif t[0] != d[0]:
                    why = f"tf {t[1:] if t[0] == 'err' else 'ok'} | distflow {d[1:] if d[0] == 'err' else 'ok'}"
                else:
                    why = _difference(t[1], d[1], rtol, atol)
                if why:
                    differ += 1
                    print(f"--- {_shown(case)}\n    {why}")
            print(f"{case_file}: {sum(1 for c in theirs if c)} cases")
    print(f"{differ} differ ({both_raised} cases raised an error under both)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--run":
        _run_cases(*sys.argv[2:5])
    else:
        sys.exit(main())
