"""Evil exercise 1.1: a double-forked, setsid() process outlives the exercise and
rewrites results.json after the grader wrote it."""

import os
import time


def numerical_derivative(f, x, h=1e-5):
    target = os.environ.get("MINIGRAD_TEST_RESULTS", "results.json")
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3)
            with open(target, "w") as file:
                file.write('{"score": 1000}')
        os._exit(0)
    raise RuntimeError("escaped")
