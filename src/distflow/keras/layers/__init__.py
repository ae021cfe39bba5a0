"""``tf.keras.layers``."""

from ..engine.base_layer import InputSpec, Layer  # noqa: F401
from ..engine.input_layer import Input, InputLayer  # noqa: F401
from .advanced_activations import ELU, LeakyReLU, PReLU, ReLU, Softmax, ThresholdedReLU  # noqa: F401
from .convolutional import (AveragePooling1D, AveragePooling2D, AveragePooling3D, AvgPool1D, AvgPool2D,  # noqa: F401
                            AvgPool3D, Conv1D, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose, Convolution1D,
                            Convolution2D, Convolution2DTranspose, Convolution3D, Convolution3DTranspose,
                            Deconvolution3D, Cropping2D, Deconvolution2D, DepthwiseConv2D,
                            GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D, GlobalAvgPool1D,
                            GlobalAvgPool2D, GlobalAvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
                            GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D, LocallyConnected1D,
                            LocallyConnected2D, MaxPool1D, MaxPool2D,
                            MaxPool3D, MaxPooling1D, MaxPooling2D, MaxPooling3D, SeparableConv1D, SeparableConv2D,
                            SeparableConvolution1D, SeparableConvolution2D, UpSampling1D, UpSampling2D, UpSampling3D, ZeroPadding1D,
                            ZeroPadding2D, ZeroPadding3D, Cropping1D, Cropping3D)
from .convolutional_recurrent import ConvLSTM2D  # noqa: F401
from .dense_attention import AdditiveAttention, Attention  # noqa: F401
from .dense_features import DenseFeatures  # noqa: F401
from .core import (Activation, Dense, Dropout, Embedding, Flatten, Lambda, Permute, RepeatVector,  # noqa: F401
                   Reshape)
from .merge import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract, add,  # noqa: F401
                    average, concatenate, dot, multiply, subtract)
from .merge import maximum_ as maximum, minimum_ as minimum  # noqa: F401
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
from .noise import (ActivityRegularization, AlphaDropout, GaussianDropout, GaussianNoise, Masking,  # noqa: F401
                    SpatialDropout1D, SpatialDropout2D, SpatialDropout3D)
from .recurrent import (GRU, GRUCell, LSTM, LSTMCell, RNN, AbstractRNNCell, Bidirectional, CuDNNGRU,  # noqa: F401
                        CuDNNLSTM, SimpleRNN, SimpleRNNCell, StackedRNNCells, TimeDistributed, Wrapper)
from ..engine.base_layer import deserialize, serialize  # noqa: F401
from ..._namespace import missing


__getattr__ = missing("tf.keras.layers")
