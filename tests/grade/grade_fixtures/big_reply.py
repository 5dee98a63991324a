"""Evil exercise 1.1: sends a 32 MB reply down the grader's pipe."""

import os
import sys


def numerical_derivative(f, x, h=1e-5):
    fd = int(sys.argv[2])
    chunk = b"[" + b"1.0, " * (2**20 // 5) + b"1.0]"
    for _ in range(32):
        os.write(fd, b'{"check": 0, "output": ' + chunk + b"}")
    os.write(fd, b"\n")
    return 0.0
