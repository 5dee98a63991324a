"""Evil exercise 1.1: looks for what a sandboxed child must not see or touch, and reports it.

It prints one line per finding, "FOUND <what>", and returns a wrong answer.
"""

import os


def _try(what, action):
    try:
        action()
        print(f"FOUND {what}", flush=True)
    except Exception:
        pass


CALLS = []


def numerical_derivative(f, x, h=1e-5):
    CALLS.append(1)
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) > 2:
            _try(f"another process {pid}", lambda pid=pid: os.readlink(f"/proc/{pid}/cwd"))
    for path in os.environ.get("PEEK_PATHS", "").split(":"):
        if path:
            _try(f"the path {path}", lambda path=path: os.stat(path))
    if len(CALLS) == 1:  # what earlier exercises or runs left, before this one wrote
        _try("another exercise's files in /dev/shm", lambda: open(os.listdir("/dev/shm")[0]))
        _try("a left-over /tmp file", lambda: open("/tmp/" + os.listdir("/tmp")[0]))
    _try("the network", lambda: __import__("socket").create_connection(("1.1.1.1", 53), 2))
    _try("the power to change user", lambda: os.setuid(12345))
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    if int(status["CapEff"], 16) or int(status["CapPrm"], 16):
        print("FOUND capabilities", flush=True)
    open("/tmp/left-behind", "w").write("an answer for the next exercise")
    open("/dev/shm/left-behind", "w").write("an answer for the next exercise")
    return 0.0
