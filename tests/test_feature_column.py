"""tf.feature_column and the canned estimators: every column against NumPy written the obvious
way, the hash TF uses (FarmHash Fingerprint64) against published values, TF's variable
names, and canned estimators that learn what they should."""

import collections

import numpy as np
import pytest

import distflow as tf
from distflow.feature_column import feature_column as fc_lib
from distflow.ops.hash_ops import fingerprint64

fc = tf.feature_column

# FarmHash Fingerprint64 of strings of every length class (0-16, 17-32, 33-64 and longer
# bytes), as FarmHash's own tests and its ports publish them.
FINGERPRINTS = {
    b"": 0x9AE16A3B2F90404F, b"a": 0xB3454265B6DF75E3, b"abc": 0x24A5B3A074E7F369, b"abcd": 0x1A5502DE4A1F8101,
    b"abcdefgh": 0xFEE9D22990C82909, b"0123456789=012345": 0x46A7416ED4861E3B,
    b"I wouldn't marry him with a ten foot pole.": 0xA9961670CE2A46D9,
    b"For every action there is an equal and opposite government program.": 0x55182F8859ECA4CE,
    b"The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole "
    b"fraction.  Lewis-Randall Rule": 0x098EFF6958C5E91A,
}


def test_fingerprint64_is_farmhashs():
    for text, value in FINGERPRINTS.items():
        assert fingerprint64(text) == value, text


def test_string_to_hash_bucket_fast_puts_strings_where_tf_does():
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3))  # (TF's documented example)
        assert got.tolist() == [0, 2, 2]
        words = np.array([b"a", b"abc", b"abcdefgh"])
        np.testing.assert_array_equal(sess.run(tf.string_to_hash_bucket_fast(words, 7)),
                                      [FINGERPRINTS[w] % 7 for w in words])


FEATURES = {
    "age": np.array([10.0, 25.0, 60.0, 30.0], np.float32),
    "color": np.array([b"red", b"blue", b"pink", b"green"]),
    "word": np.array([b"a", b"abc", b"abcd", b"a"]),
    "id": np.array([0, 3, 7, 1]),
}


def _run(tensor):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(tensor)


def _one_hot(ids, depth):
    out = np.zeros((len(ids), depth), np.float32)
    for i, j in enumerate(ids):
        if 0 <= j < depth:
            out[i, j] = 1.0
    return out


def test_input_layer_concatenates_dense_columns_in_name_order():
    age = fc.numeric_column("age")
    buckets = fc.bucketized_column(age, [18, 30, 50])
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"], num_oov_buckets=2)
    ident = fc.categorical_column_with_identity("id", 8)
    words = fc.categorical_column_with_hash_bucket("word", 5)
    with tf.Graph().as_default():
        got = _run(fc.input_layer(FEATURES, [fc.indicator_column(ident), fc.embedding_column(
            words, 2, initializer=tf.ones_initializer()), buckets, fc.indicator_column(color), age]))
    bucket_ids = np.searchsorted([18, 30, 50], FEATURES["age"], side="right")  # TF: boundaries <= value
    color_ids = [0, 2, 3 + fingerprint64(b"pink") % 2, 1]  # (an unknown colour: an OOV bucket by its hash)
    want = np.concatenate([FEATURES["age"][:, None], _one_hot(bucket_ids, 4), _one_hot(color_ids, 5),
                           _one_hot(FEATURES["id"], 8), np.ones((4, 2), np.float32)], axis=1)
    np.testing.assert_array_equal(got, want)  # age, age_bucketized, color_indicator, id_indicator, word_embedding


