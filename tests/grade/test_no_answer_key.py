"""No file of the student edition is an answer key (issue 21).

``release`` makes the student edition; this test takes every function and
class that any of its Python files or notebooks defines (every top-level
function, class and method), pastes it into every exercise (the way a student
would copy it: with its module's imports, in place of the exercise's function
or method, or of its class) and grades the result with the teacher's
references. Nothing may score more than the exercise's stub does.

Grading runs in one process per lesson file, each check under a time limit.
The candidates are the course's own code, but called with arguments nobody
chose for them: the grader's own helpers delete files and kill processes of a
user id they are given. So the lessons' processes run inside the grader's
sandbox (``sandbox.jail_command``: a made-up user, private ``/tmp``, no other
process, no network, the checkout read-only), and the test runs only where
that sandbox engages (CI fails instead of skipping). One sandboxed worker per
CPU imports what the candidates import once and forks a fresh copy of itself
for each of its lessons; the candidates are found once, by the test. A
candidate is tried only where Python could call it the way the exercise's
function is called (its positional parameters fit); any other would fail with
a ``TypeError`` on the first call, which is the stub's score. The solutions/
of the teacher's course are the control: pasted the same way, they score full
marks.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
STUB = re.compile(r"raise NotImplementedError\(\s*\"Exercise (\d+\.\d+):")
CHECK_SECONDS = 3
NUMBA = re.compile(r"@(numba\.)?(njit|jit|vectorize|guvectorize|stencil)\b|@cuda\.jit|prange")
HEAVY = 0.05
# numba compiles a kernel on its first call, slowly on a busy machine: the time it gets.
SLOW_LIMIT = 120.0
WORKER_SECONDS = 1800


# -- what a student could copy ------------------------------------------------------------------
def _sources(edition: Path) -> list[tuple[str, str]]:
    """``(name, Python text)`` of every Python file and notebook in the edition."""
    found = []
    for path in sorted(edition.rglob("*")):
        if not path.is_file() or ".git" in path.parts:
            continue
        relative = path.relative_to(edition).as_posix()
        if path.suffix == ".py":
            found.append((relative, path.read_text()))
        elif path.suffix == ".ipynb":
            cells = json.loads(path.read_text()).get("cells", [])
            for k, cell in enumerate(cells):
                if cell.get("cell_type") != "code":
                    continue
                text = "".join(cell.get("source", ""))
                # IPython's magics and shell lines are not Python.
                text = "\n".join(
                    "" if line.lstrip().startswith(("%", "!")) else line
                    for line in text.splitlines()
                )
                found.append((f"{relative}#cell{k}", text))
    return found


def _shape(node: ast.AST) -> dict:
    """How a function (or a class, by its ``__init__``) can be called positionally."""
    if isinstance(node, ast.ClassDef):
        init = next(
            (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
        )
        if init is None:
            return {"required": 0, "most": 99}  # maybe inherited: let it try
        shape = _shape(init)
        return {"required": max(shape["required"] - 1, 0), "most": max(shape["most"] - 1, 0)}
    args = node.args
    positional = len(args.posonlyargs) + len(args.args)
    required_kw = sum(1 for d in args.kw_defaults if d is None)
    return {
        "required": positional - len(args.defaults) + (99 if required_kw else 0),
        "most": 99 if args.vararg else positional,
    }


def candidates(edition: Path) -> list[dict]:
    """Every function, class and method the edition defines, ready to paste."""
    found = []
    notebook_imports: dict[str, list[str]] = {}
    parsed = []
    for name, text in _sources(edition):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        imports = [
            _segment(text, node)
            for node in tree.body
            if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and not node.level)
        ]
        if "#cell" in name:  # a notebook's imports reach all its cells
            notebook_imports.setdefault(name.split("#")[0], []).extend(imports)
        parsed.append((name, text, tree, imports))
    for name, text, tree, imports in parsed:
        if "#cell" in name:
            imports = notebook_imports[name.split("#")[0]]
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.append(_candidate(name, text, node, imports, decorators=True))
            if isinstance(node, ast.ClassDef):
                for method in node.body:
                    if isinstance(method, ast.FunctionDef):
                        found.append(_candidate(name, text, method, imports, decorators=False))
    # The same text with the same imports behaves the same: tried once.
    unique: dict[tuple, dict] = {}
    for candidate in found:
        unique.setdefault((candidate["source"], tuple(candidate["imports"])), candidate)
    return list(unique.values())


_LINES: dict[str, list[str]] = {}


def _segment(text: str, node: ast.AST) -> str:
    """``ast.get_source_segment`` for whole lines, splitting each text once."""
    lines = _LINES.setdefault(text, text.splitlines())
    return "\n".join(lines[node.lineno - 1 : node.end_lineno])


def _candidate(where: str, text: str, node: ast.AST, imports: list[str], decorators: bool) -> dict:
    source = _segment(text, node).lstrip()
    lines = _LINES.setdefault(text, text.splitlines())
    if decorators and node.decorator_list:
        first = node.decorator_list[0].lineno - 1
        source = "\n".join(lines[first : node.lineno - 1]) + "\n" + source
    source = textwrap.dedent(" " * node.col_offset + source)
    # (a one-line body after the colon has its own column; dedent copes)
    return {
        "where": f"{where}:{node.lineno} {node.name}",
        "name": node.name,
        "source": source,
        "imports": imports,
        "kind": "class" if isinstance(node, ast.ClassDef) else "function",
        **_shape(node),
    }


# -- where it could go --------------------------------------------------------------------------
def targets(stub_text: str) -> list[dict]:
    """The places of a stub file a pasted candidate can take: ``{"exercise", "path", ...}``."""
    tree = ast.parse(stub_text)
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            numbers = set(STUB.findall(ast.get_source_segment(stub_text, node) or ""))
            for number in numbers:
                found.append({"exercise": number, "path": node.name, "kind": "function",
                              **_shape(node)})  # fmt: skip
        elif isinstance(node, ast.ClassDef):
            numbers = set(STUB.findall(ast.get_source_segment(stub_text, node) or ""))
            for number in numbers:
                found.append({"exercise": number, "path": node.name, "kind": "class",
                              **_shape(node)})  # fmt: skip
            for method in node.body:
                if not isinstance(method, ast.FunctionDef):
                    continue
                for number in set(STUB.findall(ast.get_source_segment(stub_text, method) or "")):
                    found.append({"exercise": number, "path": f"{node.name}.{method.name}",
                                  "kind": "function", **_shape(method)})  # fmt: skip
    return found


def fits(candidate: dict, target: dict) -> bool:
    """Whether some call the target takes also binds to the candidate."""
    if target["kind"] == "class" and candidate["kind"] != "class":
        return False
    low, high = target["required"], target["most"]
    return candidate["required"] <= high and candidate["most"] >= min(low, 98)


# -- grading, in a worker process per lesson file ----------------------------------------------
class _TooSlow(BaseException):
    """Not an ``Exception``: code that catches every ``Exception`` cannot swallow it."""


def _alarm(signum, frame):
    raise _TooSlow(f"over {CHECK_SECONDS} s")


def _passes(parts: list, filename: str, checks: list, inputs: list, limit: float = 1.0) -> list:
    """Which of ``checks`` a module made of ``parts`` (code objects, run in order) passes."""
    from minigrad.grade.channel import decode, message, read_messages

    namespace = {"__name__": "pasted_submission", "__file__": filename}
    signal.signal(signal.SIGALRM, _alarm)
    # The timer can ring while it is being stopped: the outer try catches that too.
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, CHECK_SECONDS * 4, 0.5)
            for code in parts:
                exec(code, namespace)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException:
        return [False] * len(checks)
    module = type(sys)("pasted_submission")
    module.__dict__.update(namespace)
    passed = []
    for check, sent in zip(checks, inputs):
        reply = {}
        try:
            try:
                args = decode(json.loads(sent))  # afresh: a candidate may change its inputs
                # It rings again every half second until stopped: a handler that
                # swallowed the first ring cannot keep a candidate running.
                signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
                output = check.probe(module, args)
                reply = read_messages(message(0, output=output), 1).get(0, {})
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException:
            reply = {}
        try:
            ok = "output" in reply and check.compare(check.expected, reply["output"]) is None
        except Exception:
            ok = False
        passed.append(ok)
    return passed


def score(checks: list, passed: dict) -> float:
    """The points of the checks passed (``{index: bool}``), as the grader's report counts them:
    an edge check (``Check.edge``) counts only beside a passing check of the general case."""
    general = any(ok for k, ok in passed.items() if not checks[k].edge)
    return sum(
        checks[k].points for k, ok in passed.items() if ok and (general or not checks[k].edge)
    )


def _score(parts: list, filename: str, checks: list, inputs: list, limit: float = 1.0) -> float:
    passed = _passes(parts, filename, checks, inputs, limit)
    return score(checks, dict(enumerate(passed)))


def _compiled(text: str, filename: str):
    try:
        return compile(text, filename, "exec")
    except (SyntaxError, ValueError):
        return None


_WRITTEN = [0]


def module_code(text: str, lesson: str):
    """``text`` compiled as a file of its own, written to disk first: numba's
    ``cache=True`` needs a real file, and a file per module keeps two pasted
    functions of one name apart in numba's cache."""
    _WRITTEN[0] += 1
    path = Path.cwd() / "pasted" / lesson.removesuffix(".py") / str(_WRITTEN[0]) / lesson
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return _compiled(text, str(path))


