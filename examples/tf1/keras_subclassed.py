"""A subclassed tf.keras model, as TF 1.x's Keras guide wrote one: layers made in
``__init__``, the forward pass in ``call``, trained with compile and fit; callbacks stop
early and lower the learning rate. The data: two interleaved spirals.
"""
import numpy as np
import distflow as tf


class MyModel(tf.keras.Model):

    def __init__(self, num_classes=2):
        super(MyModel, self).__init__(name='my_model')
        self.num_classes = num_classes
        self.dense_1 = tf.keras.layers.Dense(64, activation='relu')
        self.dense_2 = tf.keras.layers.Dense(64, activation='relu')
        self.dense_3 = tf.keras.layers.Dense(num_classes, activation='softmax')

    def call(self, inputs):
        return self.dense_3(self.dense_2(self.dense_1(inputs)))


rng = np.random.RandomState(0)
t = rng.rand(1000) * 3 * np.pi
label = rng.randint(0, 2, 1000)
r = t / (3 * np.pi)
angle = t + np.pi * label
data = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1).astype('float32')
data += rng.randn(*data.shape).astype('float32') * 0.02
labels = tf.keras.utils.to_categorical(label, 2)

model = MyModel(num_classes=2)
model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
              loss='categorical_crossentropy',
              metrics=['accuracy'])
callbacks = [tf.keras.callbacks.EarlyStopping(monitor='val_loss', patience=10, restore_best_weights=True),
             tf.keras.callbacks.ReduceLROnPlateau(monitor='val_loss', factor=0.5, patience=4)]
model.fit(data[:800], labels[:800], batch_size=32, epochs=60, verbose=0,
          validation_data=(data[800:], labels[800:]), callbacks=callbacks)
loss, acc = model.evaluate(data[800:], labels[800:], verbose=0)
print('trainable weights:', len(model.trainable_weights))
print('Test accuracy: %.4f' % acc)
