"""Export to ONNX and replay with NumPy (lesson 16): ``mg.onnx.export``, ``mg.onnx.load``.

- ``export``  a traced graph (a function or a Module, on example arguments) as an ONNX
              model: ``If``/``Scan``/``Loop`` for cond/scan/while_loop, weights as initializers
- ``replay``  ``load(path)``: the model's nodes run one by one in NumPy (no minigrad, no
              onnxruntime)

The ``onnx`` package (the ``export`` extra) is imported when first used, never by
``import minigrad``.
"""

from minigrad.onnx.export import CONVERTERS, ExportError, export, to_onnx
from minigrad.onnx.replay import Replay, ReplayError, load

__all__ = ["CONVERTERS", "ExportError", "Replay", "ReplayError", "export", "load", "to_onnx"]
