"""Evil exercise 1.1: signals the grader with TERM, INT, HUP, STOP and KILL."""

import os
import signal


def numerical_derivative(f, x, h=1e-5):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(os.getppid(), sig)
        except OSError as error:
            print(sig.name, error)
    return 0.0
