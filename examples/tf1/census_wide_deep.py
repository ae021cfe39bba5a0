"""TensorFlow's "Wide & Deep" census tutorial: DNNLinearCombinedClassifier over feature columns.

The tutorial's columns (numeric, bucketized age, vocabulary lists, a hash bucket for
occupation, crossed columns for the wide part; indicator and embedding columns for the
deep part) and estimator, on synthetic census-like rows (whether the income exceeds 50K
follows a fixed rule of education, age, hours and occupation, with noise) instead of the
downloaded adult data.
"""
import numpy as np
import distflow as tf

EDUCATION = ['Bachelors', 'HS-grad', '11th', 'Masters', '9th', 'Some-college', 'Assoc-acdm', 'Assoc-voc',
             '7th-8th', 'Doctorate', 'Prof-school', '5th-6th', '10th', '1st-4th', 'Preschool', '12th']
MARITAL = ['Married-civ-spouse', 'Divorced', 'Married-spouse-absent', 'Never-married', 'Separated',
           'Married-AF-spouse', 'Widowed']
RELATIONSHIP = ['Husband', 'Not-in-family', 'Wife', 'Own-child', 'Unmarried', 'Other-relative']
WORKCLASS = ['Self-emp-not-inc', 'Private', 'State-gov', 'Federal-gov', 'Local-gov', '?', 'Self-emp-inc',
             'Without-pay', 'Never-worked']
OCCUPATION = ['Exec-managerial', 'Prof-specialty', 'Craft-repair', 'Sales', 'Adm-clerical', 'Other-service']


def make_rows(n, seed):
    rng = np.random.RandomState(seed)
    rows = {
        'age': rng.randint(17, 80, n).astype(np.float32),
        'education_num': rng.randint(1, 17, n).astype(np.float32),
        'capital_gain': (rng.rand(n) < 0.1) * rng.randint(0, 20000, n).astype(np.float32),
        'capital_loss': (rng.rand(n) < 0.05) * rng.randint(0, 3000, n).astype(np.float32),
        'hours_per_week': rng.randint(10, 80, n).astype(np.float32),
        'education': np.array([EDUCATION[i] for i in rng.randint(0, len(EDUCATION), n)]),
        'marital_status': np.array([MARITAL[i] for i in rng.randint(0, len(MARITAL), n)]),
        'relationship': np.array([RELATIONSHIP[i] for i in rng.randint(0, len(RELATIONSHIP), n)]),
        'workclass': np.array([WORKCLASS[i] for i in rng.randint(0, len(WORKCLASS), n)]),
        'occupation': np.array([OCCUPATION[i] for i in rng.randint(0, len(OCCUPATION), n)]),
    }
    score = (rows['education_num'] - 9) * 0.35 + (np.minimum(rows['age'], 55) - 35) * 0.06 + \
        (rows['hours_per_week'] - 40) * 0.05 + np.isin(rows['occupation'], OCCUPATION[:2]) * 1.2 + \
        (rows['marital_status'] == 'Married-civ-spouse') * 0.8 + rows['capital_gain'] / 5000.0
    labels = (score + rng.normal(0, 0.5, n) > 1.0).astype(np.int64)
    return rows, labels


def build_model_columns():
    age = tf.feature_column.numeric_column('age')
    education_num = tf.feature_column.numeric_column('education_num')
    capital_gain = tf.feature_column.numeric_column('capital_gain')
    capital_loss = tf.feature_column.numeric_column('capital_loss')
    hours_per_week = tf.feature_column.numeric_column('hours_per_week')
    education = tf.feature_column.categorical_column_with_vocabulary_list('education', EDUCATION)
    marital_status = tf.feature_column.categorical_column_with_vocabulary_list('marital_status', MARITAL)
    relationship = tf.feature_column.categorical_column_with_vocabulary_list('relationship', RELATIONSHIP)
    workclass = tf.feature_column.categorical_column_with_vocabulary_list('workclass', WORKCLASS)
    occupation = tf.feature_column.categorical_column_with_hash_bucket('occupation', hash_bucket_size=1000)
    age_buckets = tf.feature_column.bucketized_column(age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])

    base_columns = [education, marital_status, relationship, workclass, occupation, age_buckets]
    crossed_columns = [
        tf.feature_column.crossed_column(['education', 'occupation'], hash_bucket_size=1000),
        tf.feature_column.crossed_column([age_buckets, 'education', 'occupation'], hash_bucket_size=1000),
    ]
    wide_columns = base_columns + crossed_columns
    deep_columns = [
        age, education_num, capital_gain, capital_loss, hours_per_week,
        tf.feature_column.indicator_column(workclass),
        tf.feature_column.indicator_column(education),
        tf.feature_column.indicator_column(marital_status),
        tf.feature_column.indicator_column(relationship),
        tf.feature_column.embedding_column(occupation, dimension=8),
    ]
    return wide_columns, deep_columns


def input_fn(rows, labels, num_epochs, shuffle, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((rows, labels))
    if shuffle:
        dataset = dataset.shuffle(buffer_size=5000, seed=1)
    return dataset.repeat(num_epochs).batch(batch_size)


def main(_):
    train_rows, train_labels = make_rows(4000, 0)
    test_rows, test_labels = make_rows(1000, 1)
    wide_columns, deep_columns = build_model_columns()
    model = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide_columns,
        dnn_feature_columns=deep_columns,
        dnn_hidden_units=[100, 75, 50, 25],
        config=tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None))
    for n in range(4):
        model.train(input_fn=lambda: input_fn(train_rows, train_labels, 2, True, 40))
        results = model.evaluate(input_fn=lambda: input_fn(test_rows, test_labels, 1, False, 40))
        print('Results at epoch %d' % ((n + 1) * 2))
        for key in sorted(results):
            print('%s: %s' % (key, results[key]))


if __name__ == '__main__':
    tf.logging.set_verbosity(tf.logging.WARN)
    tf.app.run(main)
