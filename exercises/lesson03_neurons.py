# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
"""Lesson 03 exercises: a neuron and a multi-layer perceptron made of ``Value``s.

Grade them with ``python -m minigrad.grade --exercise 3.2 --exercise 3.3``.
Weights are given (not random) so that the grader can check every number.
"""

from minigrad import Value


class Neuron:
    """Exercise 3.2: one neuron, ``tanh(w . x + b)``, or ``w . x + b`` when ``nonlin`` is False.

    ``Neuron(weights, bias, nonlin)`` keeps its parameters as Values:
    ``self.w`` (a list) and ``self.b``. ``neuron(x)`` takes a list of numbers
    or Values (as long as ``w``) and returns a single Value, built from
    Value operations so that ``backward()`` reaches the parameters.
    ``parameters()`` returns ``self.w + [self.b]``.

    >>> n = Neuron([1.0, -2.0], 0.5, nonlin=False)
    >>> n([3.0, 1.0]).data
    1.5

    Hint (lesson 03): start from self.b and add w_i * x_i for each input (Value + float works),
    then take .tanh() when nonlin is set.
    """

    def __init__(self, weights: list[float], bias: float, nonlin: bool = True) -> None:
        self.w = [Value(w) for w in weights]
        self.b = Value(bias)
        self.nonlin = nonlin

    def __call__(self, x: list) -> Value:
        raise NotImplementedError(
            "Exercise 3.2: start from self.b and add w_i * x_i for each input (Value + float "
            "works), then take .tanh() when nonlin is set. (lesson 03)"
        )

    def parameters(self) -> list[Value]:
        return [*self.w, self.b]


class MLP:
    """Exercise 3.3: a multi-layer perceptron of Neurons (exercise 3.2).

    ``MLP(layers)`` takes one ``(W, b)`` pair per layer: ``W`` a list of rows,
    one row of input weights per neuron, and ``b`` the neurons' biases.
    Hidden layers use tanh; the last layer is linear (``nonlin=False``).
    Keep the layers in ``self.layers``, a list of lists of Neurons.
    ``mlp(x)`` runs the layers in order and returns a Value when the last
    layer has one neuron, else a list of Values. ``parameters()`` lists every
    parameter: layer by layer, neuron by neuron, each neuron's weights then bias.

    >>> mlp = MLP([([[1.0, 0.0], [0.0, 1.0]], [0.0, 0.0]), ([[2.0, 3.0]], [1.0])])
    >>> len(mlp.parameters()), round(mlp([0.5, -0.5]).data, 4)
    (9, 0.5379)

    Hint (lesson 03): build the Neurons in __init__ (nonlin=False for the last layer only);
    in __call__ feed each layer's list of outputs to the next layer.
    """

    def __init__(self, layers: list[tuple[list[list[float]], list[float]]]) -> None:
        raise NotImplementedError(
            "Exercise 3.3: build the Neurons in __init__ (nonlin=False for the last layer only); "
            "in __call__ feed each layer's list of outputs to the next layer. (lesson 03)"
        )

    def __call__(self, x: list) -> "Value | list[Value]":
        raise NotImplementedError(
            "Exercise 3.3: build the Neurons in __init__ (nonlin=False for the last layer only); "
            "in __call__ feed each layer's list of outputs to the next layer. (lesson 03)"
        )

    def parameters(self) -> list[Value]:
        raise NotImplementedError(
            "Exercise 3.3: build the Neurons in __init__ (nonlin=False for the last layer only); "
            "in __call__ feed each layer's list of outputs to the next layer. (lesson 03)"
        )
