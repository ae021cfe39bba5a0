"""tf.contrib.learn's Estimators (fit/evaluate/predict on arrays or input functions) and
tf.contrib.layers' old feature columns, on tf.estimator's canned estimators."""

import numpy as np
import pytest

import distflow as tf

learn, layers = tf.contrib.learn, tf.contrib.layers


def _separable(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 2)).astype(np.float32)
    return x, (x[:, 0] + x[:, 1] > 0).astype(np.int64)


def test_a_classifier_fits_arrays_and_predicts_classes_and_probabilities(tmp_path):
    x, y = _separable()
    columns = learn.infer_real_valued_columns_from_input(x)
    assert [c.name for c in columns] == [""] and columns[0].shape == (2,)
    classifier = learn.LinearClassifier(feature_columns=columns, model_dir=str(tmp_path),
                                        optimizer=tf.train.GradientDescentOptimizer(0.5))
    assert classifier.fit(x=x, y=y, steps=100, batch_size=50) is classifier
    metrics = classifier.evaluate(x=x, y=y)
    assert metrics["accuracy"] >= 0.95 and metrics["global_step"] == 100
    classes = list(classifier.predict(x=x[:4]))
    probabilities = classifier.predict_proba(x=x[:4], as_iterable=False)
    assert probabilities.shape == (4, 2) and np.allclose(probabilities.sum(1), 1.0)
    assert classes == probabilities.argmax(1).tolist() and all(isinstance(c, int) for c in classes)
    assert np.allclose(list(classifier.predict_proba(x=x[:4], batch_size=3)), probabilities)
    assert classifier.predict(x=x[:4], as_iterable=False).tolist() == classes
    with pytest.raises(ValueError, match="Either x or input_fn must be provided, not both"):
        classifier.fit(x=x, y=y, input_fn=lambda: None, steps=1)
    with pytest.raises(ValueError, match="gradient_clip_norm"):
        learn.DNNClassifier([4], columns, gradient_clip_norm=1.0)


def test_a_regressor_and_the_old_sparse_columns_through_an_input_fn(tmp_path):
    rng = np.random.default_rng(1)
    colors = rng.choice(["red", "green", "blue"], 120)
    size = rng.uniform(0, 1, 120).astype(np.float32)
    target = (size * 2 + (colors == "red") * 3).astype(np.float32)

    def input_fn():
        return {"color": tf.constant(colors), "size": tf.constant(size.reshape(-1, 1))}, tf.constant(target)

    color = layers.sparse_column_with_keys("color", ["red", "green", "blue"])
    size_column = layers.real_valued_column("size")
    regressor = learn.LinearRegressor(feature_columns=[color, size_column, layers.crossed_column(
        [color, layers.bucketized_column(size_column, [0.5])], hash_bucket_size=10)], model_dir=str(tmp_path),
        optimizer=tf.train.FtrlOptimizer(1.0))
    regressor.fit(input_fn=input_fn, steps=200)
    assert regressor.evaluate(input_fn=input_fn, steps=1)["loss"] < 0.1 * float(np.sum(target ** 2))
    # An input function of constants never ends: as in TF, only a single batch (as_iterable=False) returns.
    scores = regressor.predict(input_fn=input_fn, as_iterable=False)
    assert len(scores) == 120 and np.corrcoef(scores, target)[0, 1] > 0.9
    embedded = layers.embedding_column(layers.sparse_column_with_hash_bucket("color", 8), dimension=3)
    assert embedded.dimension == 3 and layers.one_hot_column(color).categorical_column is color
    with pytest.raises(ValueError, match="dimension=None"):
        layers.real_valued_column("size", dimension=None)


def test_load_csv_with_header_reads_the_quickstarts_format(tmp_path):
    path = tmp_path / "flowers.csv"
    path.write_text("3,2,a,b\n1.0,2.0,0\n3.0,4.0,1\n5.0,6.0,1\n")
    data = learn.datasets.base.load_csv_with_header(str(path), target_dtype=np.int64, features_dtype=np.float32)
    assert data.data.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] and data.target.tolist() == [0, 1, 1]


def test_an_experiment_under_learn_runner_in_one_process(tmp_path):
    x, y = _separable()

    def experiment_fn(run_config, hparams):
        assert hparams == {"lr": 0.5}
        classifier = learn.LinearClassifier(feature_columns=learn.infer_real_valued_columns_from_input(x),
                                            config=run_config, optimizer=tf.train.GradientDescentOptimizer(0.5))
        train = tf.estimator.inputs.numpy_input_fn({"": x}, y, batch_size=50, num_epochs=None, shuffle=True)
        evaluate = tf.estimator.inputs.numpy_input_fn({"": x}, y, batch_size=200, shuffle=False)
        return learn.Experiment(classifier, train, evaluate, train_steps=60, eval_steps=None, eval_delay_secs=0)

    config = learn.RunConfig(model_dir=str(tmp_path / "model"), save_checkpoints_steps=30, num_cores=1)
    assert config.session_config.intra_op_parallelism_threads == 1 and config.environment == "local"
    assert learn.RunConfig().save_checkpoints_secs == 600  # (contrib's default: every 10 minutes and at the end)
    metrics, exports = learn.learn_runner.run(experiment_fn, run_config=config, hparams={"lr": 0.5})
    assert metrics["global_step"] == 60 and metrics["accuracy"] >= 0.95 and exports == []
    experiment = experiment_fn(config, {"lr": 0.5})
    assert experiment.continuous_eval(delay_secs=0, throttle_delay_secs=0,
                                      continuous_eval_predicate_fn=lambda m: False)["global_step"] == 60
    assert experiment.test()["global_step"] == 61
    with pytest.raises(ValueError, match="non-existent task"):
        learn.learn_runner.run(experiment_fn, run_config=config, hparams={"lr": 0.5}, schedule="fly")
    with pytest.raises(ValueError, match="model_dir"):
        learn.learn_runner.run(experiment_fn, run_config=learn.RunConfig())
    with pytest.raises(ValueError, match="eval_metrics"):
        learn.Experiment(experiment.estimator, None, None, eval_metrics={"a": None})


def test_the_wide_and_deep_regressor_learns(tmp_path):
    x = np.random.default_rng(2).random((200, 2)).astype(np.float32)
    y = (x @ np.array([1.0, 2.0], np.float32)).astype(np.float32)
    columns = learn.infer_real_valued_columns_from_input(x)
    regressor = learn.DNNLinearCombinedRegressor(model_dir=str(tmp_path), linear_feature_columns=columns,
                                                 linear_optimizer=tf.train.GradientDescentOptimizer(0.002),
                                                 dnn_feature_columns=columns, dnn_hidden_units=[4],
                                                 config=learn.RunConfig(tf_random_seed=2))
    before = regressor.fit(x=x, y=y, steps=1, batch_size=200).evaluate(x=x, y=y)["average_loss"]
    after = regressor.fit(x=x, y=y, steps=100, batch_size=200).evaluate(x=x, y=y)["average_loss"]
    assert after < 0.25 * before and regressor.predict(x=x[:3], as_iterable=False).shape == (3,)
