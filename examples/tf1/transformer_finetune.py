"""A transformer sentence classifier pre-trained on one task and fine-tuned on another, the way
BERT's TF 1.x scripts (2018-2019) wrote it: a TPUEstimator run on CPUs and GPUs
(``use_tpu=False``), TFRecord input through ``tf.contrib.data.map_and_batch``, a model_fn
returning a ``TPUEstimatorSpec`` with ``eval_metrics`` and a ``scaffold_fn`` that calls
``tf.train.init_from_checkpoint``, GELU through ``tf.erf``, ``tf.contrib.layers.layer_norm``,
and Adam with decoupled weight decay written as an ``Optimizer`` subclass, under a linear
warm-up and polynomial decay.

The data are made up: sentences of a small vocabulary. The first task (the
"pre-training") asks which of the words "a", "b" and "c" a sentence holds; the second, whether
it holds "b". The second model starts from the first's encoder (its own output layer is new). The second model starts from the first's checkpoint
(all but its output layer).
"""
import collections
import os
import re
import tempfile

import numpy as np
import distflow as tf

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", os.path.join(tempfile.gettempdir(), "transformer_finetune"), "Where to write.")
flags.DEFINE_integer("max_seq_length", 12, "Tokens per sentence, [CLS] included.")
flags.DEFINE_integer("train_batch_size", 32, "Batch size for training.")
flags.DEFINE_integer("eval_batch_size", 50, "Batch size for evaluation.")
flags.DEFINE_integer("pretrain_steps", 150, "Steps of the first task.")
flags.DEFINE_integer("finetune_steps", 100, "Steps of the second task.")
flags.DEFINE_float("learning_rate", 3e-3, "Peak learning rate.")
flags.DEFINE_bool("use_tpu", False, "Whether to use a TPU.")
flags.DEFINE_integer("iterations_per_loop", 50, "Steps per TPU loop.")
flags.DEFINE_integer("seed", 11, "Seed of the made-up data.")

VOCAB = ["[PAD]", "[CLS]", "a", "b", "c"] + ["w%d" % i for i in range(12)]
HIDDEN, HEADS, LAYERS, INTERMEDIATE = 32, 4, 2, 64


# ---------------------------------------------------------------------------------------------
# Data: TFRecords of tf.train.Example, as the scripts' file_based_convert_examples_to_features


def make_examples(rng, n, task):
    """Sentences of filler words. ``which_word``: each holds one of "a", "b", "c", and the label
    says which; ``has_b``: each holds one of them or none, and the label says whether "b"."""
    examples = []
    for _ in range(n):
        length = rng.randint(4, FLAGS.max_seq_length)
        words = list(rng.choice(VOCAB[5:], size=length - 1))
        choice = rng.randint(3 if task == "which_word" else 4)
        if choice < 3:
            words[rng.randint(length - 1)] = "abc"[choice]
        label = choice if task == "which_word" else int(choice == 1)
        ids = [1] + [VOCAB.index(w) for w in words]
        mask = [1] * len(ids)
        pad = FLAGS.max_seq_length - len(ids)
        examples.append((ids + [0] * pad, mask + [0] * pad, label))
    return examples


