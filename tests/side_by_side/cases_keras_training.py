import numpy as np
INPUTS = dict(dummy=np.zeros(1, np.float32))
DATA = ("rng = np.random.RandomState(0)\nxs = rng.randn(32, 4).astype(np.float32)\nys = (xs @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) > 0).astype(np.float32)\n"
        "K = tf.keras\n")
def fit(model, compile_args, fit_args="epochs=3, batch_size=8, shuffle=False, verbose=0"):
    return ("py:\n" + DATA + f"model = {model}\nmodel.compile({compile_args})\nh = model.fit(xs, ys, {fit_args})\n"
            "out = [[round(float(v), 4) for v in np.ravel(w)] for w in model.get_weights()] + [[round(float(l), 4) for l in h.history['loss']]]")
SEQ = "K.Sequential([K.layers.Dense(3, activation='tanh', kernel_initializer=K.initializers.Constant(0.1), bias_initializer='zeros', input_shape=(4,)), K.layers.Dense(1, activation='sigmoid', kernel_initializer=K.initializers.Constant(-0.2))])"
CASES = [fit(SEQ, "K.optimizers.SGD(0.1), 'binary_crossentropy'"), fit(SEQ, "K.optimizers.SGD(0.1, momentum=0.9, nesterov=True), 'mse'"),
         fit(SEQ, "K.optimizers.Adam(0.01), 'binary_crossentropy', metrics=['accuracy']"), fit(SEQ, "K.optimizers.RMSprop(0.01), 'binary_crossentropy'"),
         fit(SEQ, "K.optimizers.Adagrad(0.1), 'binary_crossentropy'"), fit(SEQ, "K.optimizers.Adadelta(1.0), 'mse'"),
         fit(SEQ, "K.optimizers.Adamax(0.01), 'binary_crossentropy'"), fit(SEQ, "K.optimizers.Nadam(0.01), 'binary_crossentropy'"),
         fit(SEQ, "'sgd', 'binary_crossentropy'", "epochs=2, batch_size=5, shuffle=False, verbose=0, class_weight={0: 1.0, 1: 3.0}"),
         fit(SEQ, "'sgd', 'binary_crossentropy'", "epochs=2, batch_size=5, shuffle=False, verbose=0, sample_weight=np.linspace(0.1, 2, 32)"),
         fit(SEQ, "K.optimizers.SGD(0.1, decay=0.1), 'binary_crossentropy'")]
EMB = "K.Sequential([K.layers.Embedding(6, 3, embeddings_initializer=K.initializers.Constant(0.3), input_length=2), K.layers.Flatten(), K.layers.Dense(1, activation='sigmoid', kernel_initializer=K.initializers.Constant(-0.2))])"
def fit_ids(model, compile_args):
    return ("py:\n" + DATA + "ids = (np.abs(xs[:, :2]) * 2).astype(np.int32) % 6\n" + f"model = {model}\nmodel.compile({compile_args})\nh = model.fit(ids, ys, epochs=3, batch_size=8, shuffle=False, verbose=0)\n"
            "out = [[round(float(v), 4) for v in np.ravel(w)] for w in model.get_weights()] + [[round(float(l), 4) for l in h.history['loss']]]")
CASES += [fit(SEQ, "K.optimizers.RMSprop(0.01, centered=True), 'binary_crossentropy'"), fit(SEQ, "K.optimizers.RMSprop(0.01, momentum=0.5), 'binary_crossentropy'"),
          fit(SEQ, "K.optimizers.RMSprop(0.01, momentum=0.5, centered=True), 'binary_crossentropy'"),
          fit_ids(EMB, "K.optimizers.RMSprop(0.05), 'binary_crossentropy'"), fit_ids(EMB, "K.optimizers.RMSprop(0.05, centered=True), 'binary_crossentropy'"),
          fit_ids(EMB, "K.optimizers.Adam(0.05), 'binary_crossentropy'"), fit_ids(EMB, "K.optimizers.Adagrad(0.05), 'binary_crossentropy'"),
          fit_ids(EMB, "K.optimizers.SGD(0.05, momentum=0.9), 'binary_crossentropy'")]