_CODE: dict[tuple, object] = {}
_STUBS: dict[tuple, object] = {}
_BINDS: dict[str, object] = {}


def pasted(stub: str, candidate: dict, target: dict, lesson: str) -> list | None:
    """The stub, then the candidate, then the candidate bound to the target's name: code
    objects run in order in one namespace, as one file would run. The stub is compiled once,
    each candidate once, in a file of its own (whichever target it is tried in)."""
    # A __future__ import opens each part (as it opened the whole file).
    future = [line for line in candidate["imports"] if line.startswith("from __future__")]
    imports = [line for line in candidate["imports"] if line not in future]
    key = (candidate["source"], tuple(candidate["imports"]))
    if key not in _CODE:
        _CODE[key] = module_code("\n".join([*future, *imports, candidate["source"]]) + "\n", lesson)
    if (stub, tuple(future)) not in _STUBS:
        _STUBS[stub, tuple(future)] = module_code("\n".join([*future, stub]) + "\n", lesson)
    bind = f"{target['path']} = {candidate['name']}"
    if bind not in _BINDS:
        _BINDS[bind] = _compiled(bind, lesson)
    parts = [_STUBS[stub, tuple(future)], _CODE[key], _BINDS[bind]]
    return None if None in parts else parts


def _in_process(
    parts: list, lesson: str, checks: list, inputs: list, light: list, limit: float = 1.0
) -> dict:
    """``{check index: passed}``: the light checks, then the heavy ones if a light one passed."""
    passed = dict(zip(light, _passes(parts, lesson, *_pick(checks, inputs, light), limit)))
    if any(passed.values()) and len(light) < len(checks):
        rest = sorted(set(range(len(checks))) - set(light))
        passed.update(zip(rest, _passes(parts, lesson, *_pick(checks, inputs, rest), 5 * limit)))
    return passed


