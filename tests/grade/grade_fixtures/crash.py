"""Evil exercise 1.1: the interpreter dies of a segmentation fault."""

import os
import signal


def numerical_derivative(f, x, h=1e-5):
    # The signal a wild pointer in a C extension would raise; sent directly so
    # that the crash does not depend on what the platform maps at address 0.
    os.kill(os.getpid(), signal.SIGSEGV)
