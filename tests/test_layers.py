"""The package's shape: one-way imports between layers, and a cheap ``import minigrad``.

DESIGN.md orders the parts of ``minigrad/`` by floor. A module may import from
its own part or from a lower floor, never upward, and never the package face
(``minigrad/__init__.py``), which imports everything. The face files themselves
are exempt.
"""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "minigrad"

FLOORS = {
    "graph": 0,
    "tree": 0,  # pytrees: plain Python containers, no tensors
    "random": 3,  # explicit keys: names gathered over the tensor layer, like linalg
    "backends": 0,
    "scalar": 1,
    "tensor": 2,
    "transforms": 3,
    "compile": 4,
    "linalg": 3,  # the torch.linalg namespace: names gathered from the tensor layer
    "special": 3,  # the torch.special namespace, likewise
    "nn": 4,
    "optim": 4,
    "check": 4,
    "draw": 4,
    "grade": 5,
    "utils": 4,  # torch.utils.data: datasets and loaders over the tensor layer
    "func": 5,  # the torch.func namespace: transforms and nn's functional_call
    "amp": 4,  # mixed precision (lesson 15): autocast and loss scaling over the tensor layer
    "onnx": 5,  # export of traced graphs (compile) and their NumPy replay (lesson 16)
    "distributed": 5,  # data parallel on MPI (lesson 18): process groups, DDP, ZeRO over nn/optim
    "signal": 3,  # torch.signal.windows: factories and elementwise rows of the tensor layer
    "fft": 3,  # torch.fft's fftshift/ifftshift: rolls of the tensor layer
    "masked": 4,  # torch.masked: where() and the reductions of the tensor layer and nn.functional
    "autograd": 5,  # the torch.autograd namespace: grad, Function, gradcheck (check), functional
}
FACE = {"__init__", "__main__"}


def source_files() -> list[Path]:
    """The package's own ``.py`` files. Not ``__pycache__``: generated kernels are cached there
    (``kernel_cache.source_folder``, the fusion pass), like Python's bytecode, and are no source."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> list[str]:
    """minigrad/tensor/ops.py -> ['minigrad', 'tensor', 'ops']; a package's __init__ -> the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute dotted name) for every import in a file, relative ones resolved."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            # `from minigrad import tensor` names a part; `from minigrad import Value` the face.
            if module == PACKAGE.name or node.module is None:
                found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
    return found


def part(dotted: str) -> str | None:
    bits = dotted.split(".")
    return bits[1] if bits[0] == PACKAGE.name and len(bits) > 1 else None


def layer_violations() -> list[str]:
    problems = []
    for path in source_files():
        rel = path.relative_to(PACKAGE)
        if len(rel.parts) == 1 and rel.stem in FACE:
            continue
        source = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        if source not in FLOORS:
            problems.append(f"{rel}: part '{source}' has no floor in DESIGN.md's layer list")
            continue
        for line, dotted in imported_modules(path):
            if dotted == PACKAGE.name:
                problems.append(
                    f"{rel}:{line}: imports the package face (import the part you need)"
                )
                continue
            target = part(dotted)
            if target is None or target == source:
                continue
            is_part = (PACKAGE / target).is_dir() or (PACKAGE / f"{target}.py").is_file()
            if target in FACE or not is_part:
                # `from minigrad import Value` reaches the face, which imports everything.
                problems.append(f"{rel}:{line}: imports {dotted} through the package face")
            elif target not in FLOORS:
                problems.append(f"{rel}:{line}: imports {dotted}, a part with no floor")
            elif FLOORS[target] > FLOORS[source]:
                problems.append(
                    f"{rel}:{line}: {source} (floor {FLOORS[source]}) imports {dotted} "
                    f"({target}, floor {FLOORS[target]}): upward"
                )
    return problems


def test_imports_only_go_down_the_layers():
    assert layer_violations() == []


def test_the_checker_sees_an_upward_import(tmp_path, monkeypatch):
    # Guard against a checker that passes because it never finds anything.
    fake = tmp_path / "minigrad"
    for package in ("scalar", "tensor"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    (fake / "graph.py").write_text("")
    (fake / "draw.py").write_text("from minigrad.scalar import Value\n")
    (fake / "__init__.py").write_text("from minigrad.draw import draw\n")
    (fake / "scalar" / "value.py").write_text(
        "from ..tensor import Tensor\n"
        "from minigrad.graph import topological_order\n"
        "import minigrad\n"
        "from minigrad import draw\n"
        "from minigrad import Value\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    problems = layer_violations()
    assert len(problems) == 4, problems
    assert problems[0].startswith("scalar/value.py:1: scalar (floor 1) imports minigrad.tensor")
    assert problems[1].startswith("scalar/value.py:3: imports the package face")
    assert problems[2].startswith("scalar/value.py:4: scalar (floor 1) imports minigrad.draw")
    assert problems[3].startswith("scalar/value.py:5: imports minigrad.Value through the package")


def test_minigrad_never_imports_torch():
    # PyTorch is the test oracle only; the library must not depend on it.
    users = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in source_files()
        for line, dotted in imported_modules(path)
        if dotted.split(".")[0] == "torch"
    ]
    assert users == []


IMPORT_PROBE = """
import sys, time
start = time.perf_counter()
import minigrad
seconds = time.perf_counter() - start
heavy = sorted({name.split(".")[0] for name in sys.modules} & {"numba", "torch", "llvmlite"})
print(seconds, ",".join(heavy))
"""


def test_import_minigrad_is_cheap():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seconds, _, heavy = done.stdout.strip().partition(" ")
    assert heavy == "", f"`import minigrad` loaded {heavy}; compile and probe lazily instead"
    # What it costs in seconds is a benchmark's to say (benchmarks/startup.py), not a
    # unit test's: on a loaded machine any fixed limit fails at random.
    print(f"import minigrad: {float(seconds):.2f} s")


def module_of(dotted: str) -> str | None:
    """The minigrad module (file) a dotted import name lands on, or None if outside minigrad."""
    bits = dotted.split(".")
    if bits[0] != PACKAGE.name:
        return None
    while bits:
        path = PACKAGE.parent.joinpath(*bits)
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return ".".join(bits)
        bits = bits[:-1]  # `minigrad.tensor.Tensor` is a name in the package minigrad.tensor
    return None


def import_targets(path: Path) -> list[tuple[int, str]]:
    """(line, minigrad module) for every import in a file, relative ones resolved:
    `from p import m` lands on p.m when m is a module, else on p."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [(node.lineno, t) for t in map(module_of, names) if t is not None]
    return found


def imported_targets(path: Path) -> set[str]:
    """The minigrad modules a file imports (itself left out)."""
    return {target for _, target in import_targets(path)} - {".".join(module_name(path))}


def import_graph() -> dict[str, set[str]]:
    """module -> the minigrad modules it imports, at any depth of the file (functions too)."""
    return {".".join(module_name(p)): imported_targets(p) for p in source_files()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            for nxt in pending:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_cycles_anywhere_in_the_package():
    # Counting imports inside functions, and between modules of one folder: a
    # package's face (its __init__) may import its modules, but then no module
    # of it may import the face back.
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle_inside_a_folder():
    graph = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert cycles(graph) == [["a.x", "a.y", "a.z"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
