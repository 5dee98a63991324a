"""Optimizers and learning-rate schedules, as ``torch.optim`` (lesson 06).

Every optimizer changes the parameters in place under ``no_grad``, so the
model's parameter objects stay the same ones.

>>> import minigrad as mg
>>> w = mg.tensor(5.0, requires_grad=True)
>>> opt = mg.optim.SGD([w], lr=0.25)
>>> for _ in range(20):
...     opt.zero_grad(); ((w - 3.0) ** 2).backward(); opt.step()
>>> round(w.item(), 4)   # the minimum of (w - 3)^2
3.0
"""

from minigrad.optim import lr_scheduler
from minigrad.optim.adagrad import Adadelta, Adagrad
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.adam_variants import Adamax, NAdam, RAdam
from minigrad.optim.lbfgs import LBFGS
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.rmsprop import RMSprop
from minigrad.optim.rprop import ASGD, Rprop
from minigrad.optim.sgd import SGD

__all__ = [
           "ASGD",
           "SGD",
           "Adadelta",
           "Adagrad",
           "Adam",
           "AdamW",
           "Adamax",
           "NAdam",
           "Optimizer",
           "RAdam",
           "RMSprop",
           "Rprop",
           "lr_scheduler",
]  # fmt: skip
