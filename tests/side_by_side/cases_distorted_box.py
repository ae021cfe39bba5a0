import numpy as np
INPUTS = dict(box=np.array([[[0.2, 0.3, 0.7, 0.9]]], np.float32))
# (the crops are random, and TF's generator is not distflow's: shapes, dtypes and the fallback compared)
CASES = ["exec:b, s, bb = tf.image.sample_distorted_bounding_box([40, 60, 3], box, seed=4)\nout = [tf.shape(b), tf.shape(s), tf.shape(bb), s[2]]",
         "tf.image.sample_distorted_bounding_box([40, 60, 3], tf.zeros([1, 0, 4]), min_object_covered=0.9, area_range=(0.01, 0.02), use_image_if_no_bounding_boxes=True)",
         "tf.image.sample_distorted_bounding_box(tf.constant([40, 60, 3], tf.int64), box, min_object_covered=1.0, area_range=(0.99, 1.0))",
         "tf.image.sample_distorted_bounding_box([4, 4, 1], tf.zeros([1, 0, 4]))"]
