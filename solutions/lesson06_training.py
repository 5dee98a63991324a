"""Lesson 06 exercises: a loss with its gradient, and an optimizer step.

Grade them with ``python -m minigrad.grade --exercise 6``.
"""

import numpy as np


def cross_entropy(logits: np.ndarray, labels: np.ndarray) -> tuple[float, np.ndarray]:
    """Exercise 6.1: mean softmax cross-entropy and its gradient with respect to the logits.

    ``logits`` is ``(N, C)``; ``labels`` holds N integer classes in ``[0, C)``.
    Return ``(loss, grad)`` where ``loss`` is the mean over rows of
    ``logsumexp(row) - row[label]`` (a float), and ``grad`` (shape ``(N, C)``)
    is its gradient: ``(softmax(row) - onehot(label)) / N``. Logits of size
    1000 must give finite, exact results: never exponentiate a large number.

    >>> loss, grad = cross_entropy(np.zeros((2, 4)), np.array([0, 3]))
    >>> round(loss, 6), grad[0].tolist()
    (1.386294, [-0.375, 0.125, 0.125, 0.125])

    Hint (lesson 06): subtract each row's max before exp (the softmax does not change);
    logsumexp = max + log(sum(exp(row - max))).
    """
    # BEGIN SOLUTION
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    log_probs = shifted - log_norm
    rows = np.arange(n)
    loss = -log_probs[rows, labels].mean()
    grad = np.exp(log_probs)
    grad[rows, labels] -= 1.0
    return float(loss), grad / n
    # END SOLUTION


def sgd_momentum_step(
    params: list[np.ndarray],
    grads: list[np.ndarray],
    velocities: list[np.ndarray],
    lr: float,
    momentum: float,
) -> None:
    """Exercise 6.2: one step of SGD with momentum, in place, as ``torch.optim.SGD`` does it.

    For each parameter ``p`` with gradient ``g`` and velocity ``v`` (zeros
    before the first step): ``v = momentum * v + g``, then ``p = p - lr * v``.
    Update the arrays in ``params`` and ``velocities`` in place (the caller
    keeps the same array objects) and return None.

    >>> p, v = [np.ones(2)], [np.zeros(2)]
    >>> sgd_momentum_step(p, [np.ones(2)], v, lr=0.1, momentum=0.9); p[0].tolist()
    [0.9, 0.9]

    Hint (lesson 06): in-place updates are slice assignments or augmented operators:
    v *= momentum; v += g; p -= lr * v.
    """
    # BEGIN SOLUTION
    for p, g, v in zip(params, grads, velocities):
        v *= momentum
        v += g
        p -= lr * v
    # END SOLUTION
