"""Evil exercise 1.1: imports the teacher's solution, first as a module, then by path."""

import sys
from pathlib import Path


def numerical_derivative(f, x, h=1e-5):
    try:
        import solutions.lesson01_derivatives as answer
    except ImportError:
        import minigrad

        sys.path.append(str(Path(minigrad.__file__).resolve().parents[1]))
        import solutions.lesson01_derivatives as answer
    return answer.numerical_derivative(f, x, h)
