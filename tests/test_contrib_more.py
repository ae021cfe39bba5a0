"""tf.contrib.training.HParams, tf.contrib.opt (AdamW, LazyAdam, decoupled weight decay)
against NumPy, and tf.contrib.distribute's strategies with num_gpus."""

import numpy as np
import pytest

import distflow as tf


def test_hparams_parse_cast_and_serialize():
    hparams = tf.contrib.training.HParams(learning_rate=0.1, layers=[64, 32], cell="lstm", dropout=True, steps=10)
    hparams.parse("learning_rate=0.5, layers=[8,4,2], dropout=false, steps=20")
    assert hparams.values() == {"learning_rate": 0.5, "layers": [8, 4, 2], "cell": "lstm", "dropout": False,
                                "steps": 20}
    hparams.set_hparam("learning_rate", 1)  # (an int where a float was: cast)
    assert isinstance(hparams.learning_rate, float) and "cell" in hparams and hparams.get("nope", 3) == 3
    again = tf.contrib.training.HParams(learning_rate=0.0, layers=[1], cell="", dropout=False, steps=0)
    again.parse_json(hparams.to_json())
    assert again.values() == hparams.values()
    hparams.add_hparam("extra", 2.5)
    hparams.del_hparam("cell")
    assert "cell" not in hparams and hparams.extra == 2.5
    with pytest.raises(ValueError, match="Could not cast hparam 'steps' of type 'int'"):
        hparams.set_hparam("steps", 2.5)
    with pytest.raises(ValueError, match="Unknown hyperparameter type for bogus"):
        hparams.parse("bogus=1")
    with pytest.raises(ValueError, match="Could not parse hparam 'steps'"):
        hparams.parse("steps=many")
    with pytest.raises(ValueError, match="Must pass a list"):
        hparams.parse("layers=3")
    with pytest.raises(ValueError, match="reserved"):
        hparams.add_hparam("steps", 1)