def test_embedding_combiners_and_multivalent_ids_match_numpy():
    ids = fc.categorical_column_with_identity("ids", 6)
    table = np.arange(12, dtype=np.float32).reshape(6, 2)
    values = np.array([[1, 4], [2, -1], [-1, -1]])  # (-1: no value)
    for combiner in ("sum", "mean", "sqrtn"):
        with tf.Graph().as_default():
            got = _run(fc.input_layer({"ids": values}, [fc.embedding_column(
                ids, 2, combiner=combiner, initializer=tf.constant_initializer(table))]))
        want = []
        for row in values:
            picked = [table[i] for i in row if i >= 0]
            total = np.sum(picked, axis=0) if picked else np.zeros(2, np.float32)
            n = len(picked)
            want.append(total if combiner == "sum" or n == 0 else total / (n if combiner == "mean" else np.sqrt(n)))
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_linear_model_is_a_weighted_sum_with_tfs_variable_names():
    age = fc.numeric_column("age")
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    with tf.Graph().as_default():
        logits = fc.linear_model(FEATURES, [color, age], units=2)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["linear_model/age/weights", "linear_model/bias_weights", "linear_model/color/weights"]
        weights = {v.op.name: v for v in tf.global_variables()}
        assigns = [tf.assign(weights["linear_model/age/weights"], [[0.5, -1.0]]),
                   tf.assign(weights["linear_model/color/weights"], [[1.0, 0.0], [2.0, 0.0], [3.0, 1.0]]),
                   tf.assign(weights["linear_model/bias_weights"], [0.25, 0.0])]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(assigns)
            got = sess.run(logits)
    color_rows = np.array([[1.0, 0.0], [3.0, 1.0], [0.0, 0.0], [2.0, 0.0]])  # (pink: default -1, no weight)
    want = FEATURES["age"][:, None] * [0.5, -1.0] + color_rows + [0.25, 0.0]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_crossed_columns_hash_each_combination():
    cross = fc.crossed_column(["color", fc.categorical_column_with_identity("id", 4, default_value=0)], 50)
    with tf.Graph().as_default():
        got = _run(fc.input_layer(FEATURES, [fc.indicator_column(cross)]))
        missing = {**FEATURES, "id": np.array([0, -1, 2, 1]), "color": np.array([b"red", b"blue", b"", b"red"])}
        got_missing = _run(fc.input_layer(missing, [fc.indicator_column(cross)]))
    assert got.shape == (4, 50)
    np.testing.assert_array_equal(got.sum(axis=1), [1, 1, 1, 1])  # (id 7 is out of range: the default id, 0)
    # (a column's -1 is no value, nothing to cross; a raw string feature's values all count, "" too, as TF's)
    np.testing.assert_array_equal(got_missing.sum(axis=1), [1, 0, 1, 1])
    np.testing.assert_array_equal(got_missing[0], got[0])


