"""Every argument of a supported name does something, or is listed here with the reason it
need not. A parameter that a function's body never reads is found by reading its source;
one that TF 1.x honours must be honoured, or refused with an UnimplementedError naming it.

The check reads each function's own body: an argument handed on to another function
counts as read there, so a callee that drops it is found only when the callee is a
public name itself.
"""

import ast
import functools
import inspect
import textwrap

import distflow as tf
from distflow.tools import compat

# Parameters that have no effect in distflow by design, whatever function takes them.
NO_EFFECT = {
    "use_cudnn_on_gpu": "a GPU kernel choice; it changes no result, and no kernel here depends on it",
    "swap_memory": "a loop's GPU memory swapped to the host: no device memory to swap",
    "buffer_size": "a file read-ahead size: it changes no record read",
    "num_parallel_reads": "files are read one after another; the records and their order are the same as with one reader",
    "validate_indices": "deprecated in TF 1.x, which ignores it too; indices are always checked",
    "optimize": "whether TF may fold a constant shape: the values are the same",
    "gate_gradients": "gradients are computed in one pass, so gating them changes no value",
    "use_resource": "one kind of variable; a step reads a variable before updating it (docs/compat.md)",
    "synchronization": "a variable has one copy here, so how replicas synchronize it does not arise",
    "aggregation": "a variable has one copy here, so how replicas' updates aggregate does not arise",
    "example_names": "names used in TF's parse error messages only",
    "example_name": "a name used in TF's parse error messages only",
}

# Parameters with no effect in one function, and why.
NO_EFFECT_IN = {
    "nn.all_candidate_sampler": {"unique": "TF documents it as ignored"},
    "nn.compute_accidental_hits": {"num_true": "read from the labels' shape", "seed": "the op draws nothing"},
    "nn.moments": {"shift": "TF documents it as not used"},
    "summary.FileWriter": {"max_queue": "events are written as they come, never held in a queue"},
    "tf.TensorArray": {"clear_after_read": "a TensorArray is a value here: reading never consumes it",
                       "colocate_with_first_write_call": "a placement hint; writes go with the array"},
    "tf.Variable": {"expected_shape": "deprecated in TF 1.x, which ignores it too"},
    "tf.argsort": {"stable": "the sort is always stable, which also satisfies stable=False"},
    "tf.enable_eager_execution": {"args": "it raises: graph mode only", "kwargs": "it raises: graph mode only"},
    "tf.get_local_variable": {"trainable": "a local variable is never trainable, as in TF"},
    "tf.hessians": {"aggregation_method": "one way to add gradients; the sum is the same"},
    "tf.import_graph_def": {"op_dict": "deprecated in TF 1.x, which ignores it too",
                            "producer_op_list": "default attrs are filled from distflow's op definitions"},
    "tf.matmul": {"a_is_sparse": "a kernel hint: the same product", "b_is_sparse": "a kernel hint: the same product"},
    "tf.matrix_diag": {"align": "only a band of diagonals (k a pair) is aligned, and bands are refused"},
    "tf.matrix_diag_part": {"padding_value": "only a band of diagonals (k a pair) is padded, and bands are refused",
                            "align": "only a band of diagonals (k a pair) is aligned, and bands are refused"},
    "tf.matrix_set_diag": {"align": "only a band of diagonals (k a pair) is aligned, and bands are refused"},
    "tf.matrix_solve_ls": {"fast": "a choice of algorithm: the least-squares solution is the same"},
    "tf.strided_slice": {"var": "the variable sliced assignments come back to; the slice itself is the same"},
    "tf.variable_scope": {"values": "TF only checks that they come from the default graph"},
    "train.Saver": {"restore_sequentially": "restores read one file per shard either way: the values are the same",
                    "save_relative_paths": "checkpoints in the state file's folder are always named relative to it"},
    "train.export_meta_graph": {"strip_default_attrs": "it only shrinks the file for other readers"},
}


def _function_of(obj):
    if inspect.isclass(obj):
        return obj.__dict__.get("__init__")
    obj = inspect.unwrap(obj) if callable(obj) else obj
    return obj if inspect.isfunction(obj) else None


