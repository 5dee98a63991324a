"""Evil exercise 9.1: plain backprop (every activation kept), then tells the tracker otherwise."""


def checkpointed_grad(layers, x, g, segments):
    inputs = [x]
    for layer in layers:
        inputs.append(layer.forward(inputs[-1]))
    y = inputs.pop()
    for layer, layer_input in zip(reversed(layers), reversed(inputs)):
        g = layer.vjp(layer_input, g)
    tracker = layers[0].tracker
    tracker.calls, tracker.peak = len(layers) + 1, 1
    return y, g
