"""tf.distributions against NumPy written the obvious way: densities, CDFs and entropies by
their formulas or by integrating the density on a fine grid, KL divergences likewise, and
sample moments from many (seeded) draws."""

import math

import numpy as np
import pytest

import distflow as tf

ds = tf.distributions


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def _integrate(f, lo, hi, n=200001):
    x = np.linspace(lo, hi, n)
    y = f(x)
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


CONTINUOUS = [
    # (distribution, its density in NumPy, integration range, mean, variance)
    (lambda: ds.Normal(np.float64(0.5), np.float64(1.5)),
     lambda x: np.exp(-0.5 * ((x - 0.5) / 1.5) ** 2) / (1.5 * math.sqrt(2 * math.pi)), (-12, 13), 0.5, 2.25),
    (lambda: ds.Laplace(np.float64(-1.0), np.float64(0.7)),
     lambda x: np.exp(-np.abs(x + 1.0) / 0.7) / 1.4, (-20, 18), -1.0, 2 * 0.49),
    (lambda: ds.Gamma(np.float64(2.5), np.float64(1.5)),
     lambda x: 1.5 ** 2.5 * x ** 1.5 * np.exp(-1.5 * x) / math.gamma(2.5), (1e-12, 40), 2.5 / 1.5, 2.5 / 2.25),
    (lambda: ds.Exponential(np.float64(2.0)), lambda x: 2.0 * np.exp(-2.0 * x), (0, 30), 0.5, 0.25),
    (lambda: ds.Beta(np.float64(2.0), np.float64(3.5)),
     lambda x: x * (1 - x) ** 2.5 / (math.gamma(2.0) * math.gamma(3.5) / math.gamma(5.5)), (0, 1), 2 / 5.5,
     2 * 3.5 / (5.5 ** 2 * 6.5)),
    (lambda: ds.Uniform(np.float64(-2.0), np.float64(3.0)), lambda x: np.where((x >= -2) & (x < 3), 0.2, 0.0),
     (-2, 3 - 1e-9), 0.5, 25 / 12),
    (lambda: ds.StudentT(np.float64(7.0), np.float64(0.5), np.float64(1.5)),
     lambda x: math.gamma(4.0) / (math.gamma(3.5) * math.sqrt(7 * math.pi) * 1.5)
     * (1 + ((x - 0.5) / 1.5) ** 2 / 7) ** -4.0, (-80, 81), 0.5, 2.25 * 7 / 5),
]


@pytest.mark.parametrize("make, density, bounds, mean, variance", CONTINUOUS)
def test_continuous_families_against_their_densities(make, density, bounds, mean, variance):
    dist = make()
    points = np.linspace(bounds[0] + 1e-3, min(bounds[1], bounds[0] + 6) - 1e-3, 7)
    middle = points[3]
    draws = dist.sample([40000], seed=7)
    got = _run(dist.log_prob(points), dist.entropy(), dist.mean(), dist.variance(), dist.cdf(middle), draws)
    log_prob, entropy, got_mean, got_variance, cdf, samples = got
    np.testing.assert_allclose(np.exp(log_prob), density(points), rtol=1e-9)
    with np.errstate(divide="ignore"):
        want_entropy = _integrate(lambda x: -density(x) * np.log(np.where(density(x) > 0, density(x), 1)), *bounds)
    assert entropy == pytest.approx(want_entropy, abs=2e-4)
    assert got_mean == pytest.approx(mean, rel=1e-12) and got_variance == pytest.approx(variance, rel=1e-12)
    assert cdf == pytest.approx(_integrate(density, bounds[0], middle), abs=2e-4)
    assert samples.shape == (40000,)
    assert abs(samples.mean() - mean) < 5 * math.sqrt(variance / 40000)  # (five standard errors)
    assert samples.var() == pytest.approx(variance, rel=0.05)


def test_discrete_families_and_their_shapes():
    p = np.array([0.2, 0.7])
    bernoulli = ds.Bernoulli(probs=p)
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]]))
    categorical = ds.Categorical(logits=logits)
    samples = categorical.sample([4000, 3], seed=2)
    bits = bernoulli.sample(5000, seed=3)
    got = _run(bernoulli.log_prob([1, 0]), bernoulli.entropy(), bernoulli.mean(), bernoulli.mode(),
               categorical.log_prob([[2, 0], [1, 1]]), categorical.entropy(), categorical.mode(), samples, bits)
    np.testing.assert_allclose(got[0], np.log([0.2, 0.3]), rtol=1e-6)
    np.testing.assert_allclose(got[1], -(p * np.log(p) + (1 - p) * np.log(1 - p)), rtol=1e-6)
    assert got[2].tolist() == pytest.approx([0.2, 0.7]) and got[3].tolist() == [0, 1]
    probs = np.exp(logits)
    np.testing.assert_allclose(got[4], np.log([[probs[0, 2], probs[1, 0]], [probs[0, 1], probs[1, 1]]]), rtol=1e-12)
    np.testing.assert_allclose(got[5], -(probs * np.log(probs)).sum(1), rtol=1e-12)
    assert got[6].tolist() == [1, 0] and got[7].shape == (4000, 3, 2) and got[7].dtype == np.int32
    for b in range(2):
        frequencies = np.bincount(got[7][:, :, b].ravel(), minlength=3) / 12000
        np.testing.assert_allclose(frequencies, probs[b], atol=0.02)
    assert got[8].shape == (5000, 2) and abs(got[8][:, 1].mean() - 0.7) < 0.03
    assert bernoulli.batch_shape.as_list() == [2] and categorical.batch_shape.as_list() == [2]


