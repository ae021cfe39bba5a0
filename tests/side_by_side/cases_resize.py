import numpy as np
r = np.random.RandomState(3)
INPUTS = dict(img=r.rand(2, 5, 7, 3).astype(np.float32), u8=(r.rand(4, 6, 3) * 255).astype(np.uint8), i16=(r.rand(3, 3, 1) * 30000).astype(np.int16))
CASES = []
for m in (0, 1, 2, 3):
    for size in ([8, 3], [3, 11], [5, 7], [10, 14], [2, 2], [1, 1]):
        for ac in (False, True):
            CASES.append(f"tf.image.resize_images(img, {size}, method={m}, align_corners={ac})")
for fn in ("resize_bilinear", "resize_nearest_neighbor", "resize_bicubic"):
    for size in ([8, 3], [3, 11], [10, 14]):
        CASES.append(f"tf.image.{fn}(img, {size}, half_pixel_centers=True)")
CASES += ["tf.image.resize_images(img, [10, 10], preserve_aspect_ratio=True)", "tf.image.resize_images(u8, [3, 3], method=1)",
          "tf.image.resize_images(u8, [3, 3], method=3)", "tf.image.resize_image_with_pad(img, 6, 6)", "tf.image.resize_image_with_pad(img, 9, 4)",
          "tf.image.central_crop(img, 0.5)", "tf.image.central_crop(img, 0.33)", "tf.image.central_crop(img[0], 0.8)",
          "tf.image.adjust_brightness(u8, 0.1)", "tf.image.adjust_brightness(u8, -0.5)", "tf.image.adjust_contrast(u8, 1.7)", "tf.image.adjust_brightness(tf.cast(img, tf.float64), 0.2)",
          "tf.image.convert_image_dtype(u8, tf.uint16)", "tf.image.convert_image_dtype(i16, tf.uint8)", "tf.image.convert_image_dtype(i16, tf.int32)",
          "tf.image.convert_image_dtype(img * 2 - 0.5, tf.uint8, saturate=True)", "tf.image.convert_image_dtype(u8, tf.float64)",
          "tf.gradients(tf.reduce_sum(tf.image.resize_bilinear(img, [8, 3]) ** 2), img)", "tf.gradients(tf.reduce_sum(tf.image.resize_bicubic(img, [3, 11]) ** 2), img)",
          "tf.gradients(tf.reduce_sum(tf.image.resize_nearest_neighbor(img, [10, 14]) ** 2), img)", "tf.gradients(tf.reduce_sum(tf.image.resize_bilinear(img, [8, 3], half_pixel_centers=True) ** 2), img)"]
