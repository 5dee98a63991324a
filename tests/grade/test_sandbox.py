"""The grader fails closed, isolates each run and each exercise, treats a submission as
data, and holds its source rules (issue 20).

Tests that hand the grader hostile code take the ``sandboxed`` fixture
(``conftest.py``). The last tests run part of this suite twice at once, and
again as a normal user, and check that the machine is left as it was.
"""

import hashlib
import io
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import redirect_stderr
from pathlib import Path

import pytest
from test_grade import _evil_folder

from minigrad.grade import grade, runner, sandbox, select
from minigrad.grade.__main__ import main
from minigrad.grade.sandbox import UIDS, Limits, SandboxError

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
FIXTURES = Path(__file__).parent / "grade_fixtures"
AS_ROOT = os.geteuid() == 0


def _scores(report) -> dict:
    return {r.exercise.number: (r.score, r.max_score) for r in report.exercises}


def _submission(tmp_path: Path, fixture: str = "") -> Path:
    folder = _evil_folder(tmp_path, fixture)
    folder.chmod(0o755)
    return folder


def _honest(tmp_path: Path) -> Path:
    folder = tmp_path / "submission"
    shutil.copytree(SOLUTIONS, folder)
    return folder


# --- fail closed ------------------------------------------------------------------------


def _broken_jail(tmp_path: Path, body: str) -> Path:
    jail = tmp_path / "jail.py"
    jail.write_text(body)
    return jail


BROKEN = "import sys\nprint('minigrad sandbox: mount: Operation not permitted', file=sys.stderr)\n"
BROKEN += "sys.exit(125)\n"
# A jail that forgets to build anything: the child would run as the grader, seeing everything.
LEAKY = """import json, os, sys
config = json.load(open(sys.argv[1]))
os.execv(config["argv"][0], config["argv"])
"""


@pytest.mark.parametrize("body", [BROKEN, LEAKY], ids=["cannot-engage", "leaky"])
def test_the_grader_grades_nothing_when_its_sandbox_cannot_engage(tmp_path, monkeypatch, body):
    monkeypatch.setattr(sandbox, "JAIL", _broken_jail(tmp_path, body))
    folder = tmp_path / "submission"
    folder.mkdir()
    marker = tmp_path / "ran"
    (folder / "lesson01_derivatives.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n\ndef numerical_derivative(f, x, h=1e-5):\n"
        f"    open({str(marker)!r}, 'w').close()\n"
    )
    with pytest.raises(SandboxError, match="--no-sandbox"):
        grade(folder, select(["1.1"]), timeout=10)
    stderr = io.StringIO()
    with redirect_stderr(stderr):
        code = main([str(folder), "--exercise", "1.1"])
    assert code == 3 and "nothing was graded" in stderr.getvalue()
    assert not marker.exists()  # not a line of the submission ran
    assert not list(Path(runner.tempfile.gettempdir()).glob("minigrad-grade-*/jail.json"))


def test_no_sandbox_runs_only_when_asked_and_says_so(tmp_path, capsys):
    report = grade(SOLUTIONS, select(["1.1"]), sandbox=False)
    assert _scores(report) == {"1.1": (5, 5)}
    assert "--no-sandbox: the exercises run as your own user" in capsys.readouterr().err
    report = grade(SOLUTIONS, select(["1.1"]))
    assert "--no-sandbox" not in capsys.readouterr().err


def test_without_a_sandbox_the_grader_reaps_what_it_adopts(tmp_path):
    # Not hostile: an exercise that leaves an orphan which ends on its own.
    folder = _honest(tmp_path)
    file = folder / "lesson01_derivatives.py"
    file.write_text(
        file.read_text() + "\n\nimport os as _os\nimport time as _time\n\n"
        "_numerical_derivative = numerical_derivative\n\n\n"
        "def numerical_derivative(f, x, h=1e-5):\n"
        "    if _os.fork() == 0:\n        _os.setsid()\n        if _os.fork() == 0:\n"
        "            _time.sleep(0.2)\n        _os._exit(0)\n"
        "    return _numerical_derivative(f, x, h)\n"
    )
    report = grade(folder, select(["1.1"]), sandbox=False)
    assert _scores(report) == {"1.1": (5, 5)}
    time.sleep(0.5)
    sandbox.reap()
    children = [
        entry.name
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and _parent(entry) == os.getpid()
    ]
    assert not children


