"""Evil exercise 1.1: ends the process at once, skipping every cleanup."""

import os


def numerical_derivative(f, x, h=1e-5):
    os._exit(0)