def test_crossed_columns_land_in_tensorflows_buckets():
    """The buckets TensorFlow 2.15's feature columns gave these crosses (a bucketized column
    crossed with a string feature, two string features): TF's SparseCross folds each value's
    hash (a string's Fingerprint64, an integer itself) into the key with FingerprintCat64."""
    features = {"age": np.array([[17.0], [35.0], [64.0]], np.float32),
                "occ": np.array([["Sales"], ["Exec"], ["Other"]]), "edu": np.array([["BS"], ["HS"], ["MS"]])}
    buckets = fc.bucketized_column(fc.numeric_column("age"), [18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    with tf.Graph().as_default():
        got = _run([fc.input_layer(features, [fc.indicator_column(fc.crossed_column([buckets, "edu"], 7))]),
                    fc.input_layer(features, [fc.indicator_column(fc.crossed_column(["occ", "edu"], 11))])])
    assert [row.nonzero()[0].tolist() for row in got[0]] == [[3], [0], [0]]
    assert [row.nonzero()[0].tolist() for row in got[1]] == [[7], [0], [9]]


def test_vocabulary_file_and_bad_arguments(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("red\ngreen\nblue\n")
    column = fc.categorical_column_with_vocabulary_file("color", str(path), vocabulary_size=2)
    with tf.Graph().as_default():
        got = _run(fc.input_layer(FEATURES, [fc.indicator_column(column)]))
    np.testing.assert_array_equal(got, _one_hot([0, -1, -1, 1], 2))
    with pytest.raises(ValueError, match="sorted"):
        fc.bucketized_column(fc.numeric_column("age"), [3, 1])
    with pytest.raises(ValueError, match="Duplicate"):
        fc.categorical_column_with_vocabulary_list("c", ["a", "a"])
    with pytest.raises(ValueError, match="Feature height is not in features dictionary"):
        with tf.Graph().as_default():
            fc.input_layer(FEATURES, [fc.numeric_column("height")])
    with pytest.raises(AttributeError, match="docs/compat.md"):  # (tf.contrib.feature_column's, in TF 1.x too)
        fc.sequence_input_layer  # noqa: B018
    assert fc.sequence_numeric_column is tf.contrib.feature_column.sequence_numeric_column


def _xor_like(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    return {"a": x[:, 0], "b": x[:, 1]}, (x[:, 0] * x[:, 1] > 0).astype(np.int64)


def test_a_dnn_classifier_learns_what_a_linear_one_cannot(tmp_path):
    features, labels = _xor_like(600, 0)
    test_features, test_labels = _xor_like(300, 1)
    columns = [fc.numeric_column("a"), fc.numeric_column("b")]
    train = tf.estimator.inputs.numpy_input_fn(features, labels, batch_size=50, num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn(test_features, test_labels, batch_size=300, shuffle=False)
    config = tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None)
    dnn = tf.estimator.DNNClassifier([16, 16], columns, model_dir=str(tmp_path / "dnn"), optimizer="Adam",
                                     config=config)
    dnn.train(train, steps=600)
    deep = dnn.evaluate(evaluate)
    linear = tf.estimator.LinearClassifier(columns, model_dir=str(tmp_path / "linear"), config=config)
    linear.train(train, steps=300)
    flat = linear.evaluate(evaluate)
    assert deep["accuracy"] >= 0.9 and flat["accuracy"] <= 0.7, (deep, flat)
    assert {"auc", "precision", "recall", "average_loss", "loss", "label/mean", "prediction/mean"} <= set(deep)
    assert "dnn/hiddenlayer_0/kernel" in dnn.get_variable_names() and "dnn/logits/bias" in dnn.get_variable_names()
    assert "linear/linear_model/a/weights" in linear.get_variable_names()
    predictions = list(dnn.predict(tf.estimator.inputs.numpy_input_fn(test_features, batch_size=300, shuffle=False)))
    assert len(predictions) == 300 and {"class_ids", "probabilities", "logits", "classes"} <= set(predictions[0])
    accuracy = np.mean([p["class_ids"][0] == y for p, y in zip(predictions, test_labels)])
    assert abs(accuracy - deep["accuracy"]) < 1e-6


def test_regressors_fit_a_line_and_a_curve(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.uniform(-2, 2, 400).astype(np.float32)
    y = (3.0 * x + 1.0).astype(np.float32)
    columns = [fc.numeric_column("x")]
    train = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=50, num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=400, shuffle=False)
    config = tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None)
    linear = tf.estimator.LinearRegressor(columns, model_dir=str(tmp_path / "linear"),
                                          optimizer=tf.train.GradientDescentOptimizer(0.01), config=config)
    linear.train(train, steps=300)
    assert linear.evaluate(evaluate)["average_loss"] < 1e-3
    np.testing.assert_allclose(linear.get_variable_value("linear/linear_model/x/weights"), [[3.0]], rtol=1e-2)
    curve = (x ** 2).astype(np.float32)
    train = tf.estimator.inputs.numpy_input_fn({"x": x}, curve, batch_size=50, num_epochs=None, shuffle=True)
    combined = tf.estimator.DNNLinearCombinedRegressor(
        model_dir=str(tmp_path / "combined"), linear_feature_columns=columns, dnn_feature_columns=columns,
        dnn_hidden_units=[32, 32], dnn_optimizer="Adam", config=config)
    combined.train(train, steps=800)
    result = combined.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, curve, batch_size=400, shuffle=False))
    assert result["average_loss"] < 0.1, result


def test_a_classifier_with_a_label_vocabulary_and_more_classes(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.uniform(0, 3, 600).astype(np.float32)
    names = np.array([b"low", b"mid", b"high"])[np.minimum(x.astype(int), 2)]
    classifier = tf.estimator.DNNClassifier(
        [16], [fc.numeric_column("x")], model_dir=str(tmp_path), n_classes=3, label_vocabulary=["low", "mid", "high"],
        optimizer="Adam", config=tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None))
    classifier.train(tf.estimator.inputs.numpy_input_fn({"x": x}, names, batch_size=50, num_epochs=None,
                                                        shuffle=True), steps=400)
    assert classifier.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, names, batch_size=600,
                                                                  shuffle=False))["accuracy"] >= 0.9
    first = next(iter(classifier.predict(tf.estimator.inputs.numpy_input_fn({"x": np.array([2.5], np.float32)},
                                                                           shuffle=False))))
    assert first["classes"][0] == b"high"


