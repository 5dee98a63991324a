"""draw: the DOT it writes, and how it renders with dot, with pygraphviz only, and with neither."""

import importlib.util
import sys
from types import SimpleNamespace

import graphviz
import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

import minigrad as mg
from minigrad.draw import INSTALL_HINT, Drawing, draw
from minigrad.scalar import Value

FAKE_DOT = """#!{python}
# Stands in for Graphviz's dot: records that it ran, answers with a marked SVG.
import sys
args = sys.argv[1:]
svg = "<svg><!-- fake dot --></svg>"
if "-O" in args:
    open(args[-1] + ".svg", "w").write(svg)
elif "-o" in args:
    open(args[args.index("-o") + 1], "w").write(svg)
else:
    sys.stdin.read()
    sys.stdout.write(svg)
"""


def small_graph():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    out = c + a.tanh()
    out.label = "out"
    out.backward()
    return out


def lines_with(source: str, text: str) -> list[str]:
    return [line for line in source.splitlines() if text in line]


def test_values_ops_and_edges_are_drawn():
    g = draw(small_graph())
    assert isinstance(g, graphviz.Digraph) and isinstance(g, Drawing)
    source = g.source
    assert "rankdir=LR" in source
    records = lines_with(source, "shape=record")
    assert len(records) == 5  # a, b, a*b, tanh(a), out
    assert any("a | data 2 | grad" in line for line in records)
    assert any("out | data -5.036 | grad 1" in line for line in records)
    ops = lines_with(source, "shape=ellipse")
    assert sorted(line.split("label=")[1].split()[0] for line in ops) == ['"*"', '"+"', "tanh"]
    # result <- op: 3 edges; op <- parents: 2 + 1 + 2
    assert len(lines_with(source, "->")) == 8


def test_options():
    out = small_graph()
    assert "grad" not in draw(out, show_grad=False).source
    source = draw(out, rankdir="TB", size="4,4").source
    assert "rankdir=TB" in source and 'size="4,4"' in source


def test_a_fan_in_from_one_parent_draws_two_edges():
    a = Value(1.0)
    source = draw(a * a).source
    assert len(lines_with(source, "n0 -> n1op")) == 2


def test_large_graphs_are_cut_with_a_marker():
    x = Value(0.5, label="x")
    for _ in range(300):
        x = x * 1.01 + 0.1
    x.label = "end"
    source = draw(x, max_nodes=50).source
    assert len(lines_with(source, "shape=record")) == 50
    assert "... 551 more nodes" in source  # 601 nodes in all
    assert "end | data" in source and "x | data" not in source
    assert len(lines_with(source, "hidden ->")) == 1
    assert "more nodes" not in draw(x, max_nodes=1000).source


def test_awkward_labels_are_escaped_and_render():
    a = Value(1.0, label='{a|b}<c>"')
    g = draw(a.exp())
    assert r"\{a\|b\}\<c\>\"" in g.source
    assert "{a|b}&lt;c&gt;" in g.svg()


class FakeTensor(SimpleNamespace):
    """Just the attributes a Tensor node offers to draw (hashed by identity, as the protocol asks)."""

    __hash__ = object.__hash__


def test_tensor_like_nodes_show_shape_dtype_device_and_parameters_stand_out():
    w = FakeTensor(
        _parents=(),
        _op="",
        label="w",
        shape=(3, 2),
        dtype="float32",
        device="cpu",
        requires_grad=True,
        is_leaf=True,
        grad=None,
    )
    x = FakeTensor(
        _parents=(),
        _op="",
        label="x",
        shape=(2,),
        dtype="float32",
        device="cpu",
        requires_grad=False,
        is_leaf=True,
        grad=None,
    )
    y = FakeTensor(
        _parents=(w, x),
        _op="matmul",
        label="",
        shape=(3,),
        dtype="float32",
        device="cuda",
        requires_grad=True,
        is_leaf=False,
        grad=None,
    )
    source = draw(y).source
    assert "w | (3, 2) | float32 | cpu" in source
    assert "x | (2,) | float32 | cpu" in source
    assert "(3,) | float32 | cuda" in source
    assert "data" not in source and "grad" not in source
    filled = lines_with(source, "fillcolor")
    assert len(filled) == 1 and "w |" in filled[0]
    assert len(lines_with(source, "matmul")) == 1


def test_minigrad_tensors_draw():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x.label = "x"
    source = draw((x * x).sum()).source
    assert "x | (2, 2) | float32 | cpu" in source
    assert "() | float32 | cpu" in source
    assert len(lines_with(source, "fillcolor")) == 1