def _forked(
    parts: list, lesson: str, checks: list, inputs: list, light: list, limit: float = 1.0
) -> dict:
    """``_in_process`` in a forked child; nothing it does reaches this process."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: score, report, leave without any cleanup
        try:
            # No collections: one would walk every object of this (large) process and so
            # copy its pages into the child; the child lives a few seconds at most.
            gc.disable()
            os.close(read)
            result = _in_process(parts, lesson, checks, inputs, light, limit)
            os.write(write, json.dumps({str(k): v for k, v in result.items()}).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    try:
        return {int(k): v for k, v in json.loads(data).items()}
    except ValueError:  # the child died: no check passed
        return {}


def _pick(checks: list, inputs: list, chosen: list) -> tuple[list, list]:
    return [checks[k] for k in chosen], [inputs[k] for k in chosen]


def worker(edition: str, out: str) -> None:
    """Grade the lessons the request names (``$HOME/request.json``: ``lessons``, and the
    ``candidates`` the test found in the edition); write ``{lesson: scores}``.

    The modules every candidate imports are imported once, here; each lesson is then
    graded in a forked copy of this process, so it starts as a fresh worker would
    (nothing a pasted candidate of one lesson did reaches the next) without importing
    torch, numba and the rest again."""
    request = json.loads((Path(os.environ["HOME"]) / "request.json").read_text())
    found = request["candidates"]
    # Every module any candidate imports, once, before any time limit can cut an import short.
    for statement in sorted({line for c in found for line in c["imports"]}):
        try:
            exec(statement, {})
        except BaseException:
            pass
    reports = {}
    for lesson in request["lessons"]:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: grade the lesson, report, leave without any cleanup
            status = 1
            try:
                os.close(read)
                report = lesson_report(edition, lesson, found)
                with os.fdopen(write, "w") as pipe:
                    pipe.write(json.dumps(report))
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status != 0:
            reports[lesson] = {"failed": f"its process ended with status {status:#x}"}
            continue
        reports[lesson] = json.loads(data)
    if out.startswith("fd:"):  # in the sandbox: the pipe the test reads
        with os.fdopen(int(out[3:]), "w") as pipe:
            pipe.write(json.dumps(reports))
    else:
        Path(out).write_text(json.dumps(reports))


def lesson_report(edition: str, lesson: str, found: list) -> dict:
    """Grade every candidate pasted into every exercise of one lesson file: the scores."""
    from minigrad.grade import select
    from minigrad.grade.answers import checks_rng
    from minigrad.grade.channel import encode

    stub = (Path(edition) / "exercises" / lesson).read_text()
    stub_code = module_code(stub, lesson)
    report = {"stub": {}, "best": {}, "tried": 0, "control": {}, "slow": []}
    places = targets(stub)
    solution = SOLUTIONS / lesson
    solution_code = module_code(solution.read_text(), lesson)
    control_code = module_code(stub + "\n" + solution.read_text(), lesson)
    for exercise in [ex for ex in select() if ex.file == lesson]:
        checks = exercise.make_checks(checks_rng(0, exercise.number))
        # The inputs as the child receives them (through the channel).
        inputs = [json.dumps(encode(check.args)) for check in checks]
        baseline = _score([stub_code], lesson, checks, inputs)
        report["stub"][exercise.number] = baseline
        # Checks on big inputs (where the solution needs over HEAVY seconds: long
        # chains, thousands of lines) run only for candidates that pass a light
        # check: a candidate that fails every light check is not tried on them.
        heavy = []
        for k, check in enumerate(checks):
            started = time.perf_counter()
            _score([solution_code], lesson, [check], [inputs[k]], SLOW_LIMIT)
            heavy.append(time.perf_counter() - started > HEAVY)
        light = [k for k in range(len(checks)) if not heavy[k]]
        best = []
        mine = [t for t in places if t["exercise"] == exercise.number]
        for target in mine:
            for candidate in found:
                if not fits(candidate, target):
                    continue
                parts = pasted(stub, candidate, target, lesson)
                if parts is None:
                    continue
                report["tried"] += 1
                started = time.perf_counter()
                # A class can register itself on definition (minigrad's Tensor does):
                # pasted, it is tried in a forked copy of this process, which it cannot change.
                run = _forked if candidate["kind"] == "class" else _in_process
                # numba compiles a kernel on its first call: time for that.
                limit = SLOW_LIMIT if NUMBA.search(candidate["source"]) else 1.0
                passed = run(parts, lesson, checks, inputs, light, limit)
                points = score(checks, passed)
                spent = time.perf_counter() - started
                if spent > 1:
                    report["slow"].append([round(spent, 2), candidate["where"]])
                if points > baseline:
                    best.append([points, candidate["where"], target["path"]])
        report["best"][exercise.number] = best
        # The control: the teacher's whole file, pasted after the stub the same way,
        # scores full marks (the harness can see a right answer).
        report["control"][exercise.number] = [
            _score([control_code], lesson, checks, inputs, SLOW_LIMIT),
            sum(check.points for check in checks),
        ]
    return report


# -- the test -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    from minigrad.grade.release import release

    target = tmp_path_factory.mktemp("edition") / "course"
    release(ROOT, target)
    return target


LESSONS = sorted(p.name for p in SOLUTIONS.glob("lesson*.py"))


# The sandbox's limits for a worker: it imports torch and numba and compiles kernels,
# so more memory, files, CPU time and home than an exercise gets (the CPU time is each
# process's own: each lesson's forked process has WORKER_SECONDS of it).
WORKER_LIMITS = dict(memory=64 * 2**30, processes=512, files=4096, cpu=WORKER_SECONDS,
                     tmp=512 * 2**20, home=4 * 2**30)  # fmt: skip


class Worker:
    """The worker of some lessons (each graded in a process of its own), started in the
    grader's sandbox; ``report()`` once it ended."""

    def __init__(self, run, edition: Path, request: dict, env: dict, folder: Path) -> None:
        from minigrad.grade import sandbox

        self.lessons, self.folder, self.started = request["lessons"], folder, time.monotonic()
        self.seconds = WORKER_SECONDS * len(self.lessons)
        self.accounts = contextlib.ExitStack()
        account = None
        if run.isolation.mode == "root":
            account = self.accounts.enter_context(sandbox.Accounts().fresh())
        home = f"{sandbox.WORK}/home"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": home, "TMPDIR": "/tmp",
               "NUMBA_CACHE_DIR": f"{home}/numba-cache", "MINIGRAD_CACHE_DIR": f"{home}/cache",
               "MPLBACKEND": "Agg", **env}  # fmt: skip
        status_r, status_w = os.pipe()
        out_r, out_w = os.pipe()
        path = folder / "request.json"  # the jail copies it to $HOME/request.json
        path.write_text(json.dumps(request))
        argv = [sys.executable, __file__, f"{sandbox.WORK}/submission", f"fd:{out_w}"]
        command = sandbox.jail_command(
            run.isolation, folder, edition, argv, env, account, (status_w, out_w), path,
            read_only=(str(ROOT),), whole_grader=True,
        )  # fmt: skip
        try:
            self.process = subprocess.Popen(
                command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=open(folder / "stderr.txt", "w"),
                pass_fds=(status_w, out_w), start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(status_w)
            os.close(out_w)
        # Drained as they come: a report bigger than a pipe's buffer would block its worker.
        self.pipes = {"out": out_r, "status": status_r}
        self.read = {"out": b"", "status": b""}
        self.threads = [threading.Thread(target=self._drain, args=(name,)) for name in self.pipes]
        for thread in self.threads:
            thread.start()

    def _drain(self, name: str) -> None:
        with os.fdopen(self.pipes[name], "rb") as pipe:
            self.read[name] = pipe.read()

    def ended(self) -> bool:
        if self.process.poll() is None:
            if time.monotonic() - self.started <= self.seconds:
                return False
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for thread in self.threads:
            thread.join()
        self.accounts.close()  # kills whatever the made-up user left
        return True

    def report(self) -> dict:
        stderr = (self.folder / "stderr.txt").read_text()[-3000:]
        how = self.read["status"].decode()
        assert how == "exit 0", f"{self.lessons}: the sandboxed worker ended by {how!r}: {stderr}"
        reports = json.loads(self.read["out"])
        assert sorted(reports) == sorted(self.lessons), (sorted(reports), stderr)
        for lesson, report in reports.items():
            assert "failed" not in report, f"{lesson}: {report['failed']}: {stderr}"
        return reports


def _shares(edition: Path, found: list, slots: int) -> list[tuple[list, dict]]:
    """The lessons in ``(lessons, env)`` shares, one worker each: the lessons of one
    environment (numba reads it once, on import) in at most ``slots`` shares, balanced
    by their number of pastes."""
    from minigrad.grade import select

    envs: dict[str, dict] = {lesson: {} for lesson in LESSONS}
    for exercise in select():
        if exercise.file in envs:
            envs[exercise.file].update(exercise.env)
    weight = {}
    for lesson in LESSONS:
        places = targets((edition / "exercises" / lesson).read_text())
        weight[lesson] = sum(fits(c, t) for t in places for c in found)
    groups: dict[str, list] = {}
    for lesson in LESSONS:
        groups.setdefault(json.dumps(envs[lesson], sort_keys=True), []).append(lesson)
    shares = []
    for key, lessons in groups.items():
        bins = [[] for _ in range(min(slots, len(lessons)))]
        for lesson in sorted(lessons, key=lambda name: -weight[name]):  # the heaviest first
            min(bins, key=lambda b: sum(weight[name] for name in b)).append(lesson)
        shares += [(sorted(b), json.loads(key)) for b in bins]
    # The biggest shares first: the small one of another environment fills in after.
    return sorted(shares, key=lambda share: -sum(weight[name] for name in share[0]))


def test_no_shipped_function_scores_above_the_stub(edition, tmp_path, sandboxed):
    from minigrad.grade import sandbox
    from minigrad.grade.runner import Run

    run = Run(1, limits=sandbox.Limits(**WORKER_LIMITS))
    assert run.isolation.mode in ("root", "user"), run.isolation.mode
    found = candidates(edition)  # once, for every worker
    slots = max(os.cpu_count() or 1, 2)
    running, reports = {}, {}
    pending = _shares(edition, found, slots)
    try:
        while pending or running:
            while pending and len(running) < slots:
                lessons, env = pending.pop(0)
                folder = tmp_path / f"worker{len(pending)}"
                folder.mkdir()
                request = {"lessons": lessons, "candidates": found}
                running[folder.name] = Worker(run, edition, request, env, folder)
            for name, worker_ in list(running.items()):
                if worker_.ended():
                    del running[name]
                    reports.update(worker_.report())
            time.sleep(0.2)
    finally:
        for worker_ in running.values():
            os.killpg(worker_.process.pid, signal.SIGKILL)
            worker_.ended()
        run.close()
    assert sorted(reports) == LESSONS, sorted(reports)
    tried = 0
    for report in reports.values():
        tried += report["tried"]
        for number, better in report["best"].items():
            assert not better, f"exercise {number}: these shipped definitions score: {better}"
        for number, (got, full) in report["control"].items():
            assert got == full > report["stub"][number], f"{number}: the solution scored {got}"
    print(f"{tried} pastes tried")
    assert tried > 1000


if __name__ == "__main__":
    worker(*sys.argv[1:3])