def write_records(examples, path):
    writer = tf.python_io.TFRecordWriter(path)
    for ids, mask, label in examples:
        features = collections.OrderedDict()
        features["input_ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=ids))
        features["input_mask"] = tf.train.Feature(int64_list=tf.train.Int64List(value=mask))
        features["label_ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))
        writer.write(tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString())
    writer.close()


def file_based_input_fn_builder(input_file, is_training, drop_remainder):
    name_to_features = {
        "input_ids": tf.FixedLenFeature([FLAGS.max_seq_length], tf.int64),
        "input_mask": tf.FixedLenFeature([FLAGS.max_seq_length], tf.int64),
        "label_ids": tf.FixedLenFeature([], tf.int64),
    }

    def _decode_record(record):
        example = tf.parse_single_example(record, name_to_features)
        for name in list(example.keys()):  # int64 in the file, int32 in the model
            example[name] = tf.to_int32(example[name])
        return example

    def input_fn(params):
        d = tf.data.TFRecordDataset(input_file)
        if is_training:
            d = d.repeat()
            d = d.shuffle(buffer_size=100, seed=1)
        d = d.apply(tf.contrib.data.map_and_batch(_decode_record, batch_size=params["batch_size"],
                                                  drop_remainder=drop_remainder))
        return d

    return input_fn


# ---------------------------------------------------------------------------------------------
# The model


def gelu(x):
    return x * 0.5 * (1.0 + tf.erf(x / tf.sqrt(2.0)))


def layer_norm(x, name):
    return tf.contrib.layers.layer_norm(inputs=x, begin_norm_axis=-1, begin_params_axis=-1, scope=name)


def dense(x, units, name, activation=None):
    return tf.layers.dense(x, units, activation=activation, name=name,
                           kernel_initializer=tf.truncated_normal_initializer(stddev=0.2))


def attention_layer(x, mask, batch_size, seq_length):
    head = HIDDEN // HEADS

    def heads(t):  # [B*T, H] -> [B, heads, T, head]
        return tf.transpose(tf.reshape(t, [batch_size, seq_length, HEADS, head]), [0, 2, 1, 3])

    query = heads(dense(x, HIDDEN, "query"))
    key = heads(dense(x, HIDDEN, "key"))
    value = heads(dense(x, HIDDEN, "value"))
    scores = tf.matmul(query, key, transpose_b=True) * (1.0 / np.sqrt(head))
    adder = (1.0 - tf.cast(tf.expand_dims(mask, axis=[1]), tf.float32)) * -10000.0  # [B, 1, 1, T]
    probs = tf.nn.softmax(scores + tf.expand_dims(adder, axis=[1]))
    context = tf.transpose(tf.matmul(probs, value), [0, 2, 1, 3])
    return tf.reshape(context, [batch_size * seq_length, HIDDEN])


def encoder(input_ids, input_mask, is_training):
    shape = input_ids.shape.as_list()
    batch_size, seq_length = shape[0] if shape[0] is not None else tf.shape(input_ids)[0], shape[1]
    with tf.variable_scope("encoder"):
        with tf.variable_scope("embeddings"):
            table = tf.get_variable("word_embeddings", [len(VOCAB), HIDDEN],
                                    initializer=tf.truncated_normal_initializer(stddev=0.2))
            x = tf.gather(table, tf.reshape(input_ids, [-1]))
            x = tf.reshape(x, [batch_size, seq_length, HIDDEN])
            positions = tf.get_variable("position_embeddings", [FLAGS.max_seq_length, HIDDEN],
                                        initializer=tf.truncated_normal_initializer(stddev=0.2))
            x += tf.expand_dims(tf.slice(positions, [0, 0], [seq_length, -1]), 0)
            x = layer_norm(x, "LayerNorm")
        x = tf.reshape(x, [-1, x.shape[-1]])  # (a Dimension, as BERT's reshape_to_matrix passes it)
        for i in range(LAYERS):
            with tf.variable_scope("layer_%d" % i):
                with tf.variable_scope("attention"):
                    with tf.variable_scope("self"):
                        attended = attention_layer(x, input_mask, batch_size, seq_length)
                    attended = dense(attended, HIDDEN, "output")
                    if is_training:
                        attended = tf.nn.dropout(attended, keep_prob=0.9)
                    x = layer_norm(attended + x, "LayerNorm")
                inner = dense(x, INTERMEDIATE, "intermediate", activation=gelu)
                out = dense(inner, HIDDEN, "output")
                x = layer_norm(out + x, "output_LayerNorm")
        first = tf.squeeze(tf.reshape(x, [batch_size, seq_length, HIDDEN])[:, 0:1, :], axis=1)
        return dense(first, HIDDEN, "pooler", activation=tf.tanh)


# ---------------------------------------------------------------------------------------------
# Adam with decoupled weight decay, as BERT's optimization.py subclassed tf.train.Optimizer


class AdamWeightDecayOptimizer(tf.train.Optimizer):
    def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9, beta_2=0.999, epsilon=1e-6,
                 exclude_from_weight_decay=None, name="AdamWeightDecayOptimizer"):
        super(AdamWeightDecayOptimizer, self).__init__(False, name)
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.exclude_from_weight_decay = exclude_from_weight_decay

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for grad, param in grads_and_vars:
            if grad is None or param is None:
                continue
            param_name = re.match("^(.*):\\d+$", param.name).group(1)
            m = tf.get_variable(name=param_name + "/adam_m", shape=param.shape.as_list(), dtype=tf.float32,
                                trainable=False, initializer=tf.zeros_initializer())
            v = tf.get_variable(name=param_name + "/adam_v", shape=param.shape.as_list(), dtype=tf.float32,
                                trainable=False, initializer=tf.zeros_initializer())
            next_m = tf.multiply(self.beta_1, m) + tf.multiply(1.0 - self.beta_1, grad)
            next_v = tf.multiply(self.beta_2, v) + tf.multiply(1.0 - self.beta_2, tf.square(grad))
            update = next_m / (tf.sqrt(next_v) + self.epsilon)
            if self._do_use_weight_decay(param_name):
                update += self.weight_decay_rate * param
            next_param = param - self.learning_rate * update
            assignments.extend([param.assign(next_param), m.assign(next_m), v.assign(next_v)])
        return tf.group(*assignments, name=name)

    def _do_use_weight_decay(self, param_name):
        if not self.weight_decay_rate:
            return False
        return not any(re.search(r, param_name) is not None for r in self.exclude_from_weight_decay or [])


def create_optimizer(loss, init_lr, num_train_steps, num_warmup_steps):
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.constant(value=init_lr, shape=[], dtype=tf.float32)
    learning_rate = tf.train.polynomial_decay(learning_rate, global_step, num_train_steps, end_learning_rate=0.0,
                                              power=1.0, cycle=False)
    global_steps_int = tf.cast(global_step, tf.int32)
    warmup_percent_done = tf.cast(global_steps_int, tf.float32) / float(num_warmup_steps)
    is_warmup = tf.cast(global_steps_int < num_warmup_steps, tf.float32)
    learning_rate = (1.0 - is_warmup) * learning_rate + is_warmup * init_lr * warmup_percent_done
    optimizer = AdamWeightDecayOptimizer(learning_rate=learning_rate, weight_decay_rate=0.01,
                                         exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"])
    tvars = tf.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, _) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
    new_global_step = global_step + 1
    return tf.group(train_op, [global_step.assign(new_global_step)])


def get_assignment_map_from_checkpoint(tvars, init_checkpoint):
    """The encoder's variables, which the checkpoint has under the same names."""
    name_to_variable = collections.OrderedDict()
    for var in tvars:
        name = re.match("^(.*):\\d+$", var.name).group(1)
        name_to_variable[name] = var
    assignment_map, initialized = collections.OrderedDict(), {}
    for name, _ in tf.train.list_variables(init_checkpoint):
        if name in name_to_variable and name.startswith("encoder/"):  # (not the other task's output layer)
            assignment_map[name] = name
            initialized[name] = 1
            initialized[name + ":0"] = 1
    return assignment_map, initialized


def model_fn_builder(num_labels, init_checkpoint, num_train_steps, use_tpu):
    def model_fn(features, labels, mode, params):
        input_ids, input_mask = features["input_ids"], features["input_mask"]
        label_ids = features["label_ids"]
        is_training = mode == tf.estimator.ModeKeys.TRAIN
        pooled = encoder(input_ids, input_mask, is_training)
        output_weights = tf.get_variable("output_weights", [num_labels, HIDDEN],
                                         initializer=tf.truncated_normal_initializer(stddev=0.2))
        output_bias = tf.get_variable("output_bias", [num_labels], initializer=tf.zeros_initializer())
        with tf.variable_scope("loss"):
            if is_training:
                pooled = tf.nn.dropout(pooled, keep_prob=0.9)
            logits = tf.nn.bias_add(tf.matmul(pooled, output_weights, transpose_b=True), output_bias)
            log_probs = tf.nn.log_softmax(logits, axis=-1)
            one_hot_labels = tf.one_hot(label_ids, depth=num_labels, dtype=tf.float32)
            per_example_loss = -tf.reduce_sum(one_hot_labels * log_probs, axis=-1)
            total_loss = tf.reduce_mean(per_example_loss)

        tvars = tf.trainable_variables()
        scaffold_fn = None
        if init_checkpoint:
            assignment_map, initialized = get_assignment_map_from_checkpoint(tvars, init_checkpoint)
            tf.logging.info("**** %d variables initialized from %s ****", len(assignment_map), init_checkpoint)
            if use_tpu:
                def tpu_scaffold():
                    tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
                    return tf.train.Scaffold()
                scaffold_fn = tpu_scaffold
            else:
                tf.train.init_from_checkpoint(init_checkpoint, assignment_map)

        if mode == tf.estimator.ModeKeys.TRAIN:
            train_op = create_optimizer(total_loss, FLAGS.learning_rate, num_train_steps, num_train_steps // 10)
            return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=total_loss, train_op=train_op,
                                                   scaffold_fn=scaffold_fn)
        if mode == tf.estimator.ModeKeys.EVAL:
            def metric_fn(per_example_loss, label_ids, logits):
                predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
                return {"eval_accuracy": tf.metrics.accuracy(labels=label_ids, predictions=predictions),
                        "eval_loss": tf.metrics.mean(values=per_example_loss)}
            return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=total_loss,
                                                   eval_metrics=(metric_fn, [per_example_loss, label_ids, logits]),
                                                   scaffold_fn=scaffold_fn)
        return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, predictions={"probabilities": tf.nn.softmax(logits)},
                                               scaffold_fn=scaffold_fn)

    return model_fn


