"""How ``op_types.pb``, ``op_types.npz`` and ``op_types_train.meta`` were made: with TensorFlow
2.21's ``tf.compat.v1`` in graph mode, in a virtual environment of its own (TensorFlow is
never a dependency of distflow's tests).

    python make_tf_op_types.py <folder>

``op_types.pb`` holds TensorFlow's op types that distflow's own API does not build: older
names of ops (``Add``, ``Concat``, ``TopK``, ...), TensorFlow's names for what distflow
composes (``Selu``, ``SegmentSum``, ``FusedBatchNormV3``, ``ResizeBilinear``, ...), and the
gradient ops of a loss through them (``SqrtGrad``, ``BroadcastGradientArgs``, ``ShapeN``,
``FusedBatchNormGradV3``, ...), and TensorFlow's two forms of ParseExample. Each result is an
Identity named ``out/<case>``; its inputs
are placeholders. ``op_types.npz`` holds the feeds (``feed_<placeholder>``) and TensorFlow's
results (``out_<case>``). ``op_types_train.meta`` is a meta graph whose ``update`` op applies
TensorFlow's older optimizer ops once (ApplyFtrl, SparseApplyFtrl, ApplyAdagradV2);
``op_types.npz`` holds the variables after it (``after_<variable>``).
"""

import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.ops import gen_training_ops  # noqa: E402

tf.disable_v2_behavior()
raw = tf.raw_ops
out = sys.argv[1]
rng = np.random.RandomState(7)
feeds = {"v": rng.uniform(0.2, 2.0, (3, 5)).astype(np.float32), "w": rng.uniform(-1, 1, (3, 5)).astype(np.float32),
         "b": rng.uniform(-1, 1, (5,)).astype(np.float32), "images": rng.uniform(-1, 1, (2, 4, 6, 8)).astype(np.float32),
         "ints": np.array([-7, 7, -7, 7, 9], np.int32), "divisors": np.array([2, 2, -2, -2, 4], np.int32),
         "labels": np.array([0, 3, 1], np.int32), "ids": np.array([3, 1, 3, 0, 1, 3], np.int64)}
