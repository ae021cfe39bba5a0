import numpy as np
r = np.random.RandomState(2)
INPUTS = dict(img=r.rand(1, 4, 6, 3).astype(np.float32))
CASES = ["tf.image.resize_nearest_neighbor(img, [7, 9], align_corners=True)", "tf.image.resize_nearest_neighbor(img, [7, 9])", "tf.image.resize_images(img, [7, 9], method=1, align_corners=True)"]