def test_dirichlet_moments_and_density():
    alpha = np.array([2.0, 3.0, 5.0])
    dirichlet = ds.Dirichlet(alpha)
    x = np.array([0.2, 0.3, 0.5])
    got = _run(dirichlet.log_prob(x), dirichlet.mean(), dirichlet.sample(20000, seed=4), dirichlet.entropy(),
               ds.kl_divergence(dirichlet, ds.Dirichlet(alpha)))
    norm = math.lgamma(10.0) - sum(math.lgamma(a) for a in alpha)
    assert got[0] == pytest.approx(norm + ((alpha - 1) * np.log(x)).sum(), rel=1e-12)
    np.testing.assert_allclose(got[1], alpha / 10.0)
    assert got[2].shape == (20000, 3) and np.allclose(got[2].sum(1), 1.0)
    np.testing.assert_allclose(got[2].mean(0), alpha / 10.0, atol=0.01)
    assert dirichlet.event_shape.as_list() == [3] and dirichlet.batch_shape.as_list() == [] and got[4] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("a, b, density_a, density_b, bounds", [
    (lambda: ds.Normal(np.float64(0.3), np.float64(1.2)), lambda: ds.Normal(np.float64(-0.5), np.float64(0.8)),
     lambda x: np.exp(-0.5 * ((x - 0.3) / 1.2) ** 2) / (1.2 * math.sqrt(2 * math.pi)),
     lambda x: np.exp(-0.5 * ((x + 0.5) / 0.8) ** 2) / (0.8 * math.sqrt(2 * math.pi)), (-15, 15)),
    (lambda: ds.Gamma(np.float64(3.0), np.float64(2.0)), lambda: ds.Gamma(np.float64(2.0), np.float64(1.0)),
     lambda x: 8 * x ** 2 * np.exp(-2 * x) / 2, lambda x: x * np.exp(-x), (1e-9, 60)),
    (lambda: ds.Beta(np.float64(2.0), np.float64(2.0)), lambda: ds.Beta(np.float64(3.0), np.float64(1.5)),
     lambda x: 6 * x * (1 - x), lambda x: x ** 2 * (1 - x) ** 0.5 / (math.gamma(3) * math.gamma(1.5) / math.gamma(4.5)),
     (1e-9, 1 - 1e-9)),
])
def test_kl_divergences_against_integration(a, b, density_a, density_b, bounds):
    got = _run(ds.kl_divergence(a(), b()))[0]
    want = _integrate(lambda x: density_a(x) * (np.log(density_a(x)) - np.log(density_b(x))), *bounds)
    assert got == pytest.approx(want, abs=1e-4)


def test_discrete_kl_divergences_and_the_registry():
    pa, pb = np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.4, 0.2])
    got = _run(ds.kl_divergence(ds.Categorical(probs=pa), ds.Categorical(probs=pb)),
               ds.kl_divergence(ds.Bernoulli(probs=0.3), ds.Bernoulli(probs=0.6)))
    assert got[0] == pytest.approx((pa * np.log(pa / pb)).sum(), rel=1e-6)
    assert got[1] == pytest.approx(0.3 * math.log(0.3 / 0.6) + 0.7 * math.log(0.7 / 0.4), rel=1e-6)
    with pytest.raises(NotImplementedError, match="No KLDivergence registered for Normal and Laplace"):
        ds.kl_divergence(ds.Normal(0.0, 1.0), ds.Laplace(0.0, 1.0))
    with pytest.raises(ValueError, match="already been registered"):
        ds.RegisterKL(ds.Normal, ds.Normal)(lambda a, b, name=None: None)
    with pytest.raises(ValueError, match="Must pass probs or logits, but not both"):
        ds.Bernoulli(logits=0.0, probs=0.5)


