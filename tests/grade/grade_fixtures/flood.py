"""Evil exercise 1.1: prints without end (the grader must keep only a tail)."""

import sys


def numerical_derivative(f, x, h=1e-5):
    line = "1.1 numerical_derivative  5/5      ok\n" * 1000
    while True:
        sys.stdout.write(line)
