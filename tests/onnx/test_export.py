"""Export to ONNX: checked by onnx.checker, run by onnxruntime and by the NumPy replay (lesson 16)."""

import numpy as np
import pytest

import minigrad as mg

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

F = mg.nn.functional


def _run(path, arrays):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, arrays)))


def _agree(f, args, tmp_path, rtol=1e-5, atol=1e-6, **options):
    path = tmp_path / "model.onnx"
    model = mg.onnx.export(f, args, path, **options)
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    assert model.opset_import[0].version >= 17
    want = [t.detach().numpy() for t in mg.tree.leaves(f(*args))]
    arrays = [a.detach().numpy() for a in args]
    for got in (_run(path, arrays), mg.onnx.load(path)(*arrays)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return model, path


class CNN(mg.nn.Module):  # lesson 12's
    def __init__(self, c1=4, c2=8):
        super().__init__()
        self.w1, self.b1 = mg.randn(c1, 1, 3, 3) * 0.3, mg.randn(c1) * 0.1
        self.w2, self.b2 = mg.randn(c2, c1, 3, 3) * 0.3, mg.randn(c2) * 0.1
        self.head = mg.nn.Linear(c2 * 4 * 4, 10)

    def forward(self, x):
        x = F.conv2d(x, self.w1, self.b1, padding=1).relu()
        x = F.max_pool2d(x, 2)
        x = F.conv2d(x, self.w2, self.b2, padding=1).relu()
        return self.head(x.reshape(x.shape[0], -1))


@pytest.mark.parametrize("model, shape", [(lambda: mg.nn.MLP(64, [64], 10), (5, 64)),
                                          (CNN, (5, 1, 8, 8))], ids=["mlp", "cnn"])  # fmt: skip
def test_lesson_models_export_agree_and_keep_a_dynamic_batch(model, shape, tmp_path):
    mg.manual_seed(0)
    net = model()
    axes = {"x": {0: "batch"}, "scores": {0: "batch"}}
    proto, path = _agree(net, (mg.rand(*shape),), tmp_path, input_names=["x"],
                         output_names=["scores"], dynamic_axes=axes)  # fmt: skip
    names = {t.name for t in proto.graph.initializer}
    assert {n for n, _ in net.named_parameters()} <= names  # the weights, by their names
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    other = mg.rand(7, *shape[1:])
    (got,) = _run(path, [other.detach().numpy()])
    np.testing.assert_allclose(got, net(other).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layer", [mg.nn.RNN, mg.nn.GRU, mg.nn.LSTM])
def test_recurrent_layers_export_as_one_scan_each(layer, tmp_path):
    mg.manual_seed(0)
    net = layer(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    proto, _ = _agree(net, (mg.randn(2, 6, 3),), tmp_path)
    kinds = [n.op_type for n in proto.graph.node]
    assert kinds.count("Scan") == 4  # two layers, two directions


def test_control_flow_becomes_if_scan_and_loop(tmp_path):
    def f(x):
        y = mg.cond(x.sum() > 0, lambda a: a.exp(), lambda a: a * 2, x)
        y = mg.while_loop(lambda c: c.abs().sum() < 50, lambda c: c * 1.5 + 0.1, y)
        return mg.scan(lambda c, t: (c * t + 1, c), mg.ones(()), y, reverse=True)

    for sign in (1.0, -1.0):
        proto, _ = _agree(f, (mg.tensor([0.5, -0.2, 0.3]) * sign,), tmp_path)
        assert [n.op_type for n in proto.graph.node if n.op_type in ("If", "Loop", "Scan")] == [
            "If", "Loop", "Scan"
        ]  # fmt: skip


def test_a_scan_whose_ys_nobody_reads_exports(tmp_path):
    # Only the final carry is a result: the ys are dead, and the Scan has no scan output.
    def f(x):
        carry, _ = mg.scan(lambda c, t: (c * 0.5 + t, c), mg.zeros(()), x)
        return carry

    proto, _ = _agree(f, (mg.tensor([0.5, -0.2, 0.3]),), tmp_path)
    (scan,) = [n for n in proto.graph.node if n.op_type == "Scan"]
    assert len(scan.output) == 1


def test_an_operation_without_an_onnx_spelling_is_named(tmp_path):
    with pytest.raises(mg.onnx.ExportError, match="'cumsum' has no ONNX spelling"):
        mg.onnx.export(lambda x: x.cumsum(0), (mg.ones(3),), tmp_path / "m.onnx")
    with pytest.raises(ValueError, match="opset_version must be 17 or newer"):
        mg.onnx.export(lambda x: x + 1, (mg.ones(3),), opset_version=13)


def test_the_replay_names_what_it_cannot_run():
    from onnx import helper

    node = helper.make_node("Hardmax", ["x"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])],
    )  # fmt: skip
    with pytest.raises(mg.onnx.ReplayError, match="'Hardmax'"):
        mg.onnx.Replay(helper.make_model(graph))(np.ones(2, np.float32))
