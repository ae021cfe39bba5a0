"""``tf.saved_model``: a model's graph and variables in a directory, to load into a session
elsewhere (serving, or another program), as TensorFlow 1.x's SavedModel.

``simple_save``, ``builder.SavedModelBuilder`` (``Builder``), ``loader.load`` (``load``),
signature defs (``signature_def_utils``, ``build_tensor_info``), ``main_op``, the
``tag_constants``, ``signature_constants`` and ``constants``. ``saved_model.pb`` is
TensorFlow's SavedModel proto; the variables are a distflow checkpoint, so TensorFlow
cannot restore them. A SavedModel that TensorFlow 1.x wrote loads (its graph is imported,
its variables read from TensorFlow's checkpoint) where its graph holds ops distflow has.
Not here: TensorFlow 2's object-based ``save`` and ``load_v2``.
"""

from __future__ import annotations

from .._namespace import missing
from . import builder, constants, loader, main_op, signature_constants, signature_def_utils, tag_constants  # noqa: F401
from . import utils  # noqa: F401
from .builder import SavedModelBuilder as Builder
from .constants import (ASSETS_DIRECTORY, ASSETS_KEY, DEBUG_DIRECTORY, LEGACY_INIT_OP_KEY,  # noqa: F401
                        MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT,
                        SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
from .loader import contains_saved_model, load  # noqa: F401
from .main_op import main_op_with_restore  # noqa: F401
from .signature_constants import (CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME, CLASSIFY_OUTPUT_CLASSES,  # noqa: F401
                                  CLASSIFY_OUTPUT_SCORES, DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS,
                                  PREDICT_METHOD_NAME, PREDICT_OUTPUTS, REGRESS_INPUTS, REGRESS_METHOD_NAME,
                                  REGRESS_OUTPUTS)
from .signature_def_utils import (build_signature_def, classification_signature_def,  # noqa: F401
                                  is_valid_signature, predict_signature_def, regression_signature_def)
from .tag_constants import GPU, SERVING, TPU, TRAINING  # noqa: F401
from .utils import build_tensor_info, get_tensor_from_tensor_info  # noqa: F401


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Saves ``session``'s graph and variables as a SavedModel for serving: one meta graph
    tagged ``serve``, whose default signature predicts ``outputs`` from ``inputs`` (dicts
    of name -> tensor), with the graph's asset files and devices cleared."""
    saved = Builder(export_dir)
    with session.graph.as_default():
        saved.add_meta_graph_and_variables(
            session, tags=[SERVING],
            signature_def_map={DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)},
            assets_collection=session.graph.get_collection("asset_filepaths"), main_op=legacy_init_op,
            clear_devices=True)
    saved.save()


__getattr__ = missing("tf.saved_model")
