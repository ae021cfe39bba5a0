"""tf.contrib.losses.metric_learning against NumPy written the obvious way (a loop over the
pairs and triplets), and its gradients by float64 central differences."""

import numpy as np
import pytest

import distflow as tf

ml = tf.contrib.losses.metric_learning


def distances(x):
    return np.array([[np.sum((a - b) ** 2) for b in x] for a in x])


def triplet_oracle(labels, x, margin):
    d = distances(x)
    total, pairs = 0.0, 0
    for a in range(len(x)):
        negatives = [n for n in range(len(x)) if labels[n] != labels[a]]
        for p in range(len(x)):
            if p == a or labels[p] != labels[a]:
                continue
            pairs += 1
            farther = [d[a, n] for n in negatives if d[a, n] > d[a, p]]
            if farther:
                semi = min(farther)
            elif negatives:
                semi = max(d[a, n] for n in negatives)
            else:
                semi = min(d[a])  # (no negative at all: TF's masked maximum gives the row's minimum)
            total += max(margin + d[a, p] - semi, 0.0)
    return total / pairs


def lifted_oracle(labels, x, margin):
    d = np.sqrt(distances(x))
    total, pairs = 0.0, 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            if labels[i] != labels[j]:
                continue
            pairs += 1
            terms = [margin - d[i, k] for k in range(n) if labels[k] != labels[i]] + \
                    [margin - d[j, k] for k in range(n) if labels[k] != labels[j]]
            value = np.log(np.sum(np.exp(terms))) + d[i, j]
            total += max(value, 0.0) ** 2
    return total / (2 * pairs)


def npairs_oracle(labels, anchors, positives, reg_lambda):
    sim = anchors @ positives.T
    loss = 0.0
    for i in range(len(anchors)):
        same = np.array([labels[j] == labels[i] for j in range(len(anchors))], float)
        target = same / same.sum()
        log_softmax = sim[i] - np.log(np.sum(np.exp(sim[i])))
        loss -= np.sum(target * log_softmax)
    reg = np.mean(np.sum(anchors ** 2, 1)) + np.mean(np.sum(positives ** 2, 1))
    return loss / len(anchors) + 0.25 * reg_lambda * reg


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_losses_against_numpy(seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 3, 10)
    x = rng.randn(10, 4)
    anchors, positives = rng.randn(6, 3), rng.randn(6, 3)
    pair_labels = rng.randint(0, 2, 6)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(ml.pairwise_distance(tf.constant(x))), np.sqrt(distances(x)), atol=1e-7)
        np.testing.assert_allclose(sess.run(ml.pairwise_distance(tf.constant(x), squared=True)), distances(x),
                                   atol=1e-7)
        for margin in (0.5, 4.0):
            np.testing.assert_allclose(sess.run(ml.triplet_semihard_loss(labels, tf.constant(x), margin)),
                                       triplet_oracle(labels, x, margin), rtol=1e-7)
            np.testing.assert_allclose(sess.run(ml.lifted_struct_loss(labels, tf.constant(x), margin)),
                                       lifted_oracle(labels, x, margin), rtol=1e-7)
        np.testing.assert_allclose(
            sess.run(ml.npairs_loss(pair_labels, tf.constant(anchors), tf.constant(positives))),
            npairs_oracle(pair_labels, anchors, positives, 0.002), rtol=1e-7)
        d = np.sqrt(np.sum((anchors - positives) ** 2, 1))
        np.testing.assert_allclose(
            sess.run(ml.contrastive_loss(pair_labels, tf.constant(anchors), tf.constant(positives), 2.0)),
            np.mean(pair_labels * d ** 2 + (1 - pair_labels) * np.maximum(2.0 - d, 0) ** 2), rtol=1e-6)


def test_triplet_and_lifted_gradients_by_central_differences():
    rng = np.random.RandomState(3)
    labels = np.array([0, 0, 1, 1, 2, 2, 0])
    value = rng.randn(7, 3)
    x = tf.constant(value)
    with tf.Session():
        for loss in (ml.triplet_semihard_loss(labels, x, 1.0), ml.lifted_struct_loss(labels, x, 1.0)):
            assert tf.test.compute_gradient_error(x, [7, 3], loss, [], x_init_value=value, delta=1e-6) < 1e-6
