"""One task of a cluster training an Estimator with train_and_evaluate (TF_CONFIG names the task).

Usage: python estimator_task.py MODEL_DIR MAX_STEPS [collective | keras | experiment | boosted]; prints
the call's result as JSON. With "collective", the chief and workers train with
MultiWorkerMirroredStrategy (no ps); with "keras", the Estimator is a compiled tf.keras model's
(model_to_estimator); with "experiment", TF 1.2's way: a tf.contrib.learn.Experiment run by
learn_runner, which picks this task's schedule; with "boosted", a BoostedTreesRegressor whose
layers each take two batches, from whichever trainers send them.
"""

import json
import sys

import numpy as np

import distflow as tf

rng = np.random.RandomState(0)
X = rng.randn(512, 3).astype(np.float32)
Y = X @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3


def model_fn(features, labels, mode):
    prediction = tf.layers.dense(features["x"], 1, name="linear")
    loss = tf.losses.mean_squared_error(labels, prediction)
    train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"mae": tf.metrics.mean_absolute_error(labels, prediction)})


def main():
    model_dir, max_steps = sys.argv[1], int(sys.argv[2])
    collective = sys.argv[3:] == ["collective"]
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy() if collective else None
    config = tf.estimator.RunConfig(save_checkpoints_steps=50, log_step_count_steps=None, tf_random_seed=1,
                                    train_distribute=strategy)
    if sys.argv[3:] == ["experiment"]:
        return experiment_main(model_dir, max_steps)
    if sys.argv[3:] == ["keras"]:
        inputs = tf.keras.Input(shape=(3,), name="x")
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, name="linear")(inputs))
        model.compile(tf.keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
        estimator = tf.keras.estimator.model_to_estimator(model, model_dir=model_dir, config=config)
    elif sys.argv[3:] == ["boosted"]:
        estimator = tf.estimator.BoostedTreesRegressor([tf.feature_column.numeric_column("x", shape=(3,))],
                                                       n_batches_per_layer=2, n_trees=100, max_depth=3,
                                                       model_dir=model_dir, config=config)
    else:
        estimator = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    train = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, num_epochs=None, shuffle=True)
    evaluate = tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=128, shuffle=False)
    result = tf.estimator.train_and_evaluate(
        estimator, tf.estimator.TrainSpec(train, max_steps=max_steps),
        tf.estimator.EvalSpec(evaluate, steps=None, start_delay_secs=0, throttle_secs=0))
    metrics = result[0] if result else None
    print("RESULT " + json.dumps(None if metrics is None else {k: float(v) for k, v in metrics.items()}), flush=True)


def experiment_main(model_dir, max_steps):
    def experiment_fn(run_config, hparams):
        estimator = tf.estimator.Estimator(model_fn, config=run_config)
        return tf.contrib.learn.Experiment(
            estimator, tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=32, num_epochs=None, shuffle=True),
            tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=128, shuffle=False), train_steps=max_steps,
            eval_steps=None)

    config = tf.contrib.learn.RunConfig(model_dir=model_dir, save_checkpoints_steps=50, log_step_count_steps=None,
                                        tf_random_seed=1)
    result = tf.contrib.learn.learn_runner.run(experiment_fn, run_config=config)
    metrics = result[0] if isinstance(result, tuple) else None
    print("RESULT " + json.dumps(None if metrics is None else {k: float(v) for k, v in metrics.items()}), flush=True)


if __name__ == "__main__":
    main()