# TensorFlow 2.21's tf.strings.to_hash_bucket and to_hash_bucket_strong (key [123456789, 987654321])
# of these byte strings (hex), 1000003 buckets: lengths 0 to 19 and above, high bytes included
_HASHED = [
    '',
    '25',
    '4a55',
    'b9c4cfdae5',
    '28333e49545f6a75',
    '4d58636e79848f9aa5',
    '505b66717c87929da8b3bec9d4dfeaf5',
    'bfcad5e0ebf6010c17222d38434e59646f7a85',
    'fffe',
    '68656c6c6f20776f726c642c2061206c6f6e67657220737472696e6721',
]
_LEGACY_BUCKETS = [598820, 611007, 457778, 640169, 647551, 383268, 206026, 247643, 347370, 432647]
_STRONG_BUCKETS = [155171, 152041, 581597, 111718, 826385, 442922, 754452, 844953, 157976, 256071]


def test_the_older_and_the_keyed_string_hashes_put_strings_in_tensorflows_buckets():
    words = [bytes.fromhex(w) for w in _HASHED]
    legacy = tf.string_to_hash_bucket(words, 1000003)
    strong = tf.strings.to_hash_bucket_strong(words, 1000003, [123456789, 987654321])
    assert legacy.dtype == tf.int64 and tf.strings.to_hash_bucket is tf.string_to_hash_bucket
    with tf.Session() as sess:
        got_legacy, got_strong = sess.run([legacy, strong])
    assert got_legacy.tolist() == _LEGACY_BUCKETS and got_strong.tolist() == _STRONG_BUCKETS
    with pytest.raises(ValueError, match="key must be a list of two integers"):
        tf.string_to_hash_bucket_strong(["a"], 10, [1])
    with pytest.raises(ValueError, match="num_buckets must be an int >= 1"):
        tf.string_to_hash_bucket(["a"], 0)


def test_fingerprint_gives_tensorflows_eight_bytes_per_row():
    # (TensorFlow 2.21's tf.fingerprint of the same tensors)
    numbers = tf.fingerprint(tf.constant([[1, 2], [3, 4], [5, 6]], tf.int32))
    words = tf.fingerprint(tf.constant([b"hello", b"", b"abc"]))
    pairs = tf.fingerprint(tf.constant([[b"ab", b"c"], [b"", b"xyz"]]))
    assert numbers.dtype == tf.uint8 and numbers.shape.as_list() == [3, 8]
    with tf.Session() as sess:
        got = sess.run([numbers, words, pairs])
    assert got[0].tolist() == [
        [76, 18, 253, 133, 168, 204, 240, 10],
        [254, 162, 60, 240, 103, 244, 53, 255],
        [193, 47, 23, 92, 55, 204, 151, 82],
    ]
    assert got[1].tolist() == [
        [232, 12, 56, 49, 169, 229, 139, 180],
        [79, 64, 144, 47, 59, 106, 225, 154],
        [105, 243, 231, 116, 160, 179, 165, 36],
    ]
    assert got[2].tolist() == [[65, 83, 39, 149, 164, 245, 170, 22], [193, 32, 210, 152, 167, 221, 186, 228]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="unsupported method 'md5'"):
        with tf.Session() as sess:
            sess.run(tf.fingerprint(tf.constant([1]), method="md5"))



