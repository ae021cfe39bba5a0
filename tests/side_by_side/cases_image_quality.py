import numpy as np
r = np.random.RandomState(4)
INPUTS = dict(img=r.rand(2, 12, 13, 3).astype(np.float32), u8=(r.rand(2, 12, 12, 3) * 255).astype(np.uint8), small=r.rand(1, 5, 6, 2).astype(np.float32))
CASES = ["tf.image.rgb_to_yiq(img)", "tf.image.yiq_to_rgb(img)", "tf.image.rgb_to_yuv(img)", "tf.image.yuv_to_rgb(img)", "tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(img))",
 "tf.image.sobel_edges(img)", "tf.image.sobel_edges(small)", "tf.image.ssim(img, img * 0.9 + 0.05, 1.0)", "tf.image.ssim(img, img * 0.9, 1.0, filter_size=3)",
 "tf.image.ssim(u8, u8 // 2, 255)", "tf.image.ssim(small, small[:, ::-1], 1.0)", "tf.image.ssim(img[0], img[1], 1.0, filter_size=5, filter_sigma=0.8, k1=0.02)"]
