"""Neural-network building blocks: modules, layers, losses (lesson 06).

>>> import minigrad as mg
>>> model = mg.nn.MLP([4, 8, 3])
>>> loss = mg.nn.functional.cross_entropy(model(mg.randn(5, 4)), [0, 1, 2, 0, 1])
>>> loss.backward()
>>> [p.grad.shape for p in model.parameters()]
[(8, 4), (8,), (3, 8), (3,)]
"""

from minigrad.nn import functional, init, utils
from minigrad.nn.activation import ELU, GELU, Hardtanh, LeakyReLU, SiLU, Softplus
from minigrad.nn.activation_functions import (
    CELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    LogSigmoid,
    Mish,
    ReLU6,
    Softmin,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from minigrad.nn.adaptive_pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
)
from minigrad.nn.affine import Bilinear
from minigrad.nn.channel_layers import ChannelShuffle, LocalResponseNorm, PReLU
from minigrad.nn.containers import ModuleDict, ModuleList, ParameterDict, ParameterList
from minigrad.nn.conv import AvgPool2d, AvgPool3d, Conv1d, Conv2d, Conv3d, MaxPool2d, MaxPool3d
from minigrad.nn.conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from minigrad.nn.ctc import CTCLoss
from minigrad.nn.distances import (
    CosineEmbeddingLoss,
    CosineSimilarity,
    MarginRankingLoss,
    PairwiseDistance,
    TripletMarginLoss,
)
from minigrad.nn.dropout import Dropout
from minigrad.nn.embedding import Embedding
from minigrad.nn.embedding_bags import EmbeddingBag
from minigrad.nn.encoder_decoder import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from minigrad.nn.feature_dropout import (
    AlphaDropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from minigrad.nn.fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d
from minigrad.nn.group_norms import (
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    RMSNorm,
)
from minigrad.nn.interpolation import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from minigrad.nn.likelihood_losses import GaussianNLLLoss, PoissonNLLLoss
from minigrad.nn.linear import MLP, Linear
from minigrad.nn.losses import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from minigrad.nn.margin_losses import (
    HingeEmbeddingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    SoftMarginLoss,
    TripletMarginWithDistanceLoss,
)
from minigrad.nn.module import Flatten, Module, ReLU, Sequential, Sigmoid, Tanh
from minigrad.nn.multi_head_attention import MultiheadAttention
from minigrad.nn.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm
from minigrad.nn.padding_layers import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from minigrad.nn.parameter import Buffer, Parameter
from minigrad.nn.pooling import AvgPool1d, LPPool1d, LPPool2d, LPPool3d, MaxPool1d
from minigrad.nn.random_activations import RReLU
from minigrad.nn.recurrent import GRU, LSTM, RNN
from minigrad.nn.recurrent_cells import GRUCell, LSTMCell, RNNCell
from minigrad.nn.resampling import Fold, PixelShuffle, PixelUnshuffle, Unfold
from minigrad.nn.shape_layers import Identity, Unflatten
from minigrad.nn.softmax_layers import LogSoftmax, Softmax, Softmax2d
from minigrad.nn.transformer import (
    GPT,
    KVCache,
    LearnedPositions,
    SinusoidalPositions,
    TransformerBlock,
)
from minigrad.nn.unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "GPT",
    "GRU",
    "LSTM",
    "MLP",
    "RNN",
    "SELU",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Bilinear",
    "ChannelShuffle",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "CosineEmbeddingLoss",
    "CosineSimilarity",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "EmbeddingBag",
    "Flatten",
    "Fold",
    "GaussianNLLLoss",
    "GroupNorm",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "KLDivLoss",
    "KVCache",
    "L1Loss",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "LayerNorm",
    "LeakyReLU",
    "LearnedPositions",
    "Linear",
    "LocalResponseNorm",
    "LogSigmoid",
    "MSELoss",
    "MarginRankingLoss",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "Mish",
    "Module",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "MultiheadAttention",
    "NLLLoss",
    "PReLU",
    "PairwiseDistance",
    "Parameter",
    "PixelShuffle",
    "PixelUnshuffle",
    "PoissonNLLLoss",
    "RMSNorm",
    "ReLU",
    "ReLU6",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SinusoidalPositions",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
    "TransformerBlock",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "Unfold",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "functional",
    "utils",
]  # fmt: skip
__all__ += ["AlphaDropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
__all__ += [
    "BatchNorm3d",
    "Buffer",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "Identity",
    "InstanceNorm3d",
    "LogSoftmax",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "Softmax",
    "Softmax2d",
    "Unflatten",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]  # fmt: skip
__all__ += ["GRUCell", "LSTMCell", "RNNCell"]
__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder"]
__all__ += ["TransformerEncoderLayer"]
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
__all__ += ["CTCLoss", "RReLU"]
