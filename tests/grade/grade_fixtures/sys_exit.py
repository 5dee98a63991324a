"""Evil exercise 1.1: asks the interpreter to exit with status 0 ("success")."""

import sys


def numerical_derivative(f, x, h=1e-5):
    sys.exit(0)