def test_keras_dense_features_is_input_layer_as_a_layer_and_trains_in_a_sequential_model():
    age = tf.feature_column.numeric_column("age")
    city = tf.feature_column.categorical_column_with_vocabulary_list("city", ["a", "b", "c"])
    embedded = tf.feature_column.embedding_column(city, 2, initializer=tf.constant_initializer(0.5))
    columns = [age, embedded, tf.feature_column.indicator_column(city)]
    features = {"age": tf.constant([[1.0], [2.0]]), "city": tf.constant([["a"], ["c"]])}
    layer = tf.keras.layers.DenseFeatures(columns)
    out, again = layer(features), layer(features)
    reference = tf.feature_column.input_layer(features, columns)
    # (TensorFlow's names: the layer's scope, the column's variables under it; one set for both calls)
    assert out.name == "dense_features/concat:0"
    assert [v.name for v in layer.weights] == ["dense_features/city_embedding/embedding_weights:0"]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        got, got_again, want = sess.run([out, again, reference])
    np.testing.assert_array_equal(got, [[1, 0.5, 0.5, 1, 0, 0], [2, 0.5, 0.5, 0, 0, 1]])
    np.testing.assert_array_equal(got_again, got)
    np.testing.assert_array_equal(want, got)
    with pytest.raises(ValueError, match="dictionary"):
        layer(tf.constant([[1.0]]))

    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.layers.DenseFeatures([age, tf.feature_column.embedding_column(city, 2)]),
                                 tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    x = {"age": np.array([[1.0], [2.0], [3.0]], np.float32), "city": np.array([["a"], ["c"], ["b"]])}
    y = np.array([[1.0], [2.0], [3.0]], np.float32)
    losses = model.fit(x, y, epochs=5, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    table, kernel, bias = model.get_weights()
    rows = np.concatenate([x["age"], table[[0, 2, 1]]], 1)  # (a, c, b: vocabulary ids 0, 2, 1)
    np.testing.assert_allclose(model.predict(x), rows @ kernel + bias, rtol=1e-5)
    assert model.input_names == ["age", "city"]


def test_weighted_and_shared_columns_sparse_features_and_the_parse_spec():
    fc = tf.feature_column
    ids = np.array([[3, 1], [0, -1], [7, 7]], np.int64)
    weights = np.array([[0.5, 2.0], [1.0, 0.0], [1.5, 0.5]], np.float32)
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 8), "w")
    features = {"ids": tf.constant(ids), "w": tf.constant(weights)}
    indicator = fc.input_layer(features, [fc.indicator_column(weighted)])
    embedded = fc.input_layer(features, [fc.embedding_column(weighted, 2, combiner="sqrtn",
                                                             initializer=tf.ones_initializer())])
    sparse = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ["a", "b", "c"], [3, 2])
    from_sparse = fc.input_layer({"city": sparse}, [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("city", ["a", "b", "c"]))])
    city = fc.categorical_column_with_hash_bucket("city", 5)
    words = fc.categorical_column_with_hash_bucket("words", 5)
    shared = fc.shared_embedding_columns([city, words], 2, initializer=tf.constant_initializer(0.25))
    both = fc.input_layer({"city": tf.constant([["a"], ["b"]]), "words": tf.constant([["x", "y"], ["z", ""]])},
                          shared)
    # (TensorFlow's name for the one table: the columns' names, sorted, joined)
    assert [v.name for v in tf.global_variables() if "shared" in v.name] == [
        "input_layer_3/city_words_shared_embedding/embedding_weights:0"]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        got_indicator, got_embedded, got_sparse, got_both = sess.run([indicator, embedded, from_sparse, both])
    want = np.zeros((3, 8))
    for row in range(3):
        for i, w in zip(ids[row], weights[row]):
            if i >= 0:
                want[row, i] += w
    np.testing.assert_allclose(got_indicator, want)
    present = np.where(ids >= 0, weights, 0.0)
    norm = np.sqrt((present ** 2).sum(1, keepdims=True))
    np.testing.assert_allclose(got_embedded, np.repeat(present.sum(1, keepdims=True) / norm, 2, 1), rtol=1e-6)
    np.testing.assert_array_equal(got_sparse, [[1, 1, 0], [0, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(got_both, np.full((2, 4), 0.25))
    spec = fc.make_parse_example_spec([fc.numeric_column("age", shape=[2]), fc.embedding_column(weighted, 2),
                                       fc.crossed_column(["city", fc.categorical_column_with_identity("k", 3)], 9)])
    assert spec == {"age": tf.FixedLenFeature((2,), tf.float32, None), "ids": tf.VarLenFeature(tf.int64),
                    "w": tf.VarLenFeature(tf.float32), "city": tf.VarLenFeature(tf.string),
                    "k": tf.VarLenFeature(tf.int64)}


class _Doubled(fc_lib._DenseColumn, collections.namedtuple("_Doubled", ["key"])):
    """A dense column written for TensorFlow's column protocol: twice a raw feature."""

    @property
    def name(self):
        return f"{self.key}_doubled"

    @property
    def _parse_example_spec(self):
        return {self.key: tf.FixedLenFeature([2], tf.float32)}

    def _transform_feature(self, inputs):
        return 2.0 * inputs.get(self.key)

    @property
    def _variable_shape(self):
        return tf.TensorShape([2])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


class _Parity(fc_lib._CategoricalColumn, collections.namedtuple("_Parity", ["key"])):
    """A categorical column written for TensorFlow's column protocol: each integer's parity."""

    @property
    def name(self):
        return f"{self.key}_parity"

    @property
    def _parse_example_spec(self):
        return {self.key: tf.VarLenFeature(tf.int64)}

    def _transform_feature(self, inputs):
        ids = inputs.get(fc.categorical_column_with_identity(self.key, 100))
        return tf.SparseTensor(ids.indices, tf.mod(ids.values, 2), ids.dense_shape)

    @property
    def _num_buckets(self):
        return 2

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return self.IdWeightPair(inputs.get(self), None)


def test_columns_written_for_tensorflows_protocol_work_in_every_layer():
    features = {"x": np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), "n": np.array([[3, 4], [6, -1]])}
    parity = _Parity("n")
    with tf.Graph().as_default():
        dense = fc.input_layer(features, [_Doubled("x"), fc.indicator_column(parity), fc.embedding_column(
            parity, 1, combiner="sum", initializer=tf.constant_initializer([[10.0], [1.0]]))])
        logits = fc.linear_model(features, [_Doubled("x"), parity])
        crossed = fc.input_layer(features, [fc.indicator_column(fc.crossed_column([parity, "n"], 1000))])
        names = sorted(v.op.name for v in tf.global_variables())
        got_dense, got_logits, got_crossed = _run([dense, logits, crossed])
    # (name order: n_parity_embedding, n_parity_indicator, x_doubled; 3 is odd, 4 and 6 even, -1 none)
    np.testing.assert_array_equal(got_dense, [[11, 1, 1, 2, 4], [10, 1, 0, 6, 8]])
    np.testing.assert_array_equal(got_logits, np.zeros((2, 1)))  # (zero-initialized weights)
    assert names == ["input_layer/n_parity_embedding/embedding_weights", "linear_model/bias_weights",
                     "linear_model/n_parity/weights", "linear_model/x_doubled/weights"]
    # (each row crosses its parities with its raw values: 2 x 2 combinations, then 1 x 2)
    np.testing.assert_array_equal(got_crossed.sum(axis=1), [4, 2])
    assert fc.make_parse_example_spec([_Doubled("x"), parity]) == {"x": tf.FixedLenFeature([2], tf.float32),
                                                                   "n": tf.VarLenFeature(tf.int64)}


def test_transformations_are_built_once_and_categorical_columns_give_tensorflows_sparse_ids():
    age = fc.bucketized_column(fc.numeric_column("age"), [18, 30, 50])
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    with tf.Graph().as_default() as graph:
        features = {"age": FEATURES["age"], "color": np.array([[b"red", b""], [b"pink", b"blue"]])}
        out = fc_lib._transform_features(features, [age, fc.crossed_column([age, "color"], 10), color])
        assert sum(op.type == "Bucketize" for op in graph.get_operations()) == 1
        builder = fc_lib._LazyBuilder(features)
        ids = color._get_sparse_tensors(builder).id_tensor
        assert builder.get(color) is ids and builder.get("age").shape.as_list() == [4, 1]  # (rank 1 made [batch, 1])
        with tf.Session() as sess:
            got_ids, got_age = sess.run([ids, out[age]])
    # ("" is no value; "pink", outside the vocabulary, is the default id -1, kept as TF keeps it)
    assert got_ids.indices.tolist() == [[0, 0], [1, 0], [1, 1]] and got_ids.values.tolist() == [0, -1, 2]
    assert got_ids.dense_shape.tolist() == [2, 2]
    np.testing.assert_array_equal(got_age, np.searchsorted([18, 30, 50], FEATURES["age"], side="right")[:, None])


def test_identity_ids_outside_the_buckets_fail_the_step_naming_the_column():
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int64, [None, 1])
        out = fc.input_layer({"id": ids}, [fc.indicator_column(fc.categorical_column_with_identity("id", 4))])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {ids: [[3], [-1]]}), [[0, 0, 0, 1], [0, 0, 0, 0]])
            with pytest.raises(tf.errors.InvalidArgumentError, match="id: ids must be < num_buckets 4"):
                sess.run(out, {ids: [[4], [0]]})