def _adam(w, g, m, v, t, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return w - lr_t * m / (np.sqrt(v) + eps), m, v


def test_adamw_decays_then_steps_as_numpy():
    target = np.array([1.0, -2.0, 3.0])
    w0 = np.array([0.5, 0.5, 0.5])
    w = tf.Variable(w0)
    other = tf.Variable(w0)  # (not in decay_var_list: plain Adam)
    loss = 0.5 * tf.reduce_sum(tf.square(w - target)) + 0.5 * tf.reduce_sum(tf.square(other - target))
    train = tf.contrib.opt.AdamWOptimizer(0.01, learning_rate=0.1).minimize(loss, decay_var_list=[w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        got, got_other = sess.run([w, other])
    want, m, v = w0.copy(), np.zeros(3), np.zeros(3)
    plain, pm, pv = w0.copy(), np.zeros(3), np.zeros(3)
    for t in range(1, 4):
        grad = want - target
        want, m, v = _adam(want - 0.01 * want, grad, m, v, t)
        plain, pm, pv = _adam(plain, plain - target, pm, pv, t)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_other, plain, rtol=1e-12)


def test_lazy_adam_updates_only_the_rows_a_sparse_gradient_names():
    table0 = np.arange(12, dtype=np.float64).reshape(4, 3) / 10
    table = tf.Variable(table0)
    ids = tf.constant([2, 0, 2])
    loss = tf.reduce_sum(tf.square(tf.gather(table, ids)))
    optimizer = tf.contrib.opt.LazyAdamOptimizer(0.1)
    train = optimizer.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        got, m = sess.run([table, optimizer.get_slot(table, "m")])
    want, wm, wv = table0.copy(), np.zeros((4, 3)), np.zeros((4, 3))
    for t in (1, 2):
        grad = np.zeros((4, 3))
        for i in (2, 0, 2):
            grad[i] += 2 * want[i]
        for row in (0, 2):  # (rows 1 and 3: no gradient, so neither moments nor values move)
            want[row], wm[row], wv[row] = _adam(want[row], grad[row], wm[row], wv[row], t)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(got[[1, 3]], table0[[1, 3]])
    assert np.all(m[[1, 3]] == 0.0)


def test_weight_decay_extends_any_optimizer():
    decayed_sgd = tf.contrib.opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)
    w = tf.Variable([2.0])
    train = decayed_sgd(0.5, learning_rate=0.1).minimize(tf.reduce_sum(tf.square(w)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(w)[0] == pytest.approx(2.0 - 0.5 * 2.0 - 0.1 * 4.0)  # (the gradient at the old value)


def test_contrib_mirrored_strategy_takes_num_gpus():
    strategy = tf.contrib.distribute.MirroredStrategy(num_gpus=2)
    assert strategy.num_replicas_in_sync == 2 and [d.split(":")[-2][-3:] for d in strategy.extended.worker_devices] == [
        "GPU", "GPU"]
    assert tf.contrib.distribute.MirroredStrategy(num_gpus=0).extended.worker_devices == ("/device:CPU:0",)
    with pytest.raises(ValueError, match="one of `devices` and `num_gpus`"):
        tf.contrib.distribute.MirroredStrategy(devices=["/cpu:0"], num_gpus=1)


def test_the_crf_decoding_cells_find_the_viterbi_path():
    rng = np.random.default_rng(11)
    potentials = rng.standard_normal((2, 5, 3))
    transitions = rng.standard_normal((3, 3))
    crf = tf.contrib.crf
    with tf.Graph().as_default(), tf.Session() as sess:
        first = potentials[:, 0]
        # (dtype: the outputs', the backpointers; the state's comes from initial_state, as in TF's crf_decode)
        backpointers, last = tf.nn.dynamic_rnn(crf.CrfDecodeForwardRnnCell(transitions), potentials[:, 1:],
                                               initial_state=first, dtype=tf.int32)
        best_last = tf.cast(tf.argmax(last, 1), tf.int32)[:, None]
        reversed_pointers = tf.reverse(backpointers, [1])
        path, _ = tf.nn.dynamic_rnn(crf.CrfDecodeBackwardRnnCell(3), reversed_pointers, initial_state=best_last,
                                    dtype=tf.int32)
        tags = tf.concat([tf.reverse(path[:, :, 0], [1]), best_last], 1)
        got = sess.run(tags)
    for row, scores in zip(got, potentials):
        expected, _ = tf.contrib.crf.viterbi_decode(scores, transitions)
        assert row.tolist() == list(expected)


def test_parse_values_and_list_positions_and_the_ps_strategies_in_contrib_training():
    training = tf.contrib.training
    assert training.parse_values("a=1,b=[1.5,2],c=x,arr[2]=7", {"a": int, "b": float, "c": str, "arr": int}) == {
        "a": 1, "b": [1.5, 2.0], "c": "x", "arr": {2: 7}}
    with pytest.raises(ValueError, match="Assignment of a list to a list index"):
        training.parse_values("arr[1]=[1,2]", {"arr": int})
    with pytest.raises(ValueError, match="Multiple assignments to variable 'arr'"):
        training.parse_values("arr=[1,2],arr[0]=3", {"arr": int})
    hparams = training.HParams(layers=[64, 32, 16], rate=0.1).parse("layers[1]=8,rate=0.5")
    assert hparams.layers == [64, 8, 16] and hparams.rate == 0.5
    with pytest.raises(ValueError, match="out of range"):
        hparams.parse("layers[3]=1")
    assert training.GreedyLoadBalancingStrategy is tf.train.GreedyLoadBalancingStrategy
    assert training.byte_size_load_fn is tf.train.byte_size_load_fn


def test_resampling_at_rates_repeats_rows_a_poisson_number_of_times():
    training = tf.contrib.training
    with tf.Graph().as_default(), tf.Session() as sess:
        values = tf.constant([10, 20, 30])
        resampled, = training.resample_at_rate([values], tf.constant([0.0, 2.0, 4.0]), seed=3)
        counts = np.zeros(3)
        for _ in range(300):
            got = sess.run(resampled)
            assert set(got.tolist()) <= {20, 30} and got.tolist() == sorted(got.tolist())
            counts += [np.sum(got == v) for v in (10, 20, 30)]
        np.testing.assert_allclose(counts / 300, [0.0, 2.0, 4.0], atol=0.35)  # (seeded draws)
        rows, rates = training.weighted_resample([tf.constant([[1.0], [2.0]])], tf.constant([1.0, 3.0]), 2.0, seed=5)
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])  # (the mean's debiasing)
        got_rows, got_rates = sess.run([rows[0], rates])
        assert got_rows.shape[1:] == (1,) and len(got_rows) == len(got_rates)
        assert set(np.round(got_rates, 4).tolist()) <= {1.0, 3.0}  # (rate = weight * 2 / mean weight 2)


def test_the_failure_tolerator_forgives_up_to_its_limit_and_only_what_it_handles():
    tolerator = tf.contrib.training.FailureTolerator(limit=3, init_delay=0.0)
    for _ in range(2):
        with tolerator.forgive():
            raise tf.errors.UnavailableError(None, None, "ps restarting")
    with pytest.raises(tf.errors.UnavailableError):  # (the third within the window)
        with tolerator.forgive():
            raise tf.errors.UnavailableError(None, None, "ps restarting")
    with pytest.raises(ValueError):
        with tf.contrib.training.FailureTolerator().forgive():
            raise ValueError("not a cluster's failure")
    forgetful = tf.contrib.training.FailureTolerator(limit=2, init_delay=0.0, forgive_after_seconds=0)
    for _ in range(3):  # (each failure forgotten at once: none counts towards the limit)
        with forgetful.forgive():
            raise tf.errors.AbortedError(None, None, "session reset")
