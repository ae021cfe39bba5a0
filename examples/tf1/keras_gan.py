"""A generative adversarial network in tf.keras, as the Keras GAN examples of the TF 1.x era
wrote it (DCGAN): the discriminator is compiled, then frozen (``trainable = False``) inside
the combined model that trains the generator, and the two are trained in turn with
``train_on_batch``. Keras trains a model's weights as they were when it was compiled, so the
discriminator still learns in its own steps. The "images" are 8x8 pictures of a bright 3x3
square on a dark ground, so that no download is needed.
"""
import numpy as np
import distflow as tf

tf.set_random_seed(2)
np.random.seed(2)
rng = np.random.RandomState(0)
latent_dim, batch = 16, 32


def real_images(n):
    images = -np.ones((n, 8, 8, 1), dtype='float32')
    for i in range(n):
        r, c = rng.randint(0, 6, size=2)
        images[i, r:r + 3, c:c + 3, 0] = 1.0
    return images


generator = tf.keras.Sequential([
    tf.keras.layers.Dense(4 * 4 * 32, input_shape=(latent_dim,)),
    tf.keras.layers.LeakyReLU(0.2),
    tf.keras.layers.Reshape((4, 4, 32)),
    tf.keras.layers.Conv2DTranspose(16, 3, strides=2, padding='same'),
    tf.keras.layers.BatchNormalization(momentum=0.8),
    tf.keras.layers.LeakyReLU(0.2),
    tf.keras.layers.Conv2D(1, 3, padding='same', activation='tanh'),
], name='generator')
discriminator = tf.keras.Sequential([
    tf.keras.layers.Conv2D(16, 3, strides=2, padding='same', input_shape=(8, 8, 1)),
    tf.keras.layers.LeakyReLU(0.2),
    tf.keras.layers.Dropout(0.25),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1, activation='sigmoid'),
], name='discriminator')
discriminator.compile(optimizer=tf.keras.optimizers.Adam(0.0005, 0.5), loss='binary_crossentropy',
                      metrics=['accuracy'])

discriminator.trainable = False  # (in the combined model only)
z = tf.keras.layers.Input(shape=(latent_dim,))
combined = tf.keras.models.Model(z, discriminator(generator(z)))
combined.compile(optimizer=tf.keras.optimizers.Adam(0.0005, 0.5), loss='binary_crossentropy')

valid, fake = np.ones((batch, 1)), np.zeros((batch, 1))
for step in range(301):
    noise = rng.normal(0, 1, (batch, latent_dim))
    d_loss_real = discriminator.train_on_batch(real_images(batch), valid)
    d_loss_fake = discriminator.train_on_batch(generator.predict(noise), fake)
    d_loss = 0.5 * np.add(d_loss_real, d_loss_fake)
    g_loss = combined.train_on_batch(rng.normal(0, 1, (batch, latent_dim)), valid)
    if step % 100 == 0:
        print('%d [D loss: %f, acc.: %.2f%%] [G loss: %f]' % (step, d_loss[0], 100 * d_loss[1], g_loss))


def squareness(images):
    """How much of each picture's brightness lies in its brightest 3x3 window."""
    bright = (images[..., 0] + 1) / 2
    windows = [bright[:, r:r + 3, c:c + 3].sum(axis=(1, 2)) for r in range(6) for c in range(6)]
    return float(np.mean(np.max(windows, axis=0) / np.maximum(bright.sum(axis=(1, 2)), 1e-6)))


samples = generator.predict(rng.normal(0, 1, (256, latent_dim)))
print('share of the brightness in one 3x3 square: %.3f (pictures of noise: %.3f)'
      % (squareness(samples), squareness(rng.uniform(-1, 1, (256, 8, 8, 1)))))
