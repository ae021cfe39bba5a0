"""tf.contrib.estimator's heads in a model_fn, and the estimators that take a head."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(0)
X = RNG.standard_normal((200, 3)).astype(np.float32)
W = np.array([1.5, -2.0, 0.5], np.float32)


def input_fn(labels, shuffle=True):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, labels, batch_size=200, num_epochs=None if shuffle else 1,
                                              shuffle=shuffle)


def test_a_model_fn_returns_the_heads_spec_with_its_regularization_in_the_loss(tmp_path):
    labels = (X @ W > 0).astype(np.int64)
    head = tf.contrib.estimator.binary_classification_head()
    l2 = 0.01

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1])
        logits = tf.matmul(features["x"], w)
        return head.create_estimator_spec(features, mode, logits, labels, optimizer=tf.train.AdamOptimizer(0.1),
                                          regularization_losses=[l2 * tf.reduce_sum(w * w)])

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn(labels), steps=100)
    metrics = est.evaluate(input_fn(labels, shuffle=False))
    w = est.get_variable_value("w")
    assert metrics["accuracy"] >= 0.97 and {"auc", "precision", "recall", "average_loss"} <= set(metrics)
    assert metrics["loss"] == pytest.approx(metrics["average_loss"] + l2 * float((w * w).sum()), rel=1e-4)
    predictions = next(est.predict(input_fn(labels, shuffle=False)))
    assert {"logits", "logistic", "probabilities", "class_ids", "classes"} <= set(predictions)


def test_the_estimators_that_take_a_head_train_with_it(tmp_path):
    targets = (X @ W).reshape(-1, 1).astype(np.float32)
    column = tf.feature_column.numeric_column("x", shape=[3])
    linear = tf.contrib.estimator.LinearEstimator(tf.contrib.estimator.regression_head(), [column],
                                                  model_dir=str(tmp_path / "linear"),
                                                  optimizer=tf.train.GradientDescentOptimizer(0.3))
    linear.train(input_fn(targets), steps=100)
    assert linear.evaluate(input_fn(targets, shuffle=False))["average_loss"] < 1e-3
    classes = np.digitize(X @ W, [-1.0, 1.0]).astype(np.int64)
    dnn = tf.contrib.estimator.DNNEstimator(tf.contrib.estimator.multi_class_head(3), [16], [column],
                                            model_dir=str(tmp_path / "dnn"), optimizer=tf.train.AdamOptimizer(0.05))
    dnn.train(input_fn(classes), steps=150)
    assert dnn.evaluate(input_fn(classes, shuffle=False))["accuracy"] >= 0.9


def test_tf_estimators_own_head_estimators_add_metrics_and_hook_names(tmp_path):
    # TF 1.14-1.15's tf.estimator: the estimators that take a head, add_metrics, and the hooks
    assert tf.estimator.DNNEstimator is tf.contrib.estimator.DNNEstimator
    assert tf.estimator.LoggingTensorHook is tf.train.LoggingTensorHook
    assert tf.estimator.SessionRunHook is tf.train.SessionRunHook
    labels = (X @ W > 0).astype(np.int64)
    column = tf.feature_column.numeric_column("x", shape=[3])
    combined = tf.estimator.DNNLinearCombinedEstimator(
        tf.contrib.estimator.binary_classification_head(), model_dir=str(tmp_path / "combined"),
        linear_feature_columns=[column], linear_optimizer=tf.train.FtrlOptimizer(0.5), dnn_feature_columns=[column],
        dnn_hidden_units=[8], dnn_optimizer=tf.train.AdamOptimizer(0.05))
    combined.train(input_fn(labels), steps=100)
    names = set(combined.get_variable_names())
    assert {"linear/linear_model/x/weights", "dnn/hiddenlayer_0/kernel", "dnn/logits/kernel"} <= names

    def metric_fn(labels, predictions):
        return {"mean_logistic": tf.metrics.mean(predictions["logistic"])}

    metrics = tf.estimator.add_metrics(combined, metric_fn).evaluate(input_fn(labels, shuffle=False))
    assert metrics["accuracy"] >= 0.95
    assert metrics["mean_logistic"] == pytest.approx(metrics["prediction/mean"], rel=1e-5)
    # a baseline learns the labels' prior whatever the features
    baseline = tf.estimator.BaselineEstimator(tf.contrib.estimator.regression_head(),
                                              model_dir=str(tmp_path / "baseline"),
                                              optimizer=tf.train.GradientDescentOptimizer(0.5))
    targets = (X @ W + 3.0).reshape(-1, 1).astype(np.float32)
    baseline.train(input_fn(targets), steps=60)
    assert baseline.get_variable_value("baseline/bias")[0] == pytest.approx(targets.mean(), abs=1e-3)


def test_a_poisson_head_learns_rates_and_predicts_counts(tmp_path):
    # counts drawn at rates exp(x . w / 2): the model's log rates, its predictions the rates
    rng = np.random.default_rng(5)
    rates = np.exp(X @ W / 2)
    counts = rng.poisson(rates).reshape(-1, 1).astype(np.float32)
    column = tf.feature_column.numeric_column("x", shape=[3])
    est = tf.contrib.estimator.LinearEstimator(tf.contrib.estimator.poisson_regression_head(), [column],
                                               model_dir=str(tmp_path), optimizer=tf.train.AdamOptimizer(0.05))
    est.train(input_fn(counts), steps=300)
    weights = est.get_variable_value("linear/linear_model/x/weights").ravel()
    np.testing.assert_allclose(weights, W / 2, atol=0.15)
    out = next(est.predict(input_fn(counts, shuffle=False), yield_single_examples=False))
    np.testing.assert_allclose(out["predictions"], np.exp(out["logits"]), rtol=1e-5)
    # the loss is the full Poisson loss (Stirling's term for counts above 1), averaged
    metrics = est.evaluate(input_fn(counts, shuffle=False))
    z, y = out["logits"].ravel().astype(np.float64), counts.ravel()
    stirling = np.where(y > 1, y * np.log(np.maximum(y, 1)) - y + 0.5 * np.log(2 * np.pi * np.maximum(y, 1)), 0)
    assert metrics["average_loss"] == pytest.approx(np.mean(np.exp(z) - y * z + stirling), rel=1e-4)


def test_a_regression_heads_own_loss_and_link(tmp_path):
    shares = (1 / (1 + np.exp(-(X @ W)))).reshape(-1, 1).astype(np.float32)
    column = tf.feature_column.numeric_column("x", shape=[3])
    est = tf.contrib.estimator.LinearEstimator(tf.contrib.estimator.logistic_regression_head(), [column],
                                               model_dir=str(tmp_path), optimizer=tf.train.AdamOptimizer(0.1))
    est.train(input_fn(shares), steps=300)
    out = next(est.predict(input_fn(shares, shuffle=False), yield_single_examples=False))
    np.testing.assert_allclose(out["predictions"], shares, atol=0.03)

    def absolute(labels, logits):
        return tf.abs(labels - logits)

    head = tf.contrib.estimator.regression_head(loss_fn=absolute, inverse_link_fn=lambda z: 2.0 * z)
    spec = head.create_estimator_spec({"x": X}, tf.estimator.ModeKeys.EVAL, tf.constant([[1.0], [3.0]]),
                                      tf.constant([[2.0], [2.0]]))
    with tf.Session() as sess:
        assert sess.run(spec.loss) == pytest.approx(1.0)  # (the mean over the batch)
        np.testing.assert_allclose(sess.run(spec.predictions["predictions"]), [[2.0], [6.0]])


def test_a_multi_head_trains_two_tasks_on_one_network(tmp_path):
    targets = (X @ W).reshape(-1, 1).astype(np.float32)
    classes = (X[:, :1] > 0).astype(np.int64)
    head = tf.contrib.estimator.multi_head([tf.contrib.estimator.regression_head(name="amount"),
                                            tf.contrib.estimator.binary_classification_head(name="sign")],
                                           head_weights=[1.0, 0.5])
    column = tf.feature_column.numeric_column("x", shape=[3])
    est = tf.contrib.estimator.DNNEstimator(head, [16], [column], model_dir=str(tmp_path),
                                            optimizer=tf.train.AdamOptimizer(0.05))

    def labeled(shuffle=True):
        return tf.estimator.inputs.numpy_input_fn({"x": X}, {"amount": targets, "sign": classes}, batch_size=200,
                                                  num_epochs=None if shuffle else 1, shuffle=shuffle)

    est.train(labeled(), steps=150)
    metrics = est.evaluate(labeled(shuffle=False))
    assert metrics["average_loss/amount"] < 0.05 and metrics["accuracy/sign"] >= 0.95, metrics
    # the loss is the heads' losses weighted
    assert metrics["loss"] == pytest.approx(metrics["loss/amount"] + 0.5 * metrics["loss/sign"], rel=1e-4)
    out = next(est.predict(labeled(shuffle=False)))
    assert {("amount", "predictions"), ("sign", "class_ids"), ("sign", "probabilities")} <= set(out)
    with pytest.raises(ValueError, match="must have name specified"):
        tf.contrib.estimator.multi_head([tf.contrib.estimator.regression_head()])


def test_heads_refuse_what_they_cannot_do():
    head = tf.contrib.estimator.regression_head()
    logits, labels = tf.zeros([2, 1]), tf.zeros([2, 1])
    with pytest.raises(ValueError, match="cannot both be None"):
        head.create_estimator_spec({}, tf.estimator.ModeKeys.TRAIN, logits, labels)
    with pytest.raises(ValueError, match="cannot both be set"):
        head.create_estimator_spec({}, tf.estimator.ModeKeys.TRAIN, logits, labels,
                                   optimizer=tf.train.GradientDescentOptimizer(0.1), train_op_fn=lambda loss: loss)
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        tf.contrib.estimator.multi_class_head(2)
    with pytest.raises(NotImplementedError, match="loss_fn"):
        tf.contrib.estimator.binary_classification_head(loss_fn=lambda labels, logits: logits)
    with pytest.raises(TypeError, match="or one of tf.contrib.estimator's"):
        tf.contrib.estimator.DNNEstimator("binary", [4], [tf.feature_column.numeric_column("x")])


def test_a_multi_label_head_learns_several_labels_an_example(tmp_path):
    labels = (X > 0).astype(np.int64)  # three labels, each independent of the others
    head = tf.contrib.estimator.multi_label_head(3)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 3)
        return head.create_estimator_spec(features, mode, logits, labels, optimizer=tf.train.AdamOptimizer(0.1))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn(labels), steps=100)
    metrics = est.evaluate(input_fn(labels, shuffle=False))
    assert metrics["auc"] >= 0.99 and metrics["average_loss"] < 0.2
    predicted = next(est.predict(input_fn(labels, shuffle=False)))
    assert ((predicted["probabilities"] > 0.5) == (X[0] > 0)).all()
    assert predicted["all_classes"].tolist() == [b"0", b"1", b"2"]


def test_a_multi_label_heads_labels_may_be_names_in_a_sparse_tensor():
    head = tf.contrib.estimator.multi_label_head(3, label_vocabulary=["cat", "dog", "bird"])
    names = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant(["dog", "bird", "cat"]), [2, 2])
    logits = tf.constant([[0.0, 2.0, -1.0], [3.0, 0.0, 0.0]])
    spec = head.create_estimator_spec({}, tf.estimator.ModeKeys.EVAL, logits, names)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        loss = sess.run(spec.loss)
    targets = np.array([[0, 1, 1], [1, 0, 0]], np.float64)
    z = np.array([[0.0, 2.0, -1.0], [3.0, 0.0, 0.0]])
    want = (np.maximum(z, 0) - z * targets + np.log1p(np.exp(-np.abs(z)))).mean(1).mean()
    assert loss == pytest.approx(want, rel=1e-6)
    with pytest.raises(ValueError, match=r"labels must be \[batch, 3\]"):
        head.create_estimator_spec({}, tf.estimator.ModeKeys.EVAL, logits, tf.constant([[1, 0]]))