def _parent(entry: Path) -> int:
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


# --- one run, one exercise, one sandbox ----------------------------------------------------


def test_two_runs_at_once_neither_see_nor_kill_each_other(sandboxed, tmp_path):
    for name in "abc":
        (tmp_path / name).mkdir()
    attacker = _submission(tmp_path / "a", "kill_all")
    peeker = _submission(tmp_path / "b", "peek")
    honest = _submission(tmp_path / "c")
    reports = {}

    def run(name, folder, exercises):
        reports[name] = grade(folder, select(exercises), timeout=20, jobs=2)

    threads = [
        threading.Thread(target=run, args=("attacker", attacker, ["1.1"])),
        threading.Thread(target=run, args=("peeker", peeker, ["1.1"])),
        threading.Thread(target=run, args=("honest", honest, ["1.2", "2.2", "1.2"])),
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.5)  # the attacker is killing by the time the others start
    for thread in threads:
        thread.join()
    assert _scores(reports["honest"]) == {"1.2": (5, 5), "2.2": (5, 5)}
    if sandboxed != "account":  # without namespaces it sees names and the network (README)
        assert "FOUND" not in reports["peeker"].exercises[0].output


def test_files_left_in_tmp_and_shm_are_gone_for_the_next_exercise(sandboxed, tmp_path):
    folder = _submission(tmp_path)
    writer = "\n".join(
        f"    open({path!r}, 'w').write(repr(x))" for path in ("/tmp/a", "/var/tmp/a", "/dev/shm/a")
    )
    reader = (
        "    import os\n"
        "    left = [p for p in ('/tmp/a', '/var/tmp/a', '/dev/shm/a') if os.path.exists(p)]\n"
        "    if left:\n"
        "        raise RuntimeError(f'LEFT BEHIND {left}')\n"
        "    return _gradient(f, x, h)\n"
    )
    file = folder / "lesson01_derivatives.py"
    text = file.read_text().replace("def numerical_gradient(", "def _gradient(")
    file.write_text(
        text + f"\n\ndef numerical_derivative(f, x, h=1e-5):\n{writer}\n    return 0.0\n\n\n"
        f"def numerical_gradient(f, x, h=1e-5):\n{reader}"
    )
    report = grade(folder, select(["1.1", "1.2"]), timeout=20, jobs=1)
    assert "LEFT BEHIND" not in report.exercises[1].details()
    assert _scores(report)["1.2"] == (5, 5)


def test_a_fork_bomb_leaves_no_process_and_no_zombie(sandboxed, tmp_path):
    folder = _submission(tmp_path, "fork_bomb")
    report = grade(folder, select(["1.1", "1.2"]), timeout=10, limits=Limits(processes=64))
    assert _scores(report) == {"1.1": (0, 5), "1.2": (5, 5)}
    mine = os.getpid()
    zombies = []
    for entry in Path("/proc").iterdir():
        try:
            fields = dict(
                line.split(":", 1) for line in (entry / "status").read_text().splitlines()
            )
        except (OSError, ValueError):
            continue
        if int(fields["PPid"]) == mine and fields["State"].strip().startswith("Z"):
            zombies.append(entry.name)
        uid = int(fields["Uid"].split()[0])
        assert not UIDS[0] <= uid < UIDS[1], f"process {entry.name} of a made-up user is alive"
    assert not zombies


# --- the submission is data -------------------------------------------------------------


