"""A functional tf.keras model with two inputs and two outputs, as the Keras guide's
"multi-input and multi-output models" wrote it: a headline (word indices) and extra
metadata go in; a main output and an auxiliary one (on the headline alone) come out,
weighted 1 and 0.2. Synthetic data: a headline is "popular" when it holds a hot word
(indices 1-9) and the metadata's first feature is positive.
"""
import numpy as np
import distflow as tf

tf.set_random_seed(1)  # the weights' initial values
np.random.seed(1)  # the order fit shuffles the batches in
rng = np.random.RandomState(0)
n = 2000
headlines = rng.randint(10, 1000, size=(n, 20))
hot = rng.rand(n) < 0.5
headlines[hot, rng.randint(0, 20, size=hot.sum())] = rng.randint(1, 10, size=hot.sum())
metadata = rng.randn(n, 5).astype('float32')
main_labels = (hot & (metadata[:, 0] > 0)).astype('float32')
aux_labels = hot.astype('float32')

main_input = tf.keras.Input(shape=(20,), dtype='int32', name='main_input')
x = tf.keras.layers.Embedding(output_dim=32, input_dim=1000, input_length=20)(main_input)
lstm_out = tf.keras.layers.LSTM(32)(x)
auxiliary_output = tf.keras.layers.Dense(1, activation='sigmoid', name='aux_output')(lstm_out)
auxiliary_input = tf.keras.Input(shape=(5,), name='aux_input')
x = tf.keras.layers.concatenate([lstm_out, auxiliary_input])
x = tf.keras.layers.Dense(64, activation='relu')(x)
x = tf.keras.layers.Dense(64, activation='relu')(x)
main_output = tf.keras.layers.Dense(1, activation='sigmoid', name='main_output')(x)

model = tf.keras.Model(inputs=[main_input, auxiliary_input], outputs=[main_output, auxiliary_output])
model.compile(optimizer='rmsprop',
              loss={'main_output': 'binary_crossentropy', 'aux_output': 'binary_crossentropy'},
              loss_weights={'main_output': 1., 'aux_output': 0.2},
              metrics=['accuracy'])
model.summary()
model.fit({'main_input': headlines[:1600], 'aux_input': metadata[:1600]},
          {'main_output': main_labels[:1600], 'aux_output': aux_labels[:1600]},
          epochs=8, batch_size=32, verbose=2)
results = model.evaluate([headlines[1600:], metadata[1600:]], [main_labels[1600:], aux_labels[1600:]], verbose=0)
for name, value in zip(model.metrics_names, results):
    print('test %s: %.4f' % (name, value))