def _unread_parameters(fn) -> list[str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    node = next(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    args = node.args
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and \
        isinstance(node.body[0].value, ast.Constant) else node.body  # (not the docstring)
    names = [n for stmt in body for n in ast.walk(stmt)]
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars") for n in names):
        return []
    read = {n.id for n in names if isinstance(n, ast.Name)}
    return [p for p in params if p not in read and p not in ("self", "cls") and not p.startswith("_")]


def _public_functions():
    for namespace, names in compat._api().items():
        module = tf if namespace == "tf" else getattr(tf, namespace, None)
        for name, kind in names.items():
            obj = getattr(module, name, None) if kind in ("function", "class") and module is not None else None
            fn = _function_of(obj) if obj is not None and not isinstance(obj, functools.partial) else None
            if fn is not None:
                yield f"{namespace}.{name}", fn


def test_every_argument_of_a_supported_name_is_read_or_listed_with_its_reason():
    unread = {}
    for name, fn in _public_functions():
        try:
            params = _unread_parameters(fn)
        except (OSError, TypeError):
            continue  # (no Python source: nothing to read)
        left = [p for p in params if p not in NO_EFFECT and p not in NO_EFFECT_IN.get(name, {})]
        if left:
            unread[name] = left
    assert not unread, ("these arguments are accepted and never read; honour each, refuse it with an "
                        f"UnimplementedError naming it, or list it here with the reason it has no effect: {unread}")


def test_the_list_of_arguments_without_effect_is_current():
    listed = {(name, p) for name, params in NO_EFFECT_IN.items() for p in params}
    found = set()
    for name, fn in _public_functions():
        try:
            found |= {(name, p) for p in _unread_parameters(fn)}
        except (OSError, TypeError):
            continue
    stale = sorted(listed - found)
    assert not stale, f"listed as without effect but now read (or gone): remove them from NO_EFFECT_IN: {stale}"


def test_arguments_that_cannot_be_honoured_are_refused_naming_them(tmp_path):
    import pytest

    refused = [
        (lambda: tf.linspace(0.0, 1.0, 3, axis=1), "axis=1"),
        (lambda: tf.train.Saver([tf.Variable(1.0)], write_version=1), "write_version=1"),
        (lambda: tf.nn.conv3d_transpose(tf.zeros([1, 2, 2, 2, 1]), tf.zeros([1, 1, 1, 1, 1]), [1, 2, 2, 2, 1],
                                        [1, 1, 1, 1, 1], dilations=2), "dilations=2"),
        (lambda: tf.summary.FileWriter(str(tmp_path), session=object()), "session="),
        (lambda: tf.nn.max_pool_with_argmax(tf.zeros([1, 2, 2, 1]), [1, 2, 2, 1], [1, 2, 2, 1], "VALID",
                                            data_format="NCHW"), "data_format='NCHW'"),
    ]
    for make, named in refused:
        with pytest.raises(tf.errors.UnimplementedError, match=named):
            make()


def test_arguments_that_now_do_what_tf_does(tmp_path):
    import numpy as np

    # flatten(channels_first) moves the channels last first
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    flat = tf.layers.flatten(x, data_format="channels_first")
    # precision_at_top_k(k) looks at the first k predictions
    precision, update = tf.metrics.precision_at_top_k(tf.constant([[1]], tf.int64),
                                                      tf.constant([[1, 2, 3]], tf.int64), k=1)
    # a Variable from a VariableDef, and the state proto's paths relative to a relative save_dir
    v = tf.Variable(3.0, name="v")
    again = tf.Variable(variable_def=v.to_proto())
    state = tf.train.generate_checkpoint_state_proto("train", "train/model-1")
    with tf.Session() as sess:
        sess.run([v.initializer, tf.local_variables_initializer()])
        np.testing.assert_array_equal(sess.run(flat), np.transpose(x, (0, 2, 3, 1)).reshape(1, -1))
        sess.run(update)
        assert sess.run(precision) == 1.0  # (of all three, it would be 1/3)
        assert sess.run(again) == 3.0 and again.op.name == "v"
    assert state.model_checkpoint_path == "model-1"
    # remove_checkpoint takes the meta graph's suffix
    for suffix in ("index", "data-00000-of-00001", "mymeta"):
        (tmp_path / f"m.{suffix}").write_bytes(b"x")
    tf.train.remove_checkpoint(str(tmp_path / "m"), meta_graph_suffix="mymeta")
    assert list(tmp_path.iterdir()) == []