@pytest.mark.parametrize("how", ["absolute", "relative", "proc"])
def test_a_symlinked_exercise_file_scores_nothing(sandboxed, tmp_path, how):
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copy(SOLUTIONS / "lesson02_graphs.py", folder)
    answer = SOLUTIONS / "lesson01_derivatives.py"
    target = {
        "absolute": answer,
        "relative": Path(os.path.relpath(answer, folder)),
        "proc": Path(f"/proc/self/cwd/{os.path.relpath(answer, Path.cwd())}"),
    }[how]
    (folder / "lesson01_derivatives.py").symlink_to(target)
    report = grade(folder, select(["1.1", "1.2", "2.2"]), timeout=20)
    assert _scores(report) == {"1.1": (0, 5), "1.2": (0, 5), "2.2": (5, 5)}
    assert "is a symbolic link, not a regular file" in report.exercises[0].details()


def test_fifos_sockets_and_devices_are_never_opened(sandboxed, tmp_path):
    folder = _honest(tmp_path)
    os.mkfifo(folder / "lesson02_graphs.py.fifo")
    (folder / "lesson02_graphs.py").unlink()
    os.mkfifo(folder / "lesson02_graphs.py")  # an exercise file that would block a reader
    os.mkfifo(folder / "notes.fifo")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "sock"))
    if AS_ROOT:
        os.mknod(folder / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    started = time.monotonic()
    report = grade(folder, select(["1.1", "2.2"]), timeout=20)
    server.close()
    assert time.monotonic() - started < 120  # it finished: nothing blocked on a FIFO
    assert _scores(report) == {"1.1": (5, 5), "2.2": (0, 5)}
    assert "is a FIFO, not a regular file" in report.exercises[1].details()
    left_out = " ".join(report.left_out)
    assert "notes.fifo (a FIFO)" in left_out and "sock (a socket)" in left_out
    assert not AS_ROOT or "zero (a device)" in left_out


def _nest(folder: Path, depth: int) -> None:
    """``depth`` folders inside each other in ``folder`` (deeper than a path may name)."""
    handle = os.open(folder, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=handle)
        inner = os.open("d", os.O_RDONLY, dir_fd=handle)
        os.close(handle)
        handle = inner
    os.close(handle)


def _unnest(folder: Path) -> None:
    """Remove what ``_nest`` made, deepest first (pytest's cleanup would recurse too deep)."""
    handles = [os.open(folder, os.O_RDONLY)]
    while "d" in os.listdir(handles[-1]):
        handles.append(os.open("d", os.O_RDONLY, dir_fd=handles[-1]))
    os.close(handles.pop())
    while handles:
        os.rmdir("d", dir_fd=handles[-1])
        os.close(handles.pop())


def test_deep_and_large_submissions_are_bounded(sandboxed, tmp_path):
    folder = _honest(tmp_path)
    _nest(folder, 1_200)
    big = folder / "data"
    big.mkdir()
    block = os.urandom(2**20)
    for n in range(80):
        (big / f"{n:03d}.bin").write_bytes(block)
    try:
        report = grade(folder, select(["1.1", "1.2"]), timeout=20)
    finally:
        _unnest(folder)
    assert _scores(report) == {"1.1": (5, 5), "1.2": (5, 5)}
    left_out = " ".join(report.left_out)
    assert "folders deep" in left_out and "too large" in left_out


def test_a_child_nesting_folders_in_its_home_costs_only_its_points(sandboxed, tmp_path):
    folder = _submission(tmp_path)
    file = folder / "lesson01_derivatives.py"
    file.write_text(
        file.read_text() + "\n\ndef numerical_derivative(f, x, h=1e-5):\n    import os\n"
        "    for _ in range(1200):\n        os.mkdir('d')\n        os.chdir('d')\n"
        "    return 0.0\n"
    )
    report = grade(folder, select(["1.1", "1.2"]), timeout=20)
    assert _scores(report) == {"1.1": (0, 5), "1.2": (5, 5)}


def test_graded_from_inside_the_submission_without_P_its_modules_are_not_the_graders(
    sandboxed, tmp_path
):
    folder = _honest(tmp_path)
    shutil.copy(FIXTURES / "secrets.py", folder / "secrets.py")
    (folder / "runpy_helper.py").write_text("print('SHADOWED helper imported')\n")
    run = subprocess.run(
        [sys.executable, "-m", "minigrad.grade", ".", "--exercise", "1.1", "--exercise", "1.2"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "SHADOWED" not in run.stdout + run.stderr
    assert "10/10" in run.stdout


# --- rules that hold ----------------------------------------------------------------------

SUM_TO = "def sum_to(grad, shape):\n    {body}\n"
SHORTCUTS = {
    "method": ("import minigrad as mg", "return mg.tensor(grad).sum_to(shape).numpy()"),
    "importlib": (
        "import importlib",
        "return importlib.import_module('minigrad.tensor.ops.broadcasting').sum_to(grad, shape)",
    ),
    "getattr": (
        "import minigrad.tensor.ops.broadcasting as _b",
        "return getattr(_b, 'sum' + '_to')(grad, shape)",
    ),
    "star": (
        "from minigrad.tensor.ops.broadcasting import *",
        "return globals()['sum_to'](grad, shape)",
    ),
    "helper": ("from helper import reduce", "return reduce(grad, shape)"),
    "padding": ("# " + "x" * (2**20 + 10), "return grad.sum(axis=0)"),
    "run_time": (
        "import operator\nimport minigrad as mg",
        "return operator.attrgetter('sum' + '_to')(mg.tensor(grad))(shape).numpy()",
    ),
}


@pytest.mark.parametrize("how", list(SHORTCUTS))
def test_a_library_shortcut_scores_nothing_however_it_is_reached(sandboxed, tmp_path, how):
    folder = tmp_path / "submission"
    folder.mkdir()
    header, body = SHORTCUTS[how]
    (folder / "lesson04_broadcasting.py").write_text(f"{header}\n\n\n" + SUM_TO.format(body=body))
    (folder / "helper.py").write_text(
        "import minigrad as mg\n\n\ndef reduce(grad, shape):\n"
        "    return mg.tensor(grad).sum_to(shape).numpy()\n"
    )
    (result,) = grade(folder, select(["4.2"]), timeout=30).exercises
    assert result.score == 0, result.details()
    if how == "run_time":  # invisible to the reader: the child saw the call
        assert "called minigrad's own sum_to" in result.details()


def test_no_recursion_and_instrument_rules_hold_in_helper_modules(sandboxed, tmp_path):
    (tmp_path / "walk.py").write_text((FIXTURES / "recursive_topo.py").read_text())
    (tmp_path / "lesson02_graphs.py").write_text(
        "import sys\nfrom walk import topological_order as _walk\n\nsys.setrecursionlimit(10**6)\n"
        "\n\ndef topological_order(root):\n    return _walk(root)\n"
    )
    (tmp_path / "cheat.py").write_text((FIXTURES / "tracker_patch.py").read_text())
    (tmp_path / "lesson09_checkpoint.py").write_text(
        "from cheat import checkpointed_grad as _c\n\n\n"
        "def checkpointed_grad(layers, x, g, segments):\n    return _c(layers, x, g, segments)\n"
    )
    report = grade(tmp_path, select(["2.2", "9.1"]), timeout=30)
    results = {r.exercise.number: r for r in report.exercises}
    assert "calls itself" in results["2.2"].details()
    assert results["2.2"].score < results["2.2"].max_score
    assert "tracker" in results["9.1"].details()
    assert results["9.1"].score < results["9.1"].max_score


def test_a_per_example_loop_scores_nothing_where_the_exercise_asks_for_none(sandboxed, tmp_path):
    solution = (SOLUTIONS / "lesson14_vmap.py").read_text()
    looped = solution + (
        "\n\n_clipped = clipped_gradient\n\n\n"
        "def clipped_gradient(w, b, X, y, max_norm):\n"
        "    parts = [_clipped(w, b, X[i : i + 1], y[i : i + 1], max_norm) for i in range(len(X))]\n"
        "    norms = np.concatenate([p[0] for p in parts])\n"
        "    scale = np.minimum(1.0, max_norm / np.where(norms > 0, norms, 1.0))\n"
        "    del scale\n"
        "    return _clipped(w, b, X, y, max_norm)\n"
    )
    (tmp_path / "lesson14_vmap.py").write_text(looped)
    (result,) = grade(tmp_path, select(["14.3"]), timeout=60).exercises
    assert result.score == 0 and "loops in Python" in result.details()
    shutil.copy(SOLUTIONS / "lesson14_vmap.py", tmp_path / "lesson14_vmap.py")
    (result,) = grade(tmp_path, select(["14.3"]), timeout=60).exercises
    assert result.score == result.max_score, result.details()


def test_every_run_draws_fresh_inputs_unless_the_seed_is_fixed(sandboxed):
    first = grade(SOLUTIONS, select(["1.1"]))
    second = grade(SOLUTIONS, select(["1.1"]))
    assert first.seed != second.seed
    assert f"seed {first.seed}" in first.to_text()
    fixed = grade(SOLUTIONS, select(["1.1"]), seed=first.seed)
    assert fixed.seed == first.seed


def test_a_table_replayed_from_feedback_fails_on_the_next_seed(sandboxed, tmp_path):
    folder = _submission(tmp_path)
    # A submission that always answers what one run's feedback showed as expected.
    from minigrad.grade.checks import EXERCISES

    (exercise,) = [e for e in EXERCISES if e.number == "1.1"]
    import zlib

    import numpy as np

    seed = 12345
    checks = exercise.make_checks(np.random.default_rng([seed, zlib.crc32(b"1.1")]))
    table = [float(np.asarray(c.expected).ravel()[0]) for c in checks]
    file = folder / "lesson01_derivatives.py"
    file.write_text(
        file.read_text()
        + f"\n\nTABLE = {table!r}\nCALLS = []\n\n\ndef numerical_derivative(f, x, h=1e-5):\n"
        "    CALLS.append(1)\n    return TABLE[(len(CALLS) - 1) % len(TABLE)]\n"
    )
    replayed = grade(folder, select(["1.1"]), seed=seed)
    fresh = grade(folder, select(["1.1"]))
    assert replayed.exercises[0].score > fresh.exercises[0].score


# --- the machine is left as it was ---------------------------------------------------------


def _machine() -> dict:
    state = {"passwd": hashlib.sha256(Path("/etc/passwd").read_bytes()).hexdigest()}
    for folder in (Path.home(), Path(sys.executable).resolve().parent, ROOT):
        state[str(folder)] = stat.S_IMODE(folder.stat().st_mode)
    return state


@pytest.mark.slow
def test_two_suites_at_once_both_pass_and_leave_the_machine_as_it_was(sandboxed):
    before = _machine()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
               str(Path(__file__).parent / "test_grade_attacks.py"),
               "-k", "escape or kill_parent or replace_folder or edit_grader or hung"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": os.environ.get("CI", "")}
    runs = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for _ in range(2)]  # fmt: skip
    outputs = [run.communicate(timeout=900)[0] for run in runs]
    for run, output in zip(runs, outputs):
        assert run.returncode == 0, output[-3000:]
        assert " passed" in output and "skipped" not in output, output[-3000:]
    assert _machine() == before


def _reachable_interpreter(stash: Path) -> str:
    """Shell lines that, in a private mount namespace, make the interpreter, its virtual
    environment and this checkout reachable by every user without changing a permission
    on the host: a tmpfs over each closed folder above them, with their trees bound back."""
    trees = {Path(p).resolve() for p in (sys.base_prefix, sys.prefix, ROOT)}
    trees = {t for t in trees if not any(o != t and o in t.parents for o in trees)}
    closed = {}
    for tree in trees:
        above = [p for p in reversed(tree.parents) if not p.stat().st_mode & stat.S_IXOTH]
        if above:
            closed.setdefault(above[0], []).append(tree)
    lines = []
    for n, (folder, inside) in enumerate(sorted(closed.items())):
        saved = [stash / f"{n}-{i}" for i in range(len(inside))]
        lines += [f"mkdir -p {s}\nmount --bind {t} {s}" for s, t in zip(saved, inside)]
        lines.append(f"mount -t tmpfs -o mode=755 tmpfs {folder}")
        lines += [f"mkdir -p {t}\nmount --bind {s} {t}" for s, t in zip(saved, inside)]
    return "".join(line + "\n" for line in lines)


def _as_normal_user(command: list[str], stash: Path) -> list[str]:
    """``command`` as user 65534, in a mount namespace where the interpreter is reachable.

    Python may live under a folder others cannot enter (pyenv in /root, mode
    700). Instead of opening it, the test mounts a private tmpfs over that
    folder in a namespace of its own and binds the interpreter's tree back:
    the host's permissions never change.
    """
    script = "set -e\n" + _reachable_interpreter(stash)
    script += 'exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"\n'
    return ["unshare", "--mount", "sh", "-c", script, "sh", *command]


@pytest.mark.slow
@pytest.mark.skipif(not AS_ROOT, reason="switching to a normal user needs root")
def test_the_attacks_also_fail_for_a_normal_user_after_a_root_run(sandboxed):
    if not shutil.which("setpriv"):
        pytest.skip("util-linux's setpriv is missing")
    grade(SOLUTIONS, select(["1.1"]))  # a root run first: it must not lock a normal user out
    readable = all(os.stat(p).st_mode & stat.S_IROTH for p in (ROOT / "minigrad", ROOT / "tests"))
    if not readable:
        pytest.skip("this checkout is not readable by other users")
    here = Path(__file__).parent
    chosen = ("escape or kill_parent or replace_folder or edit_grader or peek or forge or fill_tmp"
              " or symlinked or two_runs or left_in_tmp or run_time")  # fmt: skip
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "-m",
               "not slow", str(here / "test_grade_attacks.py"), str(here / "test_sandbox.py"),
               "-k", chosen]  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="minigrad-user-test-"))  # ours: the user's home
    os.chown(work, 65534, 65534)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(work), "CI": "1",
           "NUMBA_CACHE_DIR": str(work / "numba"), "TMPDIR": str(work)}  # fmt: skip
    try:
        run = subprocess.run(_as_normal_user(command, work / "stash"), cwd=work, env=env, capture_output=True,
                             text=True, timeout=900)  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