@pytest.mark.parametrize(
    "run",
    [
        lambda xs, w: (xs @ w).tanh().sum(),  # no transform
        lambda xs, w: mg.vmap(lambda x: (x @ w).tanh().sum())(xs),  # captured (lesson 14)
        lambda xs, w: mg.vmap(lambda x, v: (x @ v).sum(), in_axes=(0, None))(xs, w),
        lambda xs, w: mg.vmap(mg.vmap(lambda x: (x @ w).sum()))(xs.reshape(2, 2, 3)),
    ],
    ids=["eager", "vmap captured", "vmap in_axes None", "nested vmap"],
)
def test_a_named_constant_keeps_its_name_in_the_drawing(run):
    # A constant (no grad wanted) is held in the graph by its description only;
    # that description keeps the tensor's name, through vmap too.
    xs = mg.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    xs.label = "xs"
    w = mg.tensor(np.ones((3, 2)))
    w.label = "W"
    source = draw(run(xs, w)).source
    assert lines_with(source, "{ W |"), source
    assert lines_with(source, "{ xs |"), source


def test_vmap_shows_f_its_arguments_names():
    xs = mg.ones(4, 3)
    xs.label = "xs"
    seen = []
    mg.vmap(lambda x: seen.append(x.label) or x.sum())(xs)
    assert seen == ["xs"]


@pytest.fixture
def fake_dot(tmp_path, monkeypatch):
    dot = tmp_path / "dot"
    dot.write_text(FAKE_DOT.format(python=sys.executable))
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    return tmp_path


@pytest.fixture
def no_dot(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no dot anywhere


def test_with_dot_on_path_dot_renders(fake_dot):
    g = draw(small_graph())
    assert g.svg() == "<svg><!-- fake dot --></svg>"
    assert g._repr_mimebundle_() == {"image/svg+xml": "<svg><!-- fake dot --></svg>"}
    written = g.render(fake_dot / "picture", format="svg")
    assert (fake_dot / "picture.svg").read_text() == "<svg><!-- fake dot --></svg>"
    assert written.endswith("picture.svg")


def test_without_dot_pygraphviz_renders_if_installed(no_dot):
    g = draw(small_graph())
    if importlib.util.find_spec("pygraphviz") is None:
        assert g._repr_mimebundle_() == {"text/plain": f"{g.source}\n{INSTALL_HINT}"}
        return
    svg = g.svg()
    assert "<svg" in svg and "out" in svg and "tanh" in svg
    assert g._repr_mimebundle_() == {"image/svg+xml": svg}
    assert g._repr_svg_() == svg


def test_without_dot_or_pygraphviz_the_source_and_a_hint_are_shown(no_dot, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # import pygraphviz now fails
    g = draw(small_graph())
    bundle = g._repr_mimebundle_()
    assert bundle == {"text/plain": f"{g.source}\n{INSTALL_HINT}"}
    assert "apt-get install graphviz" in INSTALL_HINT and "pip install pygraphviz" in INSTALL_HINT
    assert g._repr_svg_() is None
    with pytest.raises(RuntimeError, match="dot` program was not found"):
        g.svg()
    # What a notebook does to show the object: no exception, the text appears.
    data, _ = DisplayFormatter().format(g)
    assert "image/svg+xml" not in data and INSTALL_HINT in data["text/plain"]


def test_a_failing_renderer_gives_text_not_a_traceback(no_dot, monkeypatch):
    class BrokenAGraph:
        def __init__(self, string):
            raise OSError("renderer exploded")

    monkeypatch.setitem(sys.modules, "pygraphviz", SimpleNamespace(AGraph=BrokenAGraph))
    bundle = draw(small_graph())._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    assert bundle["text/plain"].endswith("(No picture: renderer exploded)")


def test_the_face_binds_the_function():
    assert mg.draw is draw


def test_a_static_graphs_dead_code_is_drawn_greyed_and_marked():
    """Lesson 13's "before" picture of dead-code elimination shows the dead exp (issue 21):
    a walk back from the outputs alone never reaches it."""
    import minigrad as mg
    from minigrad.compile import passes

    def leftover(x, w):
        unused = (x * w).exp()  # noqa: F841 - the dead code
        return (x * w).tanh()

    traced = mg.make_graph(leftover)(mg.ones(3), mg.ones(3))
    before, after = draw(traced).source, draw(passes.eliminate_dead_code(traced)).source
    assert "label=exp" in before and "label=exp" not in after
    dead = [line for line in before.splitlines() if "(dead)" in line]
    assert len(dead) == 2  # the exp and the product only it reads
    assert all("gray60" in line and "dashed" in line for line in dead)
    assert "(dead)" not in after and "gray60" not in after
    live = [line for line in before.splitlines() if "label=tanh" in line]
    assert live and "gray60" not in live[0]
