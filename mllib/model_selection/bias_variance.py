"""Bootstrap estimate of the bias / variance decomposition on a fixed evaluation set.

Rule: model bias and variance cannot be measured without the true distribution (D4:419-469), so
this is an *estimate*: refit on bootstrap resamples of the training rows and look at how the
predictions on fixed evaluation rows move. Squared loss: expected loss = (bias^2 + noise) + variance
exactly (the noise cannot be separated from the bias without the true function). 0-1 loss
(Domingos 2000): main prediction = most frequent label; bias = error of the main prediction;
variance = how often a round disagrees with the main prediction (no additive identity).

Sections cited: Ghent ML notes (seed 004): 3.2 Bias and Variance (419)"""

from __future__ import annotations

import numpy as np

from mllib.base import check_int, check_random_state, clone

__all__ = ["bias_variance_estimate"]


def bias_variance_estimate(
    estimator, X_train, y_train, X_eval, y_eval, n_rounds=50, loss="squared", random_state=None
) -> dict:
    """Returns {"loss", "expected_loss", "bias", "variance", "n_rounds"} averaged over the evaluation rows.

    squared: bias = mean((mean prediction - y)^2) (includes the noise), variance = mean over rows of the
    variance over rounds (ddof=0), expected_loss = bias + variance. zero_one: see the module docstring.
    """
    if loss not in ("squared", "zero_one"):
        raise ValueError(f"loss must be 'squared' or 'zero_one', got {loss!r}")
    check_int(n_rounds, "n_rounds", 2)
    X_train, y_train = np.asarray(X_train), np.asarray(y_train)
    X_eval, y_eval = np.asarray(X_eval), np.asarray(y_eval)
    n = y_train.shape[0]
    rng = check_random_state(random_state)
    preds = []
    for _ in range(n_rounds):
        idx = rng.integers(0, n, size=n)
        preds.append(np.asarray(clone(estimator).fit(X_train[idx], y_train[idx]).predict(X_eval)))
    P = np.stack(preds)  # (n_rounds, n_eval)
    if loss == "squared":
        P = P.astype(np.float64)
        y = y_eval.astype(np.float64)
        bias = float(((P.mean(0) - y) ** 2).mean())
        variance = float(P.var(0).mean())
        expected = float(((P - y) ** 2).mean())
    else:
        labels, codes = np.unique(P, return_inverse=True)
        codes = codes.reshape(P.shape)
        counts = np.stack([(codes == c).sum(0) for c in range(labels.size)])
        main = labels[np.argmax(counts, axis=0)]  # ties -> the smallest label
        bias = float((main != y_eval).mean())
        variance = float((P != main[None]).mean())
        expected = float((P != y_eval[None]).mean())
    return {"loss": loss, "expected_loss": expected, "bias": bias, "variance": variance, "n_rounds": int(n_rounds)}
