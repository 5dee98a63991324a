"""In-place changes through views and of their bases, against PyTorch (issue 22).

Each case is ``case(m, device)``, run once with ``m = torch`` (on the CPU) and once
with ``m = minigrad`` on ``device``; it returns tensors (values, gradients) or
raises. ``compare`` says whether both did the same: equal numbers, or the same
exception type and first line. ``tests/tensor/test_torch_views.py`` runs the cases
on the CPU, ``tests/backends/cuda_sim/test_cuda_views.py`` on the CUDA device.
"""

from __future__ import annotations

import numpy as np
import torch

import minigrad as mg


def _t(m, values, device, requires_grad=False):
    if m is torch:
        return torch.tensor(values, requires_grad=requires_grad)
    return mg.tensor(values, requires_grad=requires_grad, device=device)


def slice_of_a_graph_tensor(m, d):
    a = _t(m, [1.0, 2, 3], d, True)
    y = a * 2
    v = y[1:]
    v.mul_(a[:2])
    y.sum().backward()
    return y, v, a.grad


def base_changed_under_a_transpose_and_a_reshape(m, d):
    a = _t(m, [[1.0, 2], [3, 4]], d, True)
    y = a * 1
    v, r = y.T, y.reshape(4)
    y.mul_(_t(m, [[2.0, 3], [4, 5]], d))
    (v.sum() + (r * r).sum()).backward()
    return y, v, r, a.grad


def view_of_a_view(m, d):
    a = _t(m, [[1.0, 2], [3, 4]], d, True)
    y = a * 1
    v = y[0]
    w = v[1:]
    w.mul_(5)
    y.sum().backward()
    return y, v, a.grad


def unrecorded_write_through_a_strided_view(m, d):
    x = _t(m, [[1.0, 2, 3], [4, 5, 6]], d)
    v = x[:, ::2]
    v.add_(10)
    return x, v


def unrecorded_write_through_a_transpose(m, d):
    x = _t(m, [[1.0, 2, 3], [4, 5, 6]], d)
    v = x.T
    v.zero_()
    return x, v


def recorded_change_of_an_overlapping_expand(m, d):
    x = _t(m, [[1.0, 2]], d, True) * 1
    e = x.expand(3, 2)
    e.mul_(2)
    return (e,)


def unrecorded_change_of_an_overlapping_expand(m, d):
    x = _t(m, [1.0, 2], d)
    e = x.expand(3, 2)
    with m.no_grad():
        e.mul_(2)
    return (e,)


def base_of_an_expand_changed(m, d):
    a = _t(m, [[1.0, 2]], d, True)
    x = a * 1
    e = x.expand(3, 2)
    x.mul_(_t(m, [[2.0, 3]], d))
    e.sum().backward()
    return e, a.grad


def base_of_an_expand_as_changed(m, d):
    a = _t(m, [[1.0, 2]], d, True)
    x = a * 1
    e = x.expand_as(_t(m, [[0.0, 0], [0, 0]], d))
    x.add_(1)
    (e * e).sum().backward()
    return e, a.grad


def expand_without_overlap_written_through(m, d):
    a = _t(m, [1.0, 2], d, True)
    x = a * 1
    e = x.expand(1, 2)
    e.mul_(2)
    x.sum().backward()
    return x, e, a.grad


def base_of_broadcast_to_changed(m, d):
    a = _t(m, [[1.0, 2]], d, True)
    x = a * 1
    e = m.broadcast_to(x, (3, 2))
    x.mul_(_t(m, [[2.0, 3]], d))
    (e * e).sum().backward()
    return e, a.grad


def broadcast_to_written_into(m, d):
    x = _t(m, [1.0, 2], d)
    m.broadcast_to(x, (3, 2)).add_(1)
    return (x,)


def broadcast_to_without_overlap_written_through(m, d):
    x = _t(m, [1.0, 2], d)
    with m.no_grad():
        m.broadcast_to(x, (1, 2)).mul_(3)
    return (x,)


