"""TensorFlow's "Boosted trees using Estimators" tutorial: BoostedTreesClassifier on the Titanic.

The tutorial's pandas data frames, its feature columns (an indicator column of a vocabulary
list for each categorical feature, numeric columns for age and fare), its input function
(`from_tensor_slices((dict(X), y))`, the whole data set as one batch,
n_batches_per_layer=1), a linear model for a baseline, then the boosted trees, trained for
100 steps and evaluated; then, as its "model understanding" sequel, a model centered on the
prior (center_bias), its features' gain-based importances and each passenger's directional
feature contributions (a data frame of them). The passengers are synthetic, drawn as the
real ones were (who survived follows sex, class and age, as on the ship) instead of the
downloaded CSV files.
"""
import numpy as np
import pandas as pd
import distflow as tf

CATEGORICAL = {'sex': ['male', 'female'], 'n_siblings_spouses': [0, 1, 2, 3, 4], 'parch': [0, 1, 2, 3],
               'class': ['First', 'Second', 'Third'], 'deck': ['A', 'B', 'C', 'D', 'E', 'F', 'unknown'],
               'embark_town': ['Southampton', 'Cherbourg', 'Queenstown'], 'alone': ['y', 'n']}
NUMERIC = ['age', 'fare']


def passengers(n, seed):
    rng = np.random.RandomState(seed)
    cls = rng.choice(3, n, p=[0.24, 0.21, 0.55])
    rows = {
        'sex': np.where(rng.rand(n) < 0.35, 'female', 'male'),
        'n_siblings_spouses': rng.choice(5, n, p=[0.68, 0.23, 0.04, 0.03, 0.02]).astype(np.int64),
        'parch': rng.choice(4, n, p=[0.76, 0.13, 0.09, 0.02]).astype(np.int64),
        'class': np.array(['First', 'Second', 'Third'])[cls],
        'deck': np.where(cls == 0, np.array(list('ABCDE'))[rng.randint(0, 5, n)], 'unknown'),
        'embark_town': rng.choice(['Southampton', 'Cherbourg', 'Queenstown'], n, p=[0.72, 0.19, 0.09]),
        'age': np.clip(rng.normal(30, 13, n), 0.5, 80).astype(np.float32),
        'fare': (np.array([85.0, 21.0, 13.0])[cls] * rng.lognormal(0, 0.5, n)).astype(np.float32),
    }
    rows['alone'] = np.where(rows['n_siblings_spouses'] + rows['parch'] == 0, 'y', 'n')
    # survival by sex and class as on the ship (women of the third class half as often as the
    # others, men of the first twice as often as the rest), and children of the first two
    # classes nearly all
    female = rows['sex'] == 'female'
    p = np.where(female, np.array([0.96, 0.92, 0.5])[cls], np.array([0.37, 0.16, 0.14])[cls])
    p = np.where((rows['age'] < 10) & (cls < 2), 0.95, p)
    rows['survived'] = (rng.rand(n) < p).astype(np.int64)
    return pd.DataFrame(rows)


def one_hot_cat_column(feature_name, vocab):
    return tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list(feature_name, vocab))


def make_input_fn(X, y, n_epochs=None, shuffle=True):
    num_examples = len(y)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((dict(X), y))
        if shuffle:
            dataset = dataset.shuffle(num_examples, seed=1)
        # For training, cycle thru dataset as many times as need (n_epochs=None).
        dataset = dataset.repeat(n_epochs)
        # In memory training doesn't use batching.
        dataset = dataset.batch(num_examples)
        return dataset
    return input_fn


def main(_):
    dftrain, dfeval = passengers(627, 0), passengers(264, 1)
    y_train = dftrain.pop('survived')
    y_eval = dfeval.pop('survived')
    feature_columns = [one_hot_cat_column(name, vocab) for name, vocab in CATEGORICAL.items()]
    feature_columns += [tf.feature_column.numeric_column(name, dtype=tf.float32) for name in NUMERIC]

    train_input_fn = make_input_fn(dftrain, y_train)
    eval_input_fn = make_input_fn(dfeval, y_eval, shuffle=False, n_epochs=1)

    linear_est = tf.estimator.LinearClassifier(feature_columns)
    linear_est.train(train_input_fn, max_steps=100)
    results = linear_est.evaluate(eval_input_fn)
    print('Linear accuracy : ', results['accuracy'])
    print('Linear dummy model: ', results['accuracy_baseline'])

    # Since data fits into memory, use entire dataset per layer. It will be faster.
    # Above one batch is defined as the entire dataset.
    n_batches = 1
    est = tf.estimator.BoostedTreesClassifier(feature_columns, n_batches_per_layer=n_batches)
    # The model will stop training once the specified number of trees is built, not
    # based on the number of steps.
    est.train(train_input_fn, max_steps=100)
    results = est.evaluate(eval_input_fn)
    print('Boosted trees accuracy : ', results['accuracy'])
    print('Boosted trees auc : ', results['auc'])
    print('Boosted trees dummy model: ', results['accuracy_baseline'])

    # The "model understanding" tutorial: a model centered on the prior, explained.
    params = {'n_trees': 50, 'max_depth': 3, 'n_batches_per_layer': 1,
              # You must enable center_bias = True to get DFCs. This will force the model to
              # make an initial prediction before using any features (e.g. use the mean of
              # the training labels for regression or log odds for classification when
              # using cross entropy loss).
              'center_bias': True}
    est = tf.estimator.BoostedTreesClassifier(feature_columns, **params)
    est.train(train_input_fn, max_steps=100)
    results = est.evaluate(eval_input_fn)
    print('Centered trees accuracy : ', results['accuracy'])

    importances = est.experimental_feature_importances(normalize=True)
    for name, importance in importances.items():
        print('importance %-20s %.3f' % (name, importance))

    pred_dicts = list(est.experimental_predict_with_explanations(eval_input_fn))
    probs = pd.Series([pred['probabilities'][1] for pred in pred_dicts])
    df_dfc = pd.DataFrame([pred['dfc'] for pred in pred_dicts])
    dfc_sums = pred_dicts[0]['bias'] + df_dfc.sum(axis=1)
    print('bias: %.3f' % pred_dicts[0]['bias'])
    print('largest difference of bias + contributions from the probability: %.2g' % np.abs(dfc_sums - probs).max())
    ID = 182
    print('passenger %d, probability %.3f:' % (ID, probs[ID]))
    for name, contribution in pred_dicts[ID]['dfc'].items():
        print('contribution %-20s %+.3f' % (name, contribution))
    print('mean absolute contributions:')
    print(df_dfc.abs().mean().sort_values(ascending=False).round(3).to_string())


if __name__ == '__main__':
    tf.logging.set_verbosity(tf.logging.WARN)
    tf.app.run(main)