def test_the_account_sandbox_fails_closed_where_others_cannot_start_python(sandboxed):
    if not AS_ROOT:
        pytest.skip("the account sandbox needs root")
    reachable = all(p.stat().st_mode & stat.S_IXOTH for p in Path(sys.executable).resolve().parents)
    if reachable and not any(p.exists() and p.stat().st_mode & 0o004 for p in sandbox.PROTECTED):
        pytest.skip("here the account sandbox can engage: the next test runs it")
    with pytest.raises(SandboxError, match="chmod -R o-rwx"):
        grade(SOLUTIONS, select(["1.1"]), sandbox="account")


@pytest.mark.slow
@pytest.mark.skipif(not AS_ROOT, reason="the account sandbox needs root")
def test_the_account_sandbox_where_no_namespace_is_allowed(sandboxed):
    """As in a container without namespaces: a made-up user per exercise, no view of its own.

    In a mount namespace of the test's (the host is not touched), the interpreter is made
    reachable and the answers closed, as a teacher would on such a machine; then the
    in-process attack tests run with namespaces reported unavailable.
    """
    stash = Path(tempfile.mkdtemp(prefix="minigrad-account-test-"))
    script = "set -e\n" + _reachable_interpreter(stash / "interpreter")
    for n, path in enumerate(sandbox.PROTECTED):
        if path.exists():
            copy = stash / f"closed{n}"
            script += f"cp -a {path} {copy}\nchmod -R o-rwx {copy}\nmount --bind {copy} {path}\n"
    here = Path(__file__).parent
    chosen = "two_runs or left_in_tmp or fork_bomb or symlinked or run_time or helper_modules"
    script += 'exec "$@"\n'
    command = ["unshare", "--mount", "sh", "-c", script, "sh", sys.executable, "-m", "pytest",
               "-q", "-p", "no:cacheprovider", "-x", "-m", "not slow",
               str(here / "test_grade_attacks.py"), str(here / "test_sandbox.py"), "-k", chosen]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "1", "MINIGRAD_TEST_SANDBOX": "account"}
    try:
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    finally:
        shutil.rmtree(stash, ignore_errors=True)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout
