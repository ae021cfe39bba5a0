import numpy as np
INPUTS = dict(x=np.array([-1.0, 0.0, 0.5, 2.0], np.float32), p=np.array([0.1, 0.5, 0.9, 0.3], np.float32))
D = "tf.distributions"
CASES = []
for dist, args in [("Normal", "loc=0.5, scale=2.0"), ("Uniform", "low=-1.5, high=2.5"), ("Laplace", "loc=0.2, scale=1.5"), ("Exponential", "rate=1.5"),
                   ("Gamma", "concentration=2.0, rate=1.5"), ("Beta", "concentration1=2.0, concentration0=3.0"), ("Bernoulli", "probs=0.3"),
                   ("Categorical", "probs=[0.2, 0.5, 0.3]"), ("Dirichlet", "concentration=[1.0, 2.0, 3.0]")]:
    d = f"{D}.{dist}({args})"
    CASES.append(f"{d}.mean()")
    CASES.append(f"{d}.variance()" if dist != "Categorical" else f"{d}.mode()")
    CASES.append(f"{d}.entropy()")
    if dist in ("Normal", "Uniform", "Laplace"):
        CASES += [f"{d}.log_prob(x)", f"{d}.cdf(x)", f"{d}.log_cdf(x)", f"{d}.survival_function(x)", f"{d}.stddev()", f"{d}.quantile(p)" if dist != "Laplace" else f"{d}.prob(x)"]
    if dist in ("Exponential", "Gamma"):
        CASES += [f"{d}.log_prob(tf.abs(x) + 0.1)", f"{d}.cdf(tf.abs(x) + 0.1)", f"{d}.mode()"]
    if dist == "Beta":
        CASES += [f"{d}.log_prob(p)", f"{d}.mode()", f"{d}.cdf(p) if hasattr({d}, 'cdf') else {d}.prob(p)"]
    if dist == "Bernoulli":
        CASES += [f"{d}.log_prob([0, 1, 1])", f"{d}.prob([1, 0])", f"{d}.logits", f"{d}.mode()"]
    if dist == "Categorical":
        CASES += [f"{d}.log_prob([0, 2, 1])", f"{d}.logits", f"{D}.Categorical(logits=[1.0, 2.0, 0.5]).probs"]
    if dist == "Dirichlet":
        CASES += [f"{d}.log_prob([0.2, 0.3, 0.5])", f"{d}.mode()"]
CASES += [f"{D}.kl_divergence({D}.Normal(0.0, 1.0), {D}.Normal(1.0, 2.0))", f"{D}.kl_divergence({D}.Bernoulli(probs=0.3), {D}.Bernoulli(probs=0.6))",
          f"{D}.kl_divergence({D}.Categorical(probs=[0.2, 0.8]), {D}.Categorical(probs=[0.5, 0.5]))", f"{D}.kl_divergence({D}.Beta(2.0, 3.0), {D}.Beta(1.0, 1.5))",
          f"{D}.kl_divergence({D}.Gamma(2.0, 1.5), {D}.Gamma(3.0, 0.5))", f"{D}.kl_divergence({D}.Dirichlet([1.0, 2.0]), {D}.Dirichlet([2.0, 2.0]))",
          f"{D}.kl_divergence({D}.Exponential(1.5), {D}.Exponential(0.5))", f"{D}.Normal([0.0, 1.0], [1.0, 2.0]).log_prob(x[:2])",
          f"{D}.Normal(loc=[[0.0], [1.0]], scale=[1.0, 2.0]).batch_shape_tensor()", f"{D}.Multinomial(5.0, probs=[0.2, 0.8]).log_prob([1.0, 4.0]) if hasattr({D}, 'Multinomial') else tf.constant(0.0)",
          f"{D}.StudentT(3.0, 0.0, 1.0).log_prob(x) if hasattr({D}, 'StudentT') else tf.constant(0.0)"]
T = f"{D}.StudentT(df=[0.8, 1.5, 3.0, 7.0], loc=0.5, scale=2.0)"
M = f"{D}.Multinomial(5.0, probs=[0.2, 0.3, 0.5])"
CASES += [f"{T}.log_prob(x)", f"{T}.cdf(x)", f"{T}.entropy()", f"{T}.mean()", f"{T}.variance()", f"{T}.mode()", f"{T}.prob(x)",
          f"{M}.log_prob([1.0, 1.0, 3.0])", f"{M}.mean()", f"{M}.variance()", f"{D}.Multinomial([3.0, 4.0], logits=[[0.1, 0.2], [0.5, -1.0]]).log_prob([[1.0, 2.0], [4.0, 0.0]])",
          f"{D}.Normal([0.0, 1.0], 2.0).quantile([0.1, 0.975])", f"{D}.Exponential(rate=1.5).mode()", f"{D}.Dirichlet([2.0, 3.0, 1.5]).mode()"]
