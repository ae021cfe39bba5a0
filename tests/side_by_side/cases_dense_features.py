import numpy as np
INPUTS = dict(age=np.array([[1.0], [2.0]], np.float32), city=np.array([[b"a"], [b"c"]]))
CASES = [
 "py:\nage_c = tf.feature_column.numeric_column('age')\ncity_c = tf.feature_column.categorical_column_with_vocabulary_list('city', ['a', 'b', 'c'])\nemb = tf.feature_column.embedding_column(city_c, 2, initializer=tf.constant_initializer(0.5))\nlayer = tf.keras.layers.DenseFeatures([age_c, emb, tf.feature_column.indicator_column(city_c)])\nout = layer({'age': age, 'city': city})\nlayer({'age': age, 'city': city})\nout = [out.name, [v.name for v in layer.weights], [v.name for v in tf.global_variables()], str(out.shape)]",
 "exec:\nage_c = tf.feature_column.numeric_column('age')\ncity_c = tf.feature_column.categorical_column_with_vocabulary_list('city', ['a', 'b', 'c'])\nemb = tf.feature_column.embedding_column(city_c, 2, initializer=tf.constant_initializer(0.5))\nlayer = tf.keras.layers.DenseFeatures([age_c, emb, tf.feature_column.indicator_column(city_c)])\nout = layer({'age': age, 'city': city})",
]
