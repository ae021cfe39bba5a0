"""Keras's sequence-to-sequence example (lstm_seq2seq.py, "A ten-minute introduction to
sequence-to-sequence learning in Keras"), on a task that needs no download: each source
sequence of tokens is to be written back reversed. The encoder LSTM reads the source and
hands its final states to the decoder LSTM as ``initial_state``; the decoder is trained with
teacher forcing, then decodes greedily, one token at a time, through inference models made of
the same layers.
"""
import numpy as np
import distflow as tf

tf.set_random_seed(1)
np.random.seed(1)
rng = np.random.RandomState(0)
num_tokens, steps, n = 6, 5, 2000  # token 0 starts the decoder's input
sources = rng.randint(1, num_tokens, size=(n, steps))
targets = sources[:, ::-1]
encoder_input_data = np.eye(num_tokens, dtype='float32')[sources]
decoder_input_data = np.eye(num_tokens, dtype='float32')[np.concatenate([np.zeros((n, 1), int), targets[:, :-1]], 1)]
decoder_target_data = np.eye(num_tokens, dtype='float32')[targets]

latent_dim = 64
encoder_inputs = tf.keras.layers.Input(shape=(None, num_tokens))
encoder = tf.keras.layers.LSTM(latent_dim, return_state=True)
encoder_outputs, state_h, state_c = encoder(encoder_inputs)
encoder_states = [state_h, state_c]

decoder_inputs = tf.keras.layers.Input(shape=(None, num_tokens))
decoder_lstm = tf.keras.layers.LSTM(latent_dim, return_sequences=True, return_state=True)
decoder_outputs, _, _ = decoder_lstm(decoder_inputs, initial_state=encoder_states)
decoder_dense = tf.keras.layers.Dense(num_tokens, activation='softmax')
decoder_outputs = decoder_dense(decoder_outputs)

model = tf.keras.models.Model([encoder_inputs, decoder_inputs], decoder_outputs)
model.compile(optimizer='adam', loss='categorical_crossentropy', metrics=['accuracy'])
history = model.fit([encoder_input_data, decoder_input_data], decoder_target_data, batch_size=64, epochs=12,
                    validation_split=0.1, verbose=0)
print('trainable weights:', len(model.trainable_weights))
print('validation accuracy: %.4f' % history.history['val_acc'][-1])

# inference: the encoder gives the states; the decoder runs one step at a time from them
encoder_model = tf.keras.models.Model(encoder_inputs, encoder_states)
decoder_state_input_h = tf.keras.layers.Input(shape=(latent_dim,))
decoder_state_input_c = tf.keras.layers.Input(shape=(latent_dim,))
decoder_states_inputs = [decoder_state_input_h, decoder_state_input_c]
decoder_outputs, state_h, state_c = decoder_lstm(decoder_inputs, initial_state=decoder_states_inputs)
decoder_outputs = decoder_dense(decoder_outputs)
decoder_model = tf.keras.models.Model([decoder_inputs] + decoder_states_inputs,
                                      [decoder_outputs, state_h, state_c])


def decode_sequence(input_seq):
    states_value = encoder_model.predict(input_seq)
    target_seq = np.zeros((1, 1, num_tokens), dtype='float32')
    target_seq[0, 0, 0] = 1.0
    decoded = []
    for _ in range(steps):
        output_tokens, h, c = decoder_model.predict([target_seq] + states_value)
        token = int(np.argmax(output_tokens[0, -1, :]))
        decoded.append(token)
        target_seq = np.zeros((1, 1, num_tokens), dtype='float32')
        target_seq[0, 0, token] = 1.0
        states_value = [h, c]
    return decoded


held_out = range(n - 50, n)  # the validation split's sequences
right = sum(decode_sequence(encoder_input_data[i:i + 1]) == list(targets[i]) for i in held_out)
print('-')
print('Input sequence:', sources[n - 1].tolist())
print('Decoded sentence:', decode_sequence(encoder_input_data[n - 1:n]))
print('decoded exactly: %d of %d' % (right, len(held_out)))