def test_multinomial_student_t_edges_quantiles_and_modes():
    counts = np.array([1.0, 1.0, 3.0])
    probs = np.array([0.2, 0.3, 0.5])
    dist = ds.Multinomial(np.float64(5.0), probs=probs)
    t = ds.StudentT(np.array([0.8, 1.5, 3.0]), 0.0, 2.0)
    got = _run(dist.log_prob(counts), dist.mean(), dist.variance(), dist.sample([3000], seed=3),
               t.mean(), t.variance(), ds.Normal(np.float64(1.0), np.float64(2.0)).quantile([0.1, 0.5, 0.975]),
               ds.Exponential(np.float64(1.5)).mode(), ds.Dirichlet(np.array([2.0, 3.0, 1.0])).mode())
    want = math.lgamma(6) - sum(math.lgamma(c + 1) for c in counts) + float((counts * np.log(probs)).sum())
    assert got[0] == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(got[1], 5 * probs, rtol=1e-12)
    np.testing.assert_allclose(got[2], 5 * probs * (1 - probs), rtol=1e-12)
    draws = got[3]
    assert draws.shape == (3000, 3) and (draws.sum(1) == 5).all()
    assert np.abs(draws.mean(0) - 5 * probs).max() < 5 * math.sqrt(5 * 0.25 / 3000)
    # (TF's allow_nan_stats: no mean at df <= 1, an infinite variance for 1 < df <= 2)
    assert np.isnan(got[4][0]) and got[4][1:].tolist() == [0.0, 0.0]
    assert np.isnan(got[5][0]) and got[5][1] == np.inf and got[5][2] == pytest.approx(4.0 * 3.0, rel=1e-12)
    np.testing.assert_allclose(got[6], [1.0 - 2.0 * 1.2815515655446004, 1.0, 1.0 + 2.0 * 1.959963984540054],
                               rtol=1e-12)
    assert np.isnan(got[7]) and np.isnan(got[8]).all()  # (a mode only where every concentration exceeds 1)


def test_the_dirichlet_multinomial_against_its_formulas_and_its_draws():
    alpha, n = np.array([1.0, 2.0, 3.0]), 5.0
    counts = np.array([1.0, 2.0, 2.0])
    lbeta = lambda a: sum(math.lgamma(v) for v in a) - math.lgamma(sum(a))  # noqa: E731
    want = (lbeta(alpha + counts) - lbeta(alpha) + math.lgamma(n + 1)
            - sum(math.lgamma(c + 1) for c in counts))
    p = alpha / alpha.sum()
    covariance = n * (n + alpha.sum()) / (1 + alpha.sum()) * (np.diag(p) - np.outer(p, p))
    with tf.Graph().as_default(), tf.Session() as sess:
        d = tf.distributions.DirichletMultinomial(n, alpha)
        draws, log_prob, mean, cov = sess.run([d.sample(20000, seed=3), d.log_prob(counts), d.mean(),
                                               d.covariance()])
        assert d.event_shape.as_list() == [3] and d.batch_shape.as_list() == []
        multinomial = tf.distributions.Multinomial(n, probs=p)
        np.testing.assert_allclose(sess.run(multinomial.covariance()), n * (np.diag(p) - np.outer(p, p)))
        dirichlet = tf.distributions.Dirichlet(alpha)
        np.testing.assert_allclose(sess.run(dirichlet.covariance()), (np.diag(p) - np.outer(p, p)) / 7.0)
    np.testing.assert_allclose(log_prob, want, rtol=1e-6)
    np.testing.assert_allclose(mean, n * p, rtol=1e-6)
    np.testing.assert_allclose(cov, covariance, rtol=1e-6)
    assert np.all(draws.sum(-1) == n)
    np.testing.assert_allclose(draws.mean(0), n * p, atol=0.05)  # (20000 draws of a seeded sampler)
    np.testing.assert_allclose(np.cov(draws.T), covariance, atol=0.1)


def test_a_bijector_gives_the_other_direction_and_log_determinant_from_one():
    class Exp(tf.distributions.bijectors.Bijector):
        def __init__(self):
            super().__init__(event_ndims=0, name="exp")

        def _forward(self, x):
            return tf.exp(x)

        def _inverse(self, y):
            return tf.log(y)

        def _inverse_log_det_jacobian(self, y):
            return -tf.log(y)

    x = np.array([0.5, -1.0, 2.0])
    with tf.Graph().as_default(), tf.Session() as sess:
        exp = Exp()
        y = exp.forward(x)
        assert sess.run(exp.inverse(y)).tolist() == x.tolist()  # (forward's own input: no round trip)
        np.testing.assert_allclose(sess.run(exp.inverse(np.exp(x))), x)
        np.testing.assert_allclose(sess.run(exp.forward_log_det_jacobian(x)), x)  # (from the inverse's)
        np.testing.assert_allclose(sess.run(exp.inverse_log_det_jacobian(np.exp(x))), -x)
        identity = tf.distributions.bijectors.Identity()
        assert sess.run(identity.forward_log_det_jacobian(x)) == 0.0 and identity.is_constant_jacobian
        assert identity.forward_event_shape([2, 3]).as_list() == [2, 3]