def diagonal_written_through_in_a_graph(m, d):
    a = _t(m, [[0.0, 1, 2], [3, 4, 5], [6, 7, 8]], d, True)
    x = a * 1
    v = x.diagonal(1)
    v.mul_(a[0, :2])
    (x * x).sum().backward()
    return x, v, a.grad


def base_of_a_diagonal_changed(m, d):
    a = _t(m, [[[1.0, 2], [3, 4]], [[5, 6], [7, 8]]], d, True)
    x = a * 1
    v = m.diagonal(x, -1, 2, 0)
    x.mul_(2)
    (v * v).sum().backward()
    return v, a.grad


def diagonal_of_a_strided_base_zeroed(m, d):
    x = _t(m, [[0.0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], d)
    v = x.T[::2].diagonal()
    v.zero_()
    return x, v


def diagonal_of_a_leaf_changed(m, d):
    a = _t(m, [[1.0, 2], [3, 4]], d, True)
    a.diagonal().add_(1)
    return (a,)


def diagonal_beyond_the_matrix_copied_into(m, d):
    x = _t(m, [[1.0, 2], [3, 4]], d)
    v = x.diagonal(2)
    v.copy_(_t(m, [5.0], d)[:0])
    return x, v


def base_of_broadcast_tensors_and_meshgrid_changed(m, d):
    a = _t(m, [[1.0], [2]], d, True)
    x = a * 1
    b, _ = m.broadcast_tensors(x, _t(m, [0.0, 0, 0], d))
    g, _ = m.meshgrid(x[:, 0], _t(m, [0.0, 0, 0], d), indexing="ij")
    x.mul_(3)
    (b * g).sum().backward()
    return b, g, a.grad


def no_grad_view_changed_with_a_tensor_that_requires_grad(m, d):
    x = _t(m, [0.0, 0, 0], d)
    with m.no_grad():
        v = x[1:]
    v.mul_(_t(m, [1.0, 1], d, True))
    return (x,)


def no_grad_view_of_a_graph_tensor_changed(m, d):
    x = _t(m, [0.0, 0, 0], d, True) * 1
    with m.no_grad():
        v = x[1:]
    v.add_(1)
    return (x,)


def view_of_a_no_grad_view_changed(m, d):
    x = _t(m, [0.0, 0, 0], d, True) * 1
    with m.no_grad():
        v = x.reshape(3)[1:]
    w = v.reshape(1, 2)
    w.add_(1)
    return (x,)


def no_grad_view_changed_outside_any_graph(m, d):
    x = _t(m, [0.0, 0, 0], d)
    with m.no_grad():
        v = x[1:]
    v.add_(_t(m, [1.0, 1], d))
    return x, v


def no_grad_view_changed_under_no_grad(m, d):
    y = _t(m, [1.0, 1, 1], d, True) * 2
    with m.no_grad():
        v = y[1:]
        v.add_(1)
    y.sum().backward()
    return y.detach(), v


def _no_grad_view_of_a_graph_tensor(m, d):
    a = _t(m, [1.0, 2, 3], d, True)
    x = a * 1
    with m.no_grad():
        v = x[0:2]
    return x, v


def no_grad_view_used_after_its_base_changed(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x.mul_(2)
    return (v * 3,)


def no_grad_view_used_after_its_base_changed_under_no_grad(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    with m.no_grad():
        x.mul_(2)
    return (v.sum(),)


def no_grad_view_read_after_its_base_changed(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x[1:].mul_(2)
    with m.no_grad():
        w = v * 3
    return w, v.detach() + 1, v == 4


def no_grad_view_asked_to_retain_its_grad_after_its_base_changed(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x.mul_(2)
    v.retain_grad()
    return (x,)


def view_of_a_no_grad_view_used_after_the_base_changed(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    w = v[1:]
    x.add_(1)
    return (w * 3,)


def no_grad_view_used_after_a_change_through_detach(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x.detach().zero_()  # detach() shares the memory, and PyTorch's version counter
    return (v * 3,)


def no_grad_view_of_a_leaf_used_after_a_change_through_detach(m, d):
    p = _t(m, [1.0, 2, 3], d, True)
    with m.no_grad():
        v = p[:2]
    p.detach().mul_(2)
    return (v.sum(),)


def no_grad_view_used_after_a_change_through_its_own_detach(m, d):
    _x, v = _no_grad_view_of_a_graph_tensor(m, d)
    v.detach().add_(1)
    return (v * 3,)


def no_grad_view_used_after_a_change_through_a_slice_of_detach(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x.detach()[2:].zero_()  # elements the view does not cover: the counter is the memory's
    return (v * 3,)


def no_grad_view_read_after_a_change_through_detach(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x.detach().zero_()
    with m.no_grad():
        w = v * 3
    return w, v.detach() + 1


def no_grad_view_used_after_a_recorded_change_through_detach(m, d):
    x, v = _no_grad_view_of_a_graph_tensor(m, d)
    x.detach().mul_(_t(m, [1.0, 2, 3], d, True))
    return (v * 3,)


def no_grad_view_of_a_plain_tensor_after_a_change_through_detach(m, d):
    x = _t(m, [1.0, 2, 3], d)
    with m.no_grad():
        v = x[:2]
    x.detach().zero_()
    return (v * 3,)


def no_grad_diagonal_of_a_leaf_used_after_a_step(m, d):
    p = _t(m, [[1.0, 2], [3, 4]], d, True)
    with m.no_grad():
        v = p.diagonal()
        p.mul_(0.5)
    return (v.exp(),)


def split_piece_used_after_its_base_changed(m, d):
    y = _t(m, [[1.0, 2, 3], [4, 5, 6]], d, True) * 1
    piece = y.split(1)[0]
    y.mul_(2)
    return (piece * 3,)


def element_of_a_vector_changed(m, d):
    a = _t(m, [1.0, 2, 3], d, True)
    y = a * 1
    y[1].mul_(3)
    y.sum().backward()
    return y, a.grad


def split_piece_changed(m, d):
    y = _t(m, [[1.0, 2, 3], [4, 5, 6]], d, True) * 1
    y.split(1)[0].mul_(2)
    return (y,)


def chunk_piece_changed(m, d):
    y = _t(m, [[1.0, 2, 3], [4, 5, 6]], d, True) * 1
    y.chunk(2)[1].mul_(2)
    return (y,)


def split_with_sizes_piece_changed(m, d):
    y = _t(m, [[1.0, 2, 3], [4, 5, 6]], d, True) * 1
    y.split([1, 1])[1].mul_(2)
    return (y,)


def unbind_slice_changed(m, d):
    y = _t(m, [[1.0, 2, 3], [4, 5, 6]], d, True) * 1
    y.unbind(1)[2].mul_(2)
    return (y,)


def view_of_a_split_piece_changed(m, d):
    y = _t(m, [[1.0, 2, 3], [4, 5, 6]], d, True) * 1
    y.split(1)[0][0].mul_(2)
    return (y,)


def split_piece_of_a_plain_tensor_changed_with_a_graph_tensor(m, d):
    x = _t(m, [[1.0, 2, 3], [4, 5, 6]], d)
    x.split(1)[0].mul_(_t(m, [1.0, 2, 3], d, True))
    return (x,)


def split_piece_changed_outside_any_graph(m, d):
    x = _t(m, [[1.0, 2, 3], [4, 5, 6]], d)
    x.split(1)[0].mul_(2)
    return (x,)


CASES = {
    name: case
    for name, case in globals().items()
    if callable(case) and not name.startswith("_") and case.__module__ == __name__
    and name != "compare"
}  # fmt: skip


def _run(case, m, device):
    try:
        out = case(m, device)
    except Exception as error:  # the comparison is the point
        return type(error).__name__, str(error).splitlines()[0]
    return [None if t is None else np.asarray(_host(t), dtype=np.float64) for t in out]


def _host(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return t.detach().cpu().numpy()


def compare(name: str, device: str) -> None:
    """Assert that the case does the same in minigrad on ``device`` as in PyTorch."""
    theirs, ours = _run(CASES[name], torch, "cpu"), _run(CASES[name], mg, device)
    if isinstance(theirs, tuple) or isinstance(ours, tuple):
        assert ours == theirs
        return
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        np.testing.assert_array_equal(got, want)