def test_an_embedding_starts_from_a_checkpoint_and_clips_its_rows(tmp_path):
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)
    with tf.Graph().as_default():
        saved = tf.Variable(table, name="pretrained")
        with tf.Session() as sess:
            sess.run(saved.initializer)
            path = tf.train.Saver([saved]).save(sess, str(tmp_path / "ckpt"))
    ids = fc.categorical_column_with_identity("id", 3)
    with tf.Graph().as_default():
        out = fc.input_layer({"id": np.array([[0], [1], [2]])}, [fc.embedding_column(
            ids, 2, ckpt_to_load_from=path, tensor_name_in_ckpt="pretrained", max_norm=1.0)])
        got = _run(out)
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    np.testing.assert_allclose(got, table / np.maximum(norms, 1.0), rtol=1e-6)
    with pytest.raises(ValueError, match="Must specify both"):
        fc.embedding_column(ids, 2, ckpt_to_load_from=path)


def test_column_arguments_are_checked_as_tensorflow_checks_them():
    assert fc.numeric_column("a", shape=[2, 2], default_value=1).default_value == ((1, 1), (1, 1))
    assert fc.numeric_column("a", shape=2, default_value=np.array([0.5, 1.5])).default_value == (0.5, 1.5)
    with pytest.raises(TypeError, match="shape dimensions must be integer"):
        fc.numeric_column("a", shape=[2.5])
    with pytest.raises(ValueError, match="The shape of default_value must be equal to given shape"):
        fc.numeric_column("a", shape=[2], default_value=[1, 2, 3])
    with pytest.raises(TypeError, match="default_value must be compatible with dtype"):
        fc.numeric_column("a", dtype=tf.int32, default_value=0.5)
    with pytest.raises(ValueError, match="dtype .* and vocabulary dtype .* do not match"):
        fc.categorical_column_with_vocabulary_list("c", ["a", "b"], dtype=tf.int64)
    with pytest.raises(ValueError, match="not supported for crossing"):
        fc.crossed_column([fc.categorical_column_with_hash_bucket("c", 5), "d"], 10)
    with pytest.raises(ValueError, match="Duplicate feature column name"):
        fc.input_layer(FEATURES, [fc.numeric_column("age"), fc.numeric_column("age", shape=[1])])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Column dtype and SparseTensors dtype"):
        fc.input_layer({"c": np.array([[1], [2]])}, [fc.indicator_column(
            fc.categorical_column_with_vocabulary_list("c", ["a", "b"]))])
    assert fc.crossed_column(["b", "a"], 5).name == "a_X_b"  # (TF's name: the keys sorted)


def test_input_layer_objects_share_their_variables_and_repeated_weighted_ids_add_up():
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 4), "w")
    features = {"ids": np.array([[2, 2, 0]]), "w": np.array([[0.5, 1.0, 2.0]], np.float32)}
    with tf.Graph().as_default():
        layer = fc_lib.InputLayer([fc.indicator_column(weighted), fc.embedding_column(weighted, 2)])
        first, second = layer(features), layer(features)
        assert len(layer.variables) == 1 and len(tf.global_variables()) == 1
        got_first, got_second = _run([first, second])
    np.testing.assert_allclose(got_first, got_second)
    np.testing.assert_allclose(got_first[:, 2:], [[2.0, 0.0, 1.5, 0.0]])  # (id 2 twice: 0.5 + 1.0)


def test_sparse_cross_hashed_folds_each_combinations_hashes_as_sparse_cross_does():
    from distflow.ops.hash_ops import fingerprint_cat64
    numbers = np.array([[7], [-1]], np.int64)  # (dense: every value counts, -1 too)
    with tf.Graph().as_default(), tf.Session() as sess:
        words = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
        got = sess.run(tf.sparse.cross_hashed([words, numbers], num_buckets=1000, hash_key=5))

    def bucket(word, number):
        return fingerprint_cat64(fingerprint_cat64(5, fingerprint64(word)), number & (2 ** 64 - 1)) % 1000

    assert got.indices.tolist() == [[0, 0], [0, 1], [1, 0]]
    assert got.values.tolist() == [bucket(b"a", 7), bucket(b"b", 7), bucket(b"c", -1)]
    assert got.dense_shape.tolist() == [2, 2]


