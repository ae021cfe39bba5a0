import numpy as np
INPUTS = dict(age=np.array([[15.0], [33.0], [70.0]], np.float32), city=np.array([[b"a"], [b"zz"], [b"c"]]), ids=np.array([[3], [0], [7]], np.int64),
              words=np.array([[b"x", b"y"], [b"y", b""], [b"q", b"x"]]), w=np.array([[0.5], [2.0], [1.0]], np.float32))
FC = "tf.feature_column"
def il(cols):
    return f"exec:\nfeats = {{'age': age, 'city': city, 'ids': ids, 'words': words, 'w': w}}\nout = {FC}.input_layer(feats, {cols})"
CASES = [
 il(f"[{FC}.numeric_column('age')]"), il(f"[{FC}.numeric_column('age', normalizer_fn=lambda v: v / 10)]"),
 il(f"[{FC}.bucketized_column({FC}.numeric_column('age'), [18, 25, 65])]"),
 il(f"[{FC}.indicator_column({FC}.categorical_column_with_vocabulary_list('city', ['a', 'b', 'c'], num_oov_buckets=2))]"),
 il(f"[{FC}.indicator_column({FC}.categorical_column_with_vocabulary_list('city', ['a', 'b', 'c'], default_value=0))]"),
 il(f"[{FC}.indicator_column({FC}.categorical_column_with_hash_bucket('city', 10))]"),
 il(f"[{FC}.indicator_column({FC}.categorical_column_with_identity('ids', 8))]"),
 il(f"[{FC}.indicator_column({FC}.categorical_column_with_identity('ids', 5, default_value=4))]"),
 il(f"[{FC}.indicator_column({FC}.categorical_column_with_vocabulary_list('words', ['x', 'y']))]"),
 il(f"[{FC}.indicator_column({FC}.crossed_column(['city', {FC}.bucketized_column({FC}.numeric_column('age'), [30])], 20))]"),
 il(f"[{FC}.embedding_column({FC}.categorical_column_with_vocabulary_list('words', ['x', 'y', 'q']), 2, combiner='mean', initializer=tf.constant_initializer(0.5))]"),
 il(f"[{FC}.embedding_column({FC}.weighted_categorical_column({FC}.categorical_column_with_identity('ids', 8), 'w'), 3, combiner='sqrtn', initializer=tf.ones_initializer())]"),
 il(f"[{FC}.numeric_column('age'), {FC}.indicator_column({FC}.categorical_column_with_identity('ids', 8)), {FC}.bucketized_column({FC}.numeric_column('age'), [40])]"),
 "exec:\nfeats = {'age': age, 'city': city}\nout = tf.feature_column.linear_model(feats, [tf.feature_column.numeric_column('age'), tf.feature_column.categorical_column_with_hash_bucket('city', 4)])",
 "py:\nfeats = {'age': age, 'city': city, 'words': words}\nx = tf.feature_column.input_layer(feats, [tf.feature_column.embedding_column(tf.feature_column.categorical_column_with_vocabulary_list('words', ['x', 'y']), 2), tf.feature_column.shared_embedding_columns([tf.feature_column.categorical_column_with_hash_bucket('city', 5), tf.feature_column.categorical_column_with_hash_bucket('words', 5)], 2)[0] if hasattr(tf.feature_column, 'shared_embedding_columns') else tf.feature_column.numeric_column('age')])\nout = sorted(v.name for v in tf.global_variables())",
 "py:\nfeats = {'age': age, 'city': city}\ny = tf.feature_column.linear_model(feats, [tf.feature_column.numeric_column('age'), tf.feature_column.categorical_column_with_hash_bucket('city', 4)])\nout = sorted(v.name for v in tf.global_variables())",
 "py:\nout = [tf.feature_column.make_parse_example_spec([tf.feature_column.numeric_column('age', shape=[2]), tf.feature_column.categorical_column_with_identity('ids', 8), tf.feature_column.embedding_column(tf.feature_column.categorical_column_with_vocabulary_list('words', ['x']), 2)])]",
]
CASES += [il(f"[{FC}.indicator_column({FC}.crossed_column([{FC}.bucketized_column({FC}.numeric_column('age'), [30]), 'city'], 20))]"),
          il(f"[{FC}.indicator_column({FC}.crossed_column(['city', {FC}.crossed_column(['words', {FC}.categorical_column_with_identity('ids', 8)], 50)], 30))]"),
          il(f"[{FC}.indicator_column({FC}.crossed_column(['city', 'words'], 15))]")]
CASES += [il(f"[{FC}.indicator_column({FC}.weighted_categorical_column({FC}.categorical_column_with_identity('ids', 8), 'w'))]"),
          il(f"[{FC}.embedding_column({FC}.weighted_categorical_column({FC}.categorical_column_with_identity('ids', 8), 'w'), 2, combiner='mean', initializer=tf.ones_initializer())]"),
          il(f"{FC}.shared_embedding_columns([{FC}.categorical_column_with_hash_bucket('city', 5), {FC}.categorical_column_with_hash_bucket('words', 5)], 2, initializer=tf.constant_initializer(0.25))"),
          "exec:\nfeats = {'age': age, 'city': city}\nout = tf.feature_column.linear_model(feats, [tf.feature_column.weighted_categorical_column(tf.feature_column.categorical_column_with_hash_bucket('city', 4), 'age')], sparse_combiner='mean')",
          "exec:\nsp = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ['a', 'b', 'c'], [3, 2])\nout = tf.feature_column.input_layer({'city': sp}, [tf.feature_column.indicator_column(tf.feature_column.categorical_column_with_vocabulary_list('city', ['a', 'b', 'c']))])",
          "exec:\nsp = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([3, 1, 5], tf.int64), [3, 2])\nout = tf.feature_column.input_layer({'ids': sp}, [tf.feature_column.embedding_column(tf.feature_column.categorical_column_with_identity('ids', 8), 2, combiner='sqrtn', initializer=tf.ones_initializer())])"]
