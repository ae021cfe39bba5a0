"""TensorFlow's "Classify structured data with feature columns" tutorial: a pandas data frame of
patients, each column turned into a feature column (numeric, bucketized, indicator, embedding,
crossed), a tf.keras model whose first layer is `DenseFeatures`, trained on a `tf.data`
pipeline of the frame (`from_tensor_slices((dict(dataframe), labels))`) with `fit` running
one pass of the data set an epoch.

The patients are synthetic, in the columns of the Cleveland heart-disease data the tutorial
downloads (whether one has heart disease follows the thallium test and age, with noise),
instead of the downloaded CSV file.
"""
import numpy as np
import pandas as pd
import distflow as tf

feature_column = tf.feature_column  # (the tutorial's `from tensorflow import feature_column`)
layers = tf.keras.layers


def patients(n, seed):
    rng = np.random.RandomState(seed)
    df = pd.DataFrame({
        'age': rng.randint(29, 78, n), 'sex': rng.randint(0, 2, n), 'cp': rng.randint(0, 4, n),
        'trestbps': rng.randint(94, 201, n), 'chol': rng.randint(126, 565, n), 'fbs': rng.randint(0, 2, n),
        'restecg': rng.randint(0, 3, n), 'thalach': rng.randint(71, 203, n), 'exang': rng.randint(0, 2, n),
        'oldpeak': rng.uniform(0, 6.2, n).round(1), 'slope': rng.randint(1, 4, n), 'ca': rng.randint(0, 4, n),
        'thal': rng.choice(['fixed', 'normal', 'reversible'], n, p=[0.1, 0.55, 0.35])})
    p = np.where(df['thal'] == 'reversible', 0.85, np.where(df['age'] > 60, 0.6, 0.1))
    df['target'] = (rng.rand(n) < p).astype(np.int64)
    return df


# A utility method to create a tf.data dataset from a Pandas Dataframe
def df_to_dataset(dataframe, shuffle=True, batch_size=32):
    dataframe = dataframe.copy()
    labels = dataframe.pop('target')
    ds = tf.data.Dataset.from_tensor_slices((dict(dataframe), labels))
    if shuffle:
        ds = ds.shuffle(buffer_size=len(dataframe), seed=1)
    ds = ds.batch(batch_size)
    return ds


def main(_):
    dataframe = patients(1000, 0)
    train, test = dataframe.iloc[:640], dataframe.iloc[800:]
    val = dataframe.iloc[640:800]
    print(len(train), 'train examples')
    print(len(val), 'validation examples')
    print(len(test), 'test examples')

    feature_columns = []
    # numeric cols
    for header in ['age', 'trestbps', 'chol', 'thalach', 'oldpeak', 'slope', 'ca']:
        feature_columns.append(feature_column.numeric_column(header))
    # bucketized cols
    age = feature_column.numeric_column('age')
    age_buckets = feature_column.bucketized_column(age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    feature_columns.append(age_buckets)
    # indicator cols
    thal = feature_column.categorical_column_with_vocabulary_list('thal', ['fixed', 'normal', 'reversible'])
    thal_one_hot = feature_column.indicator_column(thal)
    feature_columns.append(thal_one_hot)
    # embedding cols
    thal_embedding = feature_column.embedding_column(thal, dimension=8)
    feature_columns.append(thal_embedding)
    # crossed cols
    crossed_feature = feature_column.crossed_column([age_buckets, thal], hash_bucket_size=1000)
    crossed_feature = feature_column.indicator_column(crossed_feature)
    feature_columns.append(crossed_feature)

    feature_layer = tf.keras.layers.DenseFeatures(feature_columns)

    batch_size = 32
    train_ds = df_to_dataset(train, batch_size=batch_size)
    val_ds = df_to_dataset(val, shuffle=False, batch_size=batch_size)
    test_ds = df_to_dataset(test, shuffle=False, batch_size=batch_size)

    model = tf.keras.Sequential([
        feature_layer,
        layers.Dense(128, activation='relu'),
        layers.Dense(128, activation='relu'),
        layers.Dense(1, activation='sigmoid')
    ])
    model.compile(optimizer='adam', loss='binary_crossentropy', metrics=['accuracy'])
    model.fit(train_ds, validation_data=val_ds, epochs=5, verbose=2)

    loss, accuracy = model.evaluate(test_ds, verbose=0)
    print("Accuracy", accuracy)


if __name__ == '__main__':
    tf.set_random_seed(1)
    tf.app.run(main)