def test_a_cross_of_one_value_an_example_hashes_the_batch_at_once_as_the_general_path_does():
    from distflow.ops.categorical_ops import _hashed_crosses, _sparse_cross_kernel

    rng = np.random.default_rng(0)
    b = 300
    words = np.array([b"w%d" % i for i in rng.integers(0, 50, b)], object)
    numbers = rng.integers(-5, 1000, b).astype(np.int64)
    rows = np.stack([np.arange(b), np.zeros(b, np.int64)], 1)
    shape = np.array([b, 1], np.int64)
    dense = rng.integers(0, 7, (b, 1)).astype(np.int64)
    indices, values, dense_shape = _sparse_cross_kernel(None, rows, rows, words, numbers, shape, shape, dense, N=2,
                                                        hashed_output=True, num_buckets=1000, hash_key=0xDECAFCAFFE)
    columns = [[[w] for w in words], [[n] for n in numbers], [[d] for d in dense[:, 0]]]
    general = [v for row in _hashed_crosses(columns, 1000, 0xDECAFCAFFE) for v in row]
    np.testing.assert_array_equal(values, np.array(general, np.uint64).astype(np.int64))
    np.testing.assert_array_equal(indices, rows)
    np.testing.assert_array_equal(dense_shape, [b, 1])


def test_sequence_features_layer_gives_the_sequence_input_and_lengths():
    tokens = fc.sequence_categorical_column_with_identity("tokens", 10)
    numbers = fc.sequence_numeric_column("nums", shape=(2,))
    layer = tf.keras.experimental.SequenceFeatures([fc.embedding_column(tokens, 4), numbers])
    with tf.Graph().as_default():
        features = {"tokens": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([3, 4, 5], tf.int64), [2, 2]),
                    "nums": tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                                            tf.constant([1.0, 2, 3, 4, 5, 6]), [2, 4])}
        sequence, length = layer(features)
        assert len(layer.trainable_weights) == 1  # (the embedding)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, lengths, table = sess.run([sequence, length, layer.trainable_weights[0]])
    assert got.shape == (2, 2, 6) and lengths.tolist() == [2, 1]
    np.testing.assert_allclose(got[:, :, :2], [[[1, 2], [3, 4]], [[5, 6], [0, 0]]])  # ("nums" first: by name)
    np.testing.assert_allclose(got[0, :, 2:], table[[3, 4]], rtol=1e-6)
    np.testing.assert_allclose(got[1, 0, 2:], table[5], rtol=1e-6)
    with pytest.raises(ValueError, match="must be sequence columns"):
        tf.keras.experimental.SequenceFeatures([fc.numeric_column("x")])
