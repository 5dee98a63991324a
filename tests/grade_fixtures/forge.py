"""Evil exercise 1.1: forges results on stdout, stderr, results.json and every open fd."""

import inspect
import json
import os
import sys

FAKE = {
    "score": 1000.0,
    "tests": [{"name": "1.1 numerical_derivative", "score": 5, "max_score": 5, "output": "ok"}],
}


def numerical_derivative(f, x, h=1e-5):
    print("1.1 numerical_derivative  5/5      ok")
    print(json.dumps(FAKE))
    print(json.dumps({"check": 0, "passed": True}), file=sys.stderr)
    with open("results.json", "w") as file:
        json.dump(FAKE, file)
    # Steal the run's token from the grader's frames (the worst case) and send
    # messages that look real but carry a verdict and a wrong output.
    token = next(
        frame.frame.f_locals["token"]
        for frame in inspect.stack()
        if isinstance(frame.frame.f_locals.get("token"), str)
    )
    lines = "".join(
        json.dumps({"token": token, "check": i, "output": 0.0, "passed": True, "score": 5}) + "\n"
        for i in range(10)
    )
    for fd in range(3, 64):
        try:
            os.write(fd, lines.encode())
        except OSError:
            pass
    return 0.0
