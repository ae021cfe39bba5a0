import numpy as np
r = np.random.RandomState(15)
INPUTS = dict(lab=np.array([[1, 1, 2, 2, 3, 0], [4, 4, 4, 1, 0, 0], [2, 3, 3, 1, 1, 1]], np.int32), ln=np.array([5, 4, 6], np.int32),
              logits=r.randn(8, 3, 5).astype(np.float32), ll=np.array([8, 6, 7], np.int32), dl=np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]], np.int32), dln=np.array([3, 2, 1], np.int32))
CASES = ["tf.nn.collapse_repeated(lab, ln)", "tf.nn.ctc_unique_labels(lab)", "tf.nn.ctc_loss_v2(dl, logits, dln, ll)", "tf.nn.ctc_loss_v2(dl, logits, dln, ll, blank_index=-1)",
 "tf.nn.ctc_loss_v2(dl - 1 + tf.cast(dl == 0, tf.int32), logits, dln, ll, blank_index=2)", "tf.nn.ctc_loss_v2(dl, tf.transpose(logits, [1, 0, 2]), dln, ll, logits_time_major=False)",
 "tf.gradients(tf.reduce_sum(tf.nn.ctc_loss_v2(dl, logits, dln, ll, blank_index=3)), logits)",
 "tf.nn.ctc_loss_v2(tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [3, 2]), logits, None, ll)"]
