import numpy as np
INPUTS = dict(s=np.array([b"hello world", b"  a b  ", b"", b"x,y,,z"]), lab=np.array([1, 0, 3], np.int32), a=np.array([[0.5, -1.25], [2., 3.]], np.float32),
              t=np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]]))
CASES = ["tf.string_split(s, ',', skip_empty=False)", "tf.string_split(s, '')", "tf.string_split(s)", "tf.strings.split(s)", "tf.strings.split(s, ',')", "tf.strings.split(s, ' ', maxsplit=1)",
 "tf.strings.split(s, ',,')", "tf.strings.regex_full_match(s, '.*o.*')", "tf.strings.regex_full_match(s, 'x')",
 "tf.strings.format('{} and {}', [lab, a])", "tf.strings.format('x={}', tf.constant(2.5))", "tf.strings.format('{}', tf.constant(np.arange(12)))",
 "tf.strings.format('v {}', tf.constant(['a', 'b']))", "tf.strings.format('{}', tf.constant(np.arange(24).reshape(2, 3, 4)))", "tf.strings.format('{}', tf.constant(np.arange(40).reshape(8, 5)), summarize=2)",
 "tf.strings.format('{} {}', [tf.constant(True), tf.constant(0.1)])", "tf.strings.format('<>', [lab], placeholder='<>', summarize=-1)", "tf.strings.format('{}', tf.constant(1e20))",
 "tf.strings.ngrams(tf.constant(['a', 'b', 'c']), 2)", "tf.strings.ngrams(t, [1, 2], separator='_')", "tf.strings.ngrams(t, 3, pad_values=('<', '>'))",
 "tf.strings.ngrams(t, 2, pad_values='#', padding_width=1)", "tf.strings.ngrams(t, 4)", "tf.strings.ngrams(t, 4, preserve_short_sequences=True)",
 "tf.strings.unsorted_segment_join(s, [0, 1, 0, 1], 3, separator='|')", "tf.strings.unsorted_segment_join(t, [1, -1], 2)",
 "tf.strings.unsorted_segment_join(t, [[0, 0, 1], [1, 1, 0]], 2, separator='.')"]
CASES += ["tf.strings.format('{}', tf.constant([0.79918, 1.26261365, 0.751964867, -0.993761, 1e20, 1.5e-7, 100.0]))",
          "tf.strings.format('{}', tf.constant([0.1, 1/3, 2.0, 1e100], tf.float64))", "tf.strings.format('{}', tf.constant([np.nan, np.inf, -np.inf]))"]
