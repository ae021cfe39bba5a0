import numpy as np
r = np.random.RandomState(21)
INPUTS = dict(img=r.rand(2, 64, 64, 3).astype(np.float32), u8=(r.rand(1, 48, 50, 1) * 255).astype(np.uint8), x=np.array([1.0, 0.0, -2.5], np.float32))
CASES = ["tf.image.ssim_multiscale(img, img * 0.8 + 0.1, 1.0, filter_size=3)", "tf.image.ssim_multiscale(img[0], img[1], 1.0, power_factors=(0.5, 0.5), filter_size=5)",
         "tf.image.ssim_multiscale(u8, 255 - u8, 255, power_factors=(0.3, 0.3, 0.4), filter_size=3)",
         "tf.image.extract_image_patches(img[:, :6, :6], [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], 'VALID')",
         "tf.sparse.eye(3, 4)", "tf.sparse.eye(2, dtype=tf.int32)", "tf.sparse.expand_dims(tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4]), 1)",
         "tf.sparse.expand_dims(tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4]), -1)", "tf.sparse.expand_dims(tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4]))"]
