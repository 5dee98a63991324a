"""Evil exercise 1.1: prints terminal control sequences (clear screen, title, fake scores)."""


def numerical_derivative(f, x, h=1e-5):
    print("\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[32m1.1 numerical_derivative  5/5 ok\x1b[0m\r\x08")
    return 0.0