def run_task(task, num_labels, output_dir, num_train_steps, init_checkpoint, rng):
    tf.gfile.MakeDirs(output_dir)
    train_file, eval_file = os.path.join(output_dir, "train.tf_record"), os.path.join(output_dir, "eval.tf_record")
    write_records(make_examples(rng, 2000, task), train_file)
    eval_examples = make_examples(rng, 400, task)
    write_records(eval_examples, eval_file)
    run_config = tf.contrib.tpu.RunConfig(
        master=None, model_dir=output_dir, save_checkpoints_steps=num_train_steps, tf_random_seed=3,
        tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=FLAGS.iterations_per_loop,
                                            per_host_input_for_training=tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2))
    estimator = tf.contrib.tpu.TPUEstimator(
        use_tpu=FLAGS.use_tpu, model_fn=model_fn_builder(num_labels, init_checkpoint, num_train_steps, FLAGS.use_tpu),
        config=run_config, train_batch_size=FLAGS.train_batch_size, eval_batch_size=FLAGS.eval_batch_size,
        predict_batch_size=FLAGS.eval_batch_size)
    estimator.train(input_fn=file_based_input_fn_builder(train_file, True, True), max_steps=num_train_steps)
    result = estimator.evaluate(input_fn=file_based_input_fn_builder(eval_file, False, True),
                                steps=len(eval_examples) // FLAGS.eval_batch_size)
    probabilities = [p["probabilities"] for p in
                     estimator.predict(input_fn=file_based_input_fn_builder(eval_file, False, False))]
    predicted = np.argmax(np.array(probabilities), axis=1)
    labels = np.array([label for _, _, label in eval_examples])
    print("%s: eval accuracy %.3f, eval loss %.3f, predict accuracy %.3f (%d sentences)"
          % (task, result["eval_accuracy"], result["eval_loss"], np.mean(predicted == labels), len(labels)))
    return estimator.latest_checkpoint()


def main(_):
    tf.logging.set_verbosity(tf.logging.WARN)
    rng = np.random.RandomState(FLAGS.seed)
    pretrained = run_task("which_word", 3, os.path.join(FLAGS.output_dir, "pretrain"), FLAGS.pretrain_steps, None, rng)
    finetune_dir = os.path.join(FLAGS.output_dir, "finetune")
    run_task("has_b", 2, finetune_dir, FLAGS.finetune_steps, pretrained, rng)
    # The fine-tuning's first checkpoint (step 0) holds the encoder it started from.
    start = os.path.join(finetune_dir, "model.ckpt-0")
    names = [name for name, _ in tf.train.list_variables(start) if name.startswith("encoder/")
             and not name.endswith(("adam_m", "adam_v"))]
    same = all(np.array_equal(tf.train.load_variable(start, n), tf.train.load_variable(pretrained, n)) for n in names)
    print("fine-tuning started from the pre-trained encoder: %s (%d variables)" % (same, len(names)))


if __name__ == "__main__":
    tf.app.run()
