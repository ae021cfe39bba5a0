"""tf.saved_model: a graph and its variables saved to a directory and loaded into a fresh
session elsewhere, with signatures, several tag sets, assets and a main op; errors as TF's."""

import os
import shutil

import numpy as np
import pytest

import distflow as tf

X = np.random.RandomState(0).randn(5, 3).astype(np.float32)


def _trained_model():
    """A small regression model, its variables moved off their initial values by two steps."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.layers.dense(tf.layers.dense(x, 4, tf.nn.relu), 1, name="out")
    loss = tf.reduce_mean(tf.square(y - 1.0))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    return x, y, train


def _simple_saved(export_dir: str):
    """The trained model saved by simple_save in ``export_dir``; its outputs for X."""
    with tf.Graph().as_default():
        x, y, train = _trained_model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([train, train], {x: X})
            tf.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
            return sess.run(y, {x: X})


def test_simple_save_loads_into_a_fresh_graph_with_its_signature(tmp_path):
    export_dir = str(tmp_path / "model")
    expected = _simple_saved(export_dir)
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    assert tf.saved_model.loader.maybe_saved_model_directory(export_dir)
    moved = str(tmp_path / "elsewhere")
    shutil.move(export_dir, moved)  # (a SavedModel is a directory that travels)
    with tf.Graph().as_default() as graph:
        with tf.Session() as sess:
            meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], moved)
            signature = meta.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
            assert signature.method_name == "tensorflow/serving/predict"
            assert tf.saved_model.is_valid_signature(signature)
            inputs = tf.saved_model.utils.get_tensor_from_tensor_info(signature.inputs["x"], graph)
            outputs = tf.saved_model.utils.get_tensor_from_tensor_info(signature.outputs["y"], graph)
            assert inputs.shape.as_list() == [None, 3] and outputs.dtype == tf.float32
            np.testing.assert_array_equal(sess.run(outputs, {inputs: X}), expected)
            assert all(n.device == "" for n in graph.as_graph_def().node)  # (simple_save clears devices)
    with tf.Graph().as_default() as graph:  # under an import scope
        with tf.Session() as sess:
            meta = tf.saved_model.load(sess, ["serve"], moved, import_scope="imported")
            name = meta.signature_def["serving_default"].outputs["y"].name
            got = sess.run(f"imported/{name}", {f"imported/{meta.signature_def['serving_default'].inputs['x'].name}": X})
    np.testing.assert_array_equal(got, expected)


def test_a_saved_model_is_written_as_tensorflow_loads_it(tmp_path):
    # (checked by hand: TensorFlow 2.21's tf.compat.v1 loader loads such a SavedModel of an MLP
    # and serves distflow's predictions): its variables in TensorFlow's checkpoint format, its
    # Saver's nodes in TensorFlow's form, every node with the attrs TensorFlow requires
    from distflow.framework.tf_attrs import signatures
    from distflow.ops import io_ops
    from distflow.protos import distflow_pb2 as pb
    export_dir = str(tmp_path / "model")
    expected = _simple_saved(export_dir)
    prefix = os.path.join(export_dir, "variables", "variables")
    assert sorted(os.listdir(os.path.dirname(prefix))) == ["variables.data-00000-of-00001", "variables.index"]
    assert io_ops.read_index(prefix)["format"] == io_ops.TENSORFLOW_FORMAT
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        meta = pb.SavedModel.FromString(f.read()).meta_graphs[0]
    assert meta.meta_info_def.tensorflow_version == "1.15.0"
    table = signatures()
    kinds = {node.op for node in meta.graph_def.node}
    assert {"ShardedFilename", "MergeV2Checkpoints", "StringJoin"} <= kinds  # (TensorFlow's sharded Saver)
    for node in meta.graph_def.node:
        if node.op in table:
            assert not set(table[node.op]["required"]) - set(node.attr), node.name
            assert not {k for k in node.attr if not k.startswith("_")} - set(table[node.op]["attrs"]), node.name
    with tf.Graph().as_default(), tf.Session() as sess:  # (and distflow loads it back)
        signature = tf.saved_model.loader.load(sess, ["serve"], export_dir).signature_def["serving_default"]
        np.testing.assert_array_equal(sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: X}), expected)


def test_builder_writes_several_tag_sets_assets_and_a_main_op(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbanana\ncherry\n")
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        table = tf.contrib.lookup.index_table_from_file(str(vocab), num_oov_buckets=0, default_value=-1)
        ids = table.lookup(words)
        scale = tf.Variable(10, dtype=tf.int64, name="scale")
        scaled = tf.identity(ids * scale, name="scaled")
        counter = tf.Variable(0, dtype=tf.int64, name="counter", trainable=False,
                              collections=[tf.GraphKeys.LOCAL_VARIABLES])
        assets = tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)
        assert len(assets) == 1  # (the vocabulary file, as TF's text file initializer records it)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            sess.run(scale.assign(100))
            builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
            signature = tf.saved_model.predict_signature_def({"words": words}, {"ids": scaled})
            builder.add_meta_graph_and_variables(
                sess, [tf.saved_model.SERVING], signature_def_map={"serving_default": signature},
                assets_collection=assets, main_op=tf.saved_model.main_op.main_op())
            with pytest.raises(AssertionError, match="already been saved"):
                builder.add_meta_graph_and_variables(sess, ["other"])
            with pytest.raises(ValueError, match="already has a meta graph with tags"):
                builder.add_meta_graph(["serve"])
            builder.add_meta_graph([tf.saved_model.TRAINING, "extra"], assets_collection=assets)
            path = builder.save(as_text=True)
    assert path.endswith(b"saved_model.pbtxt")
    assert sorted(os.listdir(export_dir)) == ["assets", "saved_model.pbtxt", "variables"]
    assert (tmp_path / "model" / "assets" / "vocab.txt").read_text() == vocab.read_text()
    vocab.write_text("changed\n")  # (the loaded model reads its own copy)
    for tags in (["serve"], ["extra", "train"]):
        with tf.Graph().as_default() as graph:
            with tf.Session() as sess:
                meta = tf.saved_model.loader.load(sess, tags, export_dir)
                assert meta.asset_file_def[0].filename == "vocab.txt"
                got = sess.run("scaled:0", {"words:0": ["cherry", "apple", "kiwi"]})
                assert sess.run(graph.get_tensor_by_name("counter:0")) == 0  # (the main op initialized it)
        np.testing.assert_array_equal(got, [200, 0, -100])
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(RuntimeError, match=r"could not be found in SavedModel, with available tags "
                                               r"\[\['serve'\], \['extra', 'train'\]\]"):
            tf.saved_model.loader.load(sess, ["gpu"], export_dir)


def test_the_main_op_initializes_what_nothing_set_and_keeps_what_the_checkpoint_restored(tmp_path):
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default():
        v1, v2 = tf.Variable(1, name="v1"), tf.Variable(2, name="v2")
        total = tf.Variable(0, name="total")
        with tf.control_dependencies([tf.saved_model.main_op.main_op()]):  # (a fresh graph: it initializes)
            main = tf.group(tf.assign(total, v1 + v2))
        with tf.Session() as sess:
            sess.run(main)
            assert sess.run(total) == 3
            sess.run(tf.assign(v1, 10))  # (trained: the checkpoint holds 10)
            builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op=main)
            builder.save()
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export_dir)
        # TF's main_op initialized every global variable again after the restore (v1 back to 1)
        assert sess.run(["v1:0", "total:0"]) == [10, 12]


def test_a_graph_without_variables_saves_and_loads(tmp_path):
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        doubled = tf.multiply(a, 2.0, name="doubled")
        with tf.Session() as sess:
            tf.saved_model.simple_save(sess, export_dir, {"a": a}, {"doubled": doubled})
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export_dir)
        assert list(sess.run("doubled:0", {"a:0": [1.0, 2.5]})) == [2.0, 5.0]


def test_signature_defs_and_tensor_infos():
    with tf.Graph().as_default() as graph:
        examples = tf.placeholder(tf.string, [None], name="examples")
        scores = tf.placeholder(tf.float32, [None, 3], name="scores")
        classes = tf.placeholder(tf.string, [None, 3], name="classes")
        sparse = tf.sparse_placeholder(tf.int64, name="sparse")
        classify = tf.saved_model.classification_signature_def(examples, classes, scores)
        assert classify.method_name == tf.saved_model.CLASSIFY_METHOD_NAME
        assert set(classify.outputs) == {"classes", "scores"} and tf.saved_model.is_valid_signature(classify)
        regress = tf.saved_model.regression_signature_def(examples, scores[:, 0])
        assert regress.inputs["inputs"].name == "examples:0" and tf.saved_model.is_valid_signature(regress)
        assert not tf.saved_model.is_valid_signature(tf.saved_model.build_signature_def(
            {"inputs": tf.saved_model.build_tensor_info(scores)}, {"outputs": regress.outputs["outputs"]},
            tf.saved_model.REGRESS_METHOD_NAME))  # (a Regress signature reads serialized examples)
        with pytest.raises(ValueError, match="Classification examples must be a string Tensor, got float32"):
            tf.saved_model.classification_signature_def(scores, classes, scores)
        with pytest.raises(ValueError, match="Regression predictions must be a float Tensor, got string"):
            tf.saved_model.regression_signature_def(examples, classes)
        with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty"):
            tf.saved_model.predict_signature_def({}, {"s": scores})
        info = tf.saved_model.build_tensor_info(sparse)
        assert info.WhichOneof("encoding") == "coo_sparse" and info.dtype == tf.int64.as_datatype_enum
        back = tf.saved_model.get_tensor_from_tensor_info(info, graph)
        assert isinstance(back, tf.SparseTensor) and back.values.name == sparse.values.name
        with pytest.raises(TypeError, match="needs a Tensor or SparseTensor"):
            tf.saved_model.build_tensor_info([1.0])


def test_what_is_wrong_is_said(tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "file").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(str(taken))
    with pytest.raises(IOError, match="SavedModel file does not exist at"):
        with tf.Graph().as_default(), tf.Session() as sess:
            tf.saved_model.loader.load(sess, ["serve"], str(taken))
    assert not tf.saved_model.contains_saved_model(str(taken))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1], name="x")
        builder = tf.saved_model.Builder(str(tmp_path / "model"))
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["serve"])
        with tf.Session() as sess:
            reserved = {"__saved_model_init_op": tf.saved_model.predict_signature_def({"x": x}, {"x": x})}
            with pytest.raises(KeyError, match="reserved"):
                builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map=reserved)
            no_dtype = tf.saved_model.build_signature_def({"x": tf.saved_model.build_tensor_info(x)},
                                                          {"y": tf.saved_model.build_tensor_info(x)}, "m")
            no_dtype.outputs["y"].dtype = 0
            with pytest.raises(AssertionError, match=r"outputs\['y'\] of signature 'bad'.*dtype"):
                builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"bad": no_dtype})
            with pytest.raises(TypeError, match="must be of type constant"):
                builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=[x])
    with pytest.raises(AttributeError, match="tf.saved_model.save"):
        tf.saved_model.save  # noqa: B018 - TF 2's object-based save is not here


# -- Estimators ------------------------------------------------------------------------------

IRIS_X = np.random.RandomState(1).randn(60, 4).astype(np.float32)
IRIS_Y = (IRIS_X[:, 0] + IRIS_X[:, 1] > 0).astype(np.int64) + (IRIS_X[:, 2] > 1).astype(np.int64)


def _examples(rows) -> list:
    return [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=row)),
        "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"red" if row[3] > 0 else b"blue"]))}))
        .SerializeToString() for row in rows]


def _colors(rows):
    return np.array([b"red" if row[3] > 0 else b"blue" for row in rows])


def test_a_canned_estimator_exports_tf_heads_signatures(tmp_path):
    vocab = tmp_path / "colors.txt"
    vocab.write_text("blue\nred\n")
    columns = [tf.feature_column.numeric_column("x", shape=[4]),
               tf.feature_column.indicator_column(
                   tf.feature_column.categorical_column_with_vocabulary_file("color", str(vocab)))]
    config = tf.estimator.RunConfig(tf_random_seed=3, log_step_count_steps=None)
    estimator = tf.estimator.DNNClassifier([8], columns, n_classes=3, model_dir=str(tmp_path / "model"),
                                           config=config)
    features = {"x": IRIS_X, "color": _colors(IRIS_X)}
    estimator.train(tf.estimator.inputs.numpy_input_fn(features, IRIS_Y, batch_size=20, num_epochs=None,
                                                       shuffle=True), steps=30)
    expected = np.array([p["probabilities"] for p in estimator.predict(
        tf.estimator.inputs.numpy_input_fn({"x": IRIS_X[:6], "color": _colors(IRIS_X[:6])}, shuffle=False))])
    spec = {"x": tf.FixedLenFeature([4], tf.float32), "color": tf.FixedLenFeature([], tf.string)}
    parsing = estimator.export_saved_model(str(tmp_path / "export"),
                                           tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    raw = estimator.export_savedmodel(str(tmp_path / "export"), tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4]), "color": tf.placeholder(tf.string, [None])}))
    assert isinstance(parsing, bytes) and parsing != raw
    assert sorted(os.listdir(tmp_path / "export")) == sorted(os.path.basename(p.decode()) for p in (parsing, raw))
    vocab.write_text("red\nblue\n")  # (the column's vocabulary is in the graph: the export needs no file)
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], parsing.decode())
        assert sorted(meta.signature_def) == ["classification", "predict", "serving_default"]
        classify = meta.signature_def["serving_default"]
        assert classify.method_name == "tensorflow/serving/classify"
        got = sess.run({k: v.name for k, v in classify.outputs.items()},
                       {classify.inputs["inputs"].name: _examples(IRIS_X[:6])})
    np.testing.assert_allclose(got["scores"], expected, rtol=1e-6)
    assert got["classes"].tolist() == [[b"0", b"1", b"2"]] * 6
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], raw.decode())
        assert list(meta.signature_def) == ["predict"]  # (Classify reads serialized examples: not from raw tensors)
        predict = meta.signature_def["predict"]
        got = sess.run(predict.outputs["probabilities"].name, {predict.inputs["x"].name: IRIS_X[:6],
                                                               predict.inputs["color"].name: _colors(IRIS_X[:6])})
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_canned_estimators_export_is_made_of_tensorflows_ops_and_predicts_as_the_estimator(tmp_path):
    # (checked by hand: TensorFlow 2.21's loader serves such an export, tf.Examples parsed by
    # ParseExampleV2, vocabularies looked up in hash tables its main op fills, crosses made by
    # SparseCross, with the probabilities of distflow's Estimator.predict to 6e-8)
    from distflow.framework.tf_attrs import signatures
    from distflow.protos import distflow_pb2 as pb
    fc = tf.feature_column
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"], num_oov_buckets=2)
    size = fc.categorical_column_with_vocabulary_list("size", [3, 5, 7])
    city = fc.categorical_column_with_hash_bucket("city", 10)
    age = fc.bucketized_column(fc.numeric_column("age"), [18.0, 30.0, 50.0])
    wide = [color, city, age, fc.crossed_column([color, "city"], 20), fc.crossed_column([age, size], 30),
            fc.categorical_column_with_identity("day", 7)]
    deep = [fc.numeric_column("x", shape=[4]), fc.embedding_column(color, 2), fc.indicator_column(size),
            fc.embedding_column(city, 3)]
    config = tf.estimator.RunConfig(tf_random_seed=3, log_step_count_steps=None)
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        str(tmp_path / "model"), linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[8],
        n_classes=3, config=config)

    def rows(n):
        return {"x": IRIS_X[:n], "color": np.array([[b"red", b"green", b"blue", b"pink"][i % 4] for i in range(n)]),
                "size": np.array([[3, 5, 9][i % 3] for i in range(n)]),
                "city": np.array([[b"a", b"b", b"c", b"zz"][i % 4] for i in range(n)]),
                "age": np.arange(n, dtype=np.float32) * 7 % 60, "day": np.arange(n) % 7}
    estimator.train(tf.estimator.inputs.numpy_input_fn(rows(60), IRIS_Y, batch_size=20, shuffle=False), steps=3)
    some = {k: v[[1, 3, 4, 7]] for k, v in rows(8).items()}
    expected = np.array([p["probabilities"] for p in estimator.predict(
        tf.estimator.inputs.numpy_input_fn(some, shuffle=False))])
    path = estimator.export_saved_model(str(tmp_path / "export"), tf.estimator.export.build_parsing_serving_input_receiver_fn(
        fc.make_parse_example_spec(wide + deep)))
    with open(os.path.join(path.decode(), "saved_model.pb"), "rb") as f:
        graph_def = pb.SavedModel.FromString(f.read()).meta_graphs[0].graph_def
    table = signatures()
    assert {"ParseExampleV2", "HashTableV2", "LookupTableFindV2", "StringToHashBucketFast", "SparseCross"} <= {
        node.op for node in graph_def.node}
    for node in graph_def.node:
        assert node.op in table, f"{node.name}: {node.op} is not one of TensorFlow's ops"
        assert not set(table[node.op]["required"]) - set(node.attr), node.name
        assert not {k for k in node.attr if not k.startswith("_")} - set(table[node.op]["attrs"]), node.name
        if node.op == "SparseCross":  # (TF's kernel takes strings only as strings, else everything as int64)
            kinds = list(node.attr["sparse_types"].list.type) + list(node.attr["dense_types"].list.type)
            strings_only = all(k == tf.string.as_datatype_enum for k in kinds)
            assert node.attr["internal_type"].type == (tf.string if strings_only else tf.int64).as_datatype_enum

    def feature(value):
        if isinstance(value, bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
        if isinstance(value, np.ndarray):
            return tf.train.Feature(float_list=tf.train.FloatList(value=value))
        if isinstance(value, (float, np.floating)):
            return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(value)]))
    records = [tf.train.Example(features=tf.train.Features(feature={k: feature(v[i]) for k, v in some.items()}))
               .SerializeToString() for i in range(4)]
    with tf.Graph().as_default(), tf.Session() as sess:  # (the path as export_saved_model gives it: bytes)
        predict = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["predict"]
        got = sess.run(predict.outputs["probabilities"].name, {predict.inputs["examples"].name: records})
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_keras_models_saved_model_holds_tensorflows_conds_and_loads_back(tmp_path):
    # (checked by hand: TensorFlow 2.21's loader serves it, with distflow's predictions to 6e-8)
    from distflow.framework.tf_attrs import signatures
    from distflow.protos import distflow_pb2 as pb
    model = tf.keras.Sequential([tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.MaxPooling2D(),
                                 tf.keras.layers.Dropout(0.3), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy")
    x = np.random.RandomState(0).rand(16, 8, 8, 1).astype(np.float32)
    model.fit(x, np.arange(16) % 3, epochs=1, verbose=0)
    expected = model.predict(x[:4])
    export_dir = str(tmp_path / "keras")
    tf.keras.experimental.export_saved_model(model, export_dir)
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        graph_def = pb.SavedModel.FromString(f.read()).meta_graphs[0].graph_def
    kinds = {node.op for node in graph_def.node}
    assert "If" not in kinds and {"Switch", "Merge"} <= kinds  # (the learning phase's conds, as TF 1.x's)
    table = signatures()
    table = dict(table, Switch={"required": ["T"]}, Merge={"required": ["N", "T"]})  # (not distflow's ops)
    for node in graph_def.node:
        assert node.op in table and not set(table[node.op]["required"]) - set(node.attr), node.name
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        signature = tf.saved_model.loader.load(sess, ["serve"], export_dir).signature_def["serving_default"]
        assert "If" in {op.type for op in graph.get_operations()}  # (made an If again on import)
        got = sess.run(list(signature.outputs.values())[0].name, {list(signature.inputs.values())[0].name: x[:4]})
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _linear_model_fn(features, labels, mode):
    w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
    y = tf.matmul(features["x"], w)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": y}, export_outputs={
            "regress": tf.estimator.export.RegressionOutput(y), "all": tf.estimator.export.PredictOutput({"y": y}),
            "serving_default": tf.estimator.export.PredictOutput(y)})
    loss = tf.reduce_mean(tf.square(y - tf.reshape(tf.cast(labels, tf.float32), [-1, 1])))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)


def test_train_and_evaluate_runs_its_exporters(tmp_path):
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, log_step_count_steps=None, tf_random_seed=1)
    estimator = tf.estimator.Estimator(_linear_model_fn, model_dir=str(tmp_path / "model"), config=config)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": tf.placeholder(tf.float32, [None, 4])})
    exporters = [tf.estimator.LatestExporter("latest", receiver, exports_to_keep=2),
                 tf.estimator.FinalExporter("final", receiver),
                 tf.estimator.BestExporter(serving_input_receiver_fn=receiver, exports_to_keep=None)]
    train = tf.estimator.inputs.numpy_input_fn({"x": IRIS_X}, IRIS_Y.astype(np.float32), batch_size=20,
                                               num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn({"x": IRIS_X}, IRIS_Y.astype(np.float32), shuffle=False)
    metrics, exports = tf.estimator.train_and_evaluate(
        estimator, tf.estimator.TrainSpec(train, max_steps=40), tf.estimator.EvalSpec(evaluate, exporters=exporters))
    export_dir = tmp_path / "model" / "export"
    assert metrics["global_step"] == 40 and sorted(os.listdir(export_dir)) == ["best_exporter", "final", "latest"]
    assert len(os.listdir(export_dir / "latest")) == 2 and len(os.listdir(export_dir / "final")) == 1
    assert 1 <= len(os.listdir(export_dir / "best_exporter")) <= 4  # (one per evaluation with a smaller loss)
    assert {os.path.dirname(p.decode()) for p in exports} >= {str(export_dir / "final"), str(export_dir / "latest")}
    final = str(export_dir / "final" / os.listdir(export_dir / "final")[0])
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], final)
        assert sorted(meta.signature_def) == ["all", "serving_default"]  # (Regress needs serialized examples)
        default = meta.signature_def["serving_default"]
        assert list(default.outputs) == ["output"]
        got = sess.run(default.outputs["output"].name, {default.inputs["x"].name: IRIS_X[:3]})
    np.testing.assert_allclose(got, IRIS_X[:3] @ estimator.get_variable_value("w"), rtol=1e-6)
    # a BestExporter exports only an evaluation better than every one before, those of
    # earlier runs read from the eval event files
    best = tf.estimator.BestExporter(serving_input_receiver_fn=receiver)
    checkpoint = estimator.latest_checkpoint()
    base = str(tmp_path / "best")
    assert best.export(estimator, base, checkpoint, {"loss": metrics["loss"] * 1.01}, False) is None
    assert best.export(estimator, base, checkpoint, {"loss": metrics["loss"] * 0.5}, False) is not None
    assert best.export(estimator, base, checkpoint, {"loss": metrics["loss"] * 0.6}, False) is None
    assert len(os.listdir(base)) == 1
    # an export that fails leaves nothing behind
    with pytest.raises(TypeError, match="must return a ServingInputReceiver"):
        estimator.export_saved_model(str(tmp_path / "bad"), lambda: {"x": tf.placeholder(tf.float32)})
    assert not (tmp_path / "bad").exists()
    with pytest.raises(ValueError, match="unique names"):
        tf.estimator.EvalSpec(evaluate, exporters=[exporters[0], exporters[0]])
    with pytest.raises(ValueError, match="none of them is specified as the default"):
        tf.estimator.Estimator(lambda features, mode: tf.estimator.EstimatorSpec(
            mode, predictions=features["x"], export_outputs={"a": tf.estimator.export.PredictOutput(features["x"]),
                                                             "b": tf.estimator.export.PredictOutput(features["x"])}),
            model_dir=str(tmp_path / "model")).export_saved_model(str(tmp_path / "bad"), receiver)


# -- Keras -----------------------------------------------------------------------------------

def test_a_keras_model_exports_to_a_saved_model_and_loads_back(tmp_path):
    keras = tf.keras
    keras.backend.clear_session()
    x = np.random.RandomState(2).randn(16, 5).astype(np.float32)
    inputs = keras.Input((5,), name="features")
    hidden = keras.layers.Dense(4, activation="relu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(3, activation="softmax", name="probs")(hidden))
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(x, np.arange(16) % 3, epochs=2, verbose=0)
    expected = model.predict(x)
    path = str(tmp_path / "keras")
    keras.experimental.export_saved_model(model, path)
    with tf.Graph().as_default(), tf.Session() as sess:  # served as any SavedModel
        signature = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["serving_default"]
        assert list(signature.inputs) == ["features"] and list(signature.outputs) == ["probs"]
        np.testing.assert_array_equal(sess.run(signature.outputs["probs"].name,
                                               {signature.inputs["features"].name: x}), expected)
    loaded = keras.experimental.load_from_saved_model(path)  # (beside the first model: its layers named apart)
    assert [w.op.name for w in loaded.weights] != [w.op.name for w in model.weights]
    np.testing.assert_array_equal(loaded.predict(x), expected)
    with pytest.raises(IOError, match="holds no Keras model config"):
        keras.experimental.load_from_saved_model(str(tmp_path))
    keras.backend.clear_session()
