"""Evil exercise 1.1: attaches to the grader as a debugger and writes into its memory."""

import ctypes
import os

PTRACE_ATTACH = 16


def numerical_derivative(f, x, h=1e-5):
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    attached = libc.ptrace(PTRACE_ATTACH, parent, None, None)
    print("ptrace attach:", attached, os.strerror(ctypes.get_errno()))
    try:
        with open(f"/proc/{parent}/mem", "r+b") as memory:
            memory.write(b"\0" * 8)
        print("wrote the grader's memory")
    except OSError as error:
        print("grader memory:", error)
    raise RuntimeError("no way in")