CASES += [fit_ids(EMB, "K.optimizers.Adamax(0.05), 'binary_crossentropy'"), fit_ids(EMB, "K.optimizers.Nadam(0.05), 'binary_crossentropy'"),
          fit(SEQ, "'nadam', 'binary_crossentropy'"), fit(SEQ, "'adamax', 'mse'")]
IMG = ("rng2 = np.random.RandomState(1)\nimgs = rng2.rand(12, 6, 6, 2).astype(np.float32)\nlabels = (imgs.mean((1, 2, 3)) > 0.5).astype(np.float32).reshape(-1, 1)\n"
       "seqs = rng2.randn(12, 5, 3).astype(np.float32)\n")
def fit_img(model, compile_args, x="imgs", extra=""):
    return ("py:\n" + DATA + IMG + f"model = {model}\nmodel.compile({compile_args})\nh = model.fit({x}, labels, epochs=2, batch_size=4, shuffle=False, verbose=0)\n{extra}"
            "out = [[round(float(v), 3) for v in np.ravel(w)][:12] for w in model.get_weights()] + [[round(float(l), 4) for l in h.history['loss']]]")
C = "kernel_initializer=K.initializers.Constant(0.05)"
CASES += [
 fit_img(f"K.Sequential([K.layers.Conv2D(3, 3, padding='same', activation='relu', {C}, input_shape=(6, 6, 2)), K.layers.MaxPooling2D(), K.layers.Flatten(), K.layers.Dense(1, activation='sigmoid', {C})])", "K.optimizers.Adam(0.01), 'binary_crossentropy'"),
 fit_img(f"K.Sequential([K.layers.Conv2D(3, 3, {C}, input_shape=(6, 6, 2)), K.layers.BatchNormalization(), K.layers.Activation('relu'), K.layers.GlobalAveragePooling2D(), K.layers.Dense(1, activation='sigmoid', {C})])", "K.optimizers.SGD(0.1), 'binary_crossentropy'"),
 fit_img(f"K.Sequential([K.layers.LSTM(4, {C}, recurrent_initializer=K.initializers.Constant(0.1), input_shape=(5, 3)), K.layers.Dense(1, activation='sigmoid', {C})])", "K.optimizers.RMSprop(0.01), 'binary_crossentropy'", x="seqs"),
 fit_img(f"K.Sequential([K.layers.GRU(4, {C}, recurrent_initializer=K.initializers.Constant(0.1), input_shape=(5, 3)), K.layers.Dense(1, activation='sigmoid', {C})])", "K.optimizers.Adam(0.01), 'binary_crossentropy'", x="seqs"),
 fit_img(f"K.Sequential([K.layers.SimpleRNN(4, {C}, recurrent_initializer=K.initializers.Constant(0.1), return_sequences=True, input_shape=(5, 3)), K.layers.GlobalMaxPooling1D(), K.layers.Dense(1, activation='sigmoid', {C})])", "'sgd', 'binary_crossentropy'", x="seqs"),
 fit_img(f"K.Sequential([K.layers.Flatten(input_shape=(6, 6, 2)), K.layers.Dense(4, activation='relu', {C}, kernel_regularizer=K.regularizers.l2(0.01)), K.layers.Dense(1, activation='sigmoid', {C})])", "'adam', 'binary_crossentropy', metrics=['accuracy']"),
 fit_img(f"K.Sequential([K.layers.Flatten(input_shape=(6, 6, 2)), K.layers.Dense(1, activation='sigmoid', {C})])", "'sgd', 'binary_crossentropy', metrics=['accuracy', 'mse']", extra="h.history['loss'] = h.history['loss'] + [round(float(a), 4) for a in h.history['accuracy' if 'accuracy' in h.history else 'acc']] + [round(float(a), 4) for a in h.history['mean_squared_error']]\n"),
 fit_img(f"K.Sequential([K.layers.Flatten(input_shape=(6, 6, 2)), K.layers.Dense(1, activation='sigmoid', {C})])", "'sgd', 'binary_crossentropy'", extra="h.history['loss'] = h.history['loss'] + [round(float(v), 4) for v in np.ravel(model.evaluate(imgs, labels, batch_size=5, verbose=0))] + [round(float(v), 4) for v in np.ravel(model.predict(imgs[:3]))]\n"),
]
