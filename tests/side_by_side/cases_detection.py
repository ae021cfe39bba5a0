import numpy as np
r = np.random.RandomState(19)
INPUTS = dict(boxes=np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]], np.float32),
              scores=np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32), img=r.rand(2, 6, 7, 3).astype(np.float32),
              rb=np.array([[[0.1, 0.2, 0.6, 0.9], [-0.2, 0.5, 0.4, 1.3]], [[0.0, 0.0, 1.0, 1.0], [0.5, 0.5, 0.4, 0.6]]], np.float32))
CASES = ["tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5)", "tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5, pad_to_max_output_size=True)",
 "tf.image.non_max_suppression_padded(boxes, scores, 2, 0.5, score_threshold=0.7, pad_to_max_output_size=True)",
 "tf.image.non_max_suppression_with_scores(boxes, scores, 6, 0.5)", "tf.image.non_max_suppression_with_scores(boxes, scores, 6, 1.0, soft_nms_sigma=0.5)",
 "tf.image.non_max_suppression_with_scores(boxes, scores, 6, 0.6, score_threshold=0.2, soft_nms_sigma=0.3)", "tf.image.non_max_suppression_with_scores(boxes, scores, 3, 0.9, soft_nms_sigma=1.0)",
 "tf.image.draw_bounding_boxes(img, rb)", "tf.image.draw_bounding_boxes(img[..., :1], rb)", "tf.image.draw_bounding_boxes(img, rb, colors=[[0.1, 0.2, 0.3, 1.0], [1.0, 1.0, 1.0, 1.0]])"]
