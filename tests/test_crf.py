"""tf.contrib.crf against NumPy written the obvious way: every tag sequence enumerated for
the normalizer and the best path; gradients of the log-likelihood by float64 central
differences."""

import itertools

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.RandomState(5)
NUM_TAGS = 3


def _score(unary, tags, transitions):
    return sum(unary[t, tag] for t, tag in enumerate(tags)) + sum(
        transitions[a, b] for a, b in zip(tags[:-1], tags[1:]))


def _brute(unary, length, transitions):
    """(log of the sum over every tag sequence of exp(score), the best sequence, its score)."""
    if length == 0:
        return 0.0, None, None
    sequences = list(itertools.product(range(NUM_TAGS), repeat=length))
    scores = np.array([_score(unary[:length], s, transitions) for s in sequences])
    top = scores.max()
    return top + np.log(np.exp(scores - top).sum()), list(sequences[int(scores.argmax())]), top


def test_log_likelihood_and_decoding_against_enumeration():
    inputs = RNG.randn(4, 5, NUM_TAGS)
    lengths = np.array([5, 3, 1, 0])
    tags = RNG.randint(0, NUM_TAGS, size=(4, 5))
    transitions = RNG.randn(NUM_TAGS, NUM_TAGS)
    log_likelihood, params = tf.contrib.crf.crf_log_likelihood(tf.constant(inputs), tf.constant(tags),
                                                               tf.constant(lengths), tf.constant(transitions))
    decoded, best = tf.contrib.crf.crf_decode(tf.constant(inputs), tf.constant(transitions), tf.constant(lengths))
    with tf.Session() as sess:
        got, got_tags, got_best = sess.run([log_likelihood, decoded, best])
    for b, length in enumerate(lengths):
        log_norm, path, top = _brute(inputs[b], length, transitions)
        score = _score(inputs[b, :length], tags[b, :length], transitions) if length else 0.0
        assert got[b] == pytest.approx(score - log_norm, rel=1e-10, abs=1e-12)
        if length:
            assert got_tags[b, :length].tolist() == path and got_best[b] == pytest.approx(top, rel=1e-12)
            assert np.all(got_tags[b, length:] == 0)
            viterbi, viterbi_score = tf.contrib.crf.viterbi_decode(inputs[b, :length], transitions)
            assert viterbi == path and viterbi_score == pytest.approx(top)
    assert got_tags[3, 0] == inputs[3, 0].argmax()  # (an empty sequence: the first position's best, as TF)


def test_one_step_sequences_and_a_transitions_variable():
    inputs = tf.constant(RNG.randn(2, 1, NUM_TAGS))
    log_likelihood, transitions = tf.contrib.crf.crf_log_likelihood(inputs, tf.constant([[1], [2]]),
                                                                    tf.constant([1, 1]))
    assert transitions.op.name == "transitions" and transitions.shape.as_list() == [NUM_TAGS, NUM_TAGS]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, x = sess.run([log_likelihood, inputs])
    for b, tag in enumerate([1, 2]):
        assert got[b] == pytest.approx(x[b, 0, tag] - np.log(np.exp(x[b, 0]).sum()))


def test_log_likelihood_gradients_against_central_differences():
    tags = RNG.randint(0, NUM_TAGS, size=(2, 4))
    check_gradients(lambda x, t: tf.contrib.crf.crf_log_likelihood(x, tf.constant(tags), tf.constant([4, 2]), t)[0],
                    [RNG.randn(2, 4, NUM_TAGS), RNG.randn(NUM_TAGS, NUM_TAGS)])


def test_training_a_tagger_raises_the_likelihood_of_the_true_tags():
    x = tf.constant(RNG.randn(8, 6, 4))
    tags = tf.constant(RNG.randint(0, NUM_TAGS, size=(8, 6)))
    lengths = tf.constant([6, 5, 4, 6, 3, 2, 6, 1])
    logits = tf.layers.dense(x, NUM_TAGS)
    log_likelihood, transitions = tf.contrib.crf.crf_log_likelihood(logits, tags, lengths)
    loss = -tf.reduce_mean(log_likelihood)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train)
        assert sess.run(loss) < 0.7 * first