cases = {}
with tf.Graph().as_default() as g:
    ph = {k: tf.placeholder(tf.as_dtype(v.dtype), [None] * v.ndim, name=k) for k, v in feeds.items()}
    v, w, b, images = ph["v"], ph["w"], ph["b"], ph["images"]
    cases["add"] = raw.Add(x=v, y=w)
    cases["div_int"] = raw.Div(x=ph["ints"], y=ph["divisors"])
    cases["div_float"] = raw.Div(x=w, y=v)
    cases["mod_int"] = raw.Mod(x=ph["ints"], y=ph["divisors"])
    cases["mod_float"] = raw.Mod(x=w * 5.0, y=v)
    cases["inv"] = raw.Inv(x=v)
    cases["bias_add_v1"] = raw.BiasAddV1(value=w, bias=b)
    cases["gather_v1"] = raw.Gather(params=w, indices=[2, 0, 2])
    cases["concat_v1"] = raw.Concat(concat_dim=1, values=[v, w])
    cases["in_top_k_v1"] = raw.InTopK(predictions=w, targets=ph["labels"], k=2)
    cases["unique_y"], cases["unique_idx"] = tf.unique(ph["ids"])
    cases["reverse_v1"] = raw.Reverse(tensor=w, dims=[True, False])
    cases["max_pool_v2"] = raw.MaxPoolV2(input=images, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    cases["guarantee_const"] = raw.GuaranteeConst(input=v)
    cases["check_numerics_v2"] = raw.CheckNumericsV2(tensor=v, message="bad")
    cases["selu"] = tf.nn.selu(w)
    cases["softsign"] = tf.nn.softsign(w)
    cases["xlogy"] = tf.math.xlogy(tf.nn.relu(w), v)
    cases["xdivy"] = tf.math.xdivy(tf.nn.relu(w), v)
    cases["xlog1py"] = tf.math.xlog1py(tf.nn.relu(w), v)
    cases["mul_no_nan"] = tf.math.multiply_no_nan(w, tf.nn.relu(w))
    cases["clip_by_value"] = raw.ClipByValue(t=w, clip_value_min=-0.5, clip_value_max=0.25)
    shapes = raw.ShapeN(input=[v, images, b])
    for k, s in enumerate(shapes):
        cases[f"shape_n_{k}"] = s
    cases["broadcast_args"] = raw.BroadcastArgs(s0=tf.shape(v), s1=tf.shape(b))
    r0, r1 = raw.BroadcastGradientArgs(s0=tf.shape(v), s1=tf.shape(b))
    cases["broadcast_gradient_args_0"], cases["broadcast_gradient_args_1"] = r0, r1
    q0, q1 = raw.BroadcastGradientArgs(s0=tf.shape(images[:1, :1]), s1=tf.shape(b[:1]))
    cases["broadcast_gradient_args_ones_0"], cases["broadcast_gradient_args_ones_1"] = q0, q1
    cases["lin_space"] = tf.lin_space(tf.reduce_min(v), tf.reduce_max(v), 7)
    cases["diag"] = raw.Diag(diagonal=w[:2, :3])
    cases["diag_part"] = raw.DiagPart(input=raw.Diag(diagonal=w[:2, :3]) * 2.0)
    segment_ids = tf.constant([0, 0, 2, 2, 2, 3])
    for kind in ("Sum", "Mean", "Max", "Min", "Prod"):
        cases[f"segment_{kind.lower()}"] = getattr(raw, f"Segment{kind}")(data=tf.reshape(images, [6, -1]),
                                                                          segment_ids=segment_ids)
    cases["depth_to_space"] = tf.nn.depth_to_space(images, 2)
    cases["space_to_depth"] = tf.nn.space_to_depth(images, 2)
    cases["resize_bilinear"] = tf.image.resize_bilinear(images, [7, 9])
    cases["resize_bilinear_half"] = tf.image.resize_bilinear(images, [3, 5], half_pixel_centers=True)
    cases["resize_bilinear_corners"] = tf.image.resize_bilinear(images, [7, 9], align_corners=True)
    cases["resize_nearest"] = tf.image.resize_nearest_neighbor(images, [7, 11])
    cases["resize_bicubic"] = tf.image.resize_bicubic(images, [5, 9])
    cases["resize_area"] = tf.image.resize_area(images, [3, 4])
    scale, offset = tf.constant(rng.uniform(0.5, 1.5, 8).astype(np.float32)), tf.constant(rng.uniform(-1, 1, 8).astype(np.float32))
    mean, var = tf.constant(rng.uniform(-0.2, 0.2, 8).astype(np.float32)), tf.constant(rng.uniform(0.5, 1.5, 8).astype(np.float32))
    for version in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
        for training in (True, False):
            results = getattr(raw, version)(x=images, scale=scale, offset=offset, mean=mean, variance=var,
                                            epsilon=0.001, is_training=training)
            for k, name in enumerate(("y", "mean", "variance")):
                cases[f"{version.lower()}_{'train' if training else 'infer'}_{name}"] = results[k]
    averaged = raw.FusedBatchNormV3(x=images, scale=scale, offset=offset, mean=mean, variance=var, epsilon=0.001,
                                    exponential_avg_factor=0.3, is_training=True)
    cases["fusedbatchnormv3_averaged_mean"], cases["fusedbatchnormv3_averaged_variance"] = averaged[1], averaged[2]
    cases["matrix_diag_v3"] = raw.MatrixDiagV3(diagonal=w, k=0, num_rows=-1, num_cols=-1, padding_value=0.0)
    cases["matrix_set_diag_v3"] = raw.MatrixSetDiagV3(input=images[:, 0], diagonal=images[:, 1, :, 0], k=0)
    cases["matrix_diag_part_v3"] = raw.MatrixDiagPartV3(input=images, k=0, padding_value=0.0)
    cases["unravel_index"] = raw.UnravelIndex(indices=tf.constant([5, 17, 0]), dims=tf.constant([3, 2, 4]))
    sorted_rows = tf.constant([[0.0, 1.0, 1.0, 3.0], [2.0, 2.0, 5.0, 9.0]])
    probes = tf.constant([[1.0, 4.0, -1.0], [2.0, 9.0, 10.0]])
    cases["lower_bound"] = raw.LowerBound(sorted_inputs=sorted_rows, values=probes)
    cases["upper_bound"] = raw.UpperBound(sorted_inputs=sorted_rows, values=probes)
    cases["bincount"] = raw.Bincount(arr=tf.cast(ph["ids"], tf.int32), size=5, weights=tf.constant([], tf.float32))
    cases["bincount_weighted"] = raw.Bincount(arr=tf.cast(ph["ids"], tf.int32), size=3, weights=w[0, :1] + tf.zeros([6]))
    cases["euclidean_norm"] = raw.EuclideanNorm(input=w, axis=[1], keep_dims=True)
    cases["approximate_equal"] = raw.ApproximateEqual(x=w, y=w + 0.05, tolerance=0.1)
    cases["conjugate_transpose"] = raw.ConjugateTranspose(x=images, perm=[0, 3, 1, 2])
    rows, segments = tf.constant([0, 2, 2, 1, 0]), tf.constant([0, 0, 1, 3, 3])
    for kind in ("Sum", "Mean", "SqrtN"):
        cases[f"sparse_segment_{kind.lower()}"] = getattr(raw, f"SparseSegment{kind}")(
            data=w, indices=rows, segment_ids=segments)
        cases[f"sparse_segment_{kind.lower()}_with_num_segments"] = getattr(raw, f"SparseSegment{kind}WithNumSegments")(
            data=w, indices=rows, segment_ids=segments, num_segments=6)
    records = []
    for i in range(3):
        example = tf.train.Example()
        example.features.feature["x"].float_list.value.extend([i, 0.5 * i])
        example.features.feature["tags"].int64_list.value.extend(range(i))
        if i != 1:
            example.features.feature["weight"].float_list.value.append(2.0 + i)
        records.append(example.SerializeToString())
    parsed = tf.io.parse_example(tf.constant(records), {  # (TensorFlow 2's: ParseExampleV2)
        "x": tf.io.FixedLenFeature([2], tf.float32), "tags": tf.io.VarLenFeature(tf.int64),
        "weight": tf.io.FixedLenFeature([], tf.float32, default_value=1.0)})
    for key in ("x", "weight"):
        cases[f"parse_example_v2_{key}"] = parsed[key]
    for part in ("indices", "values", "dense_shape"):
        cases[f"parse_example_v2_tags_{part}"] = getattr(parsed["tags"], part)
    v1 = raw.ParseExample(serialized=tf.constant(records), names=tf.constant([], tf.string),
                          sparse_keys=[tf.constant("tags")], dense_keys=[tf.constant("weight"), tf.constant("x")],
                          dense_defaults=[tf.constant(1.0), tf.constant([], tf.float32)], sparse_types=[tf.int64],
                          dense_shapes=[[], [2]])
    for part, (outputs) in (("indices", v1[0]), ("values", v1[1]), ("dense_shape", v1[2])):
        cases[f"parse_example_v1_tags_{part}"] = outputs[0]
    cases["parse_example_v1_weight"], cases["parse_example_v1_x"] = v1[3]
    cases["empty"] = raw.Empty(shape=[2, 3], dtype=tf.float32, init=True)
    # TensorFlow's gradient ops, through a loss of the ops above
    filters = tf.constant(rng.uniform(-0.5, 0.5, (3, 3, 8, 4)).astype(np.float32))
    bn_train = tf.nn.fused_batch_norm(images, scale, offset, epsilon=0.001, is_training=True)[0]
    bn_infer = tf.nn.fused_batch_norm(images, scale, offset, mean, var, epsilon=0.001, is_training=False)[0]
    loss = (tf.reduce_sum(tf.sqrt(v) * w) + tf.reduce_sum(tf.rsqrt(v) * w) + tf.reduce_sum(tf.reciprocal(v) * w)
            + tf.reduce_sum(tf.nn.selu(w) * v) + tf.reduce_sum(tf.nn.softsign(w) * v) + tf.reduce_sum(v * b)
            + tf.reduce_sum(bn_train * images) + tf.reduce_sum(bn_infer * images)
            + tf.reduce_sum(tf.image.resize_bilinear(images, [7, 9]) ** 2)
            + tf.reduce_sum(tf.image.resize_nearest_neighbor(images, [7, 11]) ** 2)
            + tf.reduce_sum(tf.nn.depth_to_space(images, 2) * tf.nn.depth_to_space(images, 2))
            + tf.reduce_sum(tf.nn.conv2d(images, filters, [1, 1, 1, 1], "SAME") ** 2))
    for x in (v, w, b, images):
        cases[f"grad_{x.op.name}"] = tf.gradients(loss, x)[0]
    names = {k: tf.identity(t, name=f"out/{k}").name for k, t in cases.items()}
    with tf.Session() as sess:
        got = sess.run(names, {ph[k]: feeds[k] for k in feeds})
    graph_def = g.as_graph_def()
    kinds = sorted({n.op for n in graph_def.node})
    print("op types:", " ".join(kinds))
    with open(os.path.join(out, "op_types.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
results = {f"feed_{k}": v for k, v in feeds.items()}
results.update({f"out_{k}": v for k, v in got.items()})
with tf.Graph().as_default():
    var = tf.Variable(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32), name="var")
    accum = tf.Variable(np.full((2, 2), 0.1, np.float32), name="accum")
    linear = tf.Variable(np.array([[0.1, -0.2], [0.0, 0.3]], np.float32), name="linear")
    var2 = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32), name="var2")
    accum2 = tf.Variable(np.full((3, 2), 0.2, np.float32), name="accum2")
    linear2 = tf.Variable(np.zeros((3, 2), np.float32), name="linear2")
    var3 = tf.Variable(np.array([1.0, -2.0, 3.0], np.float32), name="var3")
    accum3 = tf.Variable(np.full(3, 0.5, np.float32), name="accum3")
    grad = tf.constant([[0.3, -0.6], [1.2, 0.05]])
    updates = [gen_training_ops.apply_ftrl(var, accum, linear, grad, 0.1, 0.01, 0.02, -0.5),
               gen_training_ops.sparse_apply_ftrl(var2, accum2, linear2, tf.constant([[0.5, -0.5], [1.0, 2.0]]),
                                                  tf.constant([2, 0]), 0.2, 0.0, 0.1, -0.5),
               gen_training_ops.apply_adagrad_v2(var3, accum3, 0.5, 1e-3, tf.constant([0.4, -1.0, 0.0]))]
    tf.group(*updates, name="update")
    tf.train.export_meta_graph(os.path.join(out, "op_types_train.meta"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run("update")
        for variable in tf.global_variables():
            results[f"after_{variable.op.name}"] = sess.run(variable)
np.savez(os.path.join(out, "op_types.npz"), **results)
