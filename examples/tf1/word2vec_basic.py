"""TF 1.x's word2vec_basic tutorial: skip-gram embeddings trained with NCE, nearest words by
cosine similarity, and the embedding projector's config for TensorBoard.

The tutorial downloaded text8; here the corpus is made up: 48 words in six topics, each
sentence drawn from one topic, so that words of a topic share their contexts and should
end up as each other's nearest neighbours.
"""
import argparse
import collections
import math
import os
import random
import tempfile

import numpy as np
import distflow as tf

projector = tf.contrib.tensorboard.plugins.projector

parser = argparse.ArgumentParser()
parser.add_argument("--log_dir", type=str, default=os.path.join(tempfile.gettempdir(), "word2vec_log"))
FLAGS, _ = parser.parse_known_args()

# Step 1: the data (a made-up corpus of topics).
TOPICS, PER_TOPIC = 6, 8
vocabulary_size = TOPICS * PER_TOPIC
reverse_dictionary = {i: "t%dw%d" % (i // PER_TOPIC, i % PER_TOPIC) for i in range(vocabulary_size)}
rng = np.random.RandomState(7)
data = []
for _ in range(3000):
    topic = rng.randint(TOPICS)
    data.extend((topic * PER_TOPIC + rng.randint(PER_TOPIC, size=5)).tolist())
print("Sample data", data[:10], [reverse_dictionary[i] for i in data[:10]])

data_index = 0


# Step 2: a function to generate a training batch for the skip-gram model.
def generate_batch(batch_size, num_skips, skip_window):
    global data_index
    assert batch_size % num_skips == 0
    assert num_skips <= 2 * skip_window
    batch = np.ndarray(shape=(batch_size), dtype=np.int32)
    labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
    span = 2 * skip_window + 1  # [ skip_window target skip_window ]
    buffer = collections.deque(maxlen=span)
    if data_index + span > len(data):
        data_index = 0
    buffer.extend(data[data_index:data_index + span])
    data_index += span
    for i in range(batch_size // num_skips):
        context_words = [w for w in range(span) if w != skip_window]
        words_to_use = random.sample(context_words, num_skips)
        for j, context_word in enumerate(words_to_use):
            batch[i * num_skips + j] = buffer[skip_window]
            labels[i * num_skips + j, 0] = buffer[context_word]
        if data_index == len(data):
            buffer.extend(data[0:span])
            data_index = span
        else:
            buffer.append(data[data_index])
            data_index += 1
    # Backtrack a little bit to avoid skipping words in the end of a batch
    data_index = (data_index + len(data) - span) % len(data)
    return batch, labels


random.seed(7)
batch, labels = generate_batch(batch_size=8, num_skips=2, skip_window=1)
for i in range(4):
    print(batch[i], reverse_dictionary[batch[i]], "->", labels[i, 0], reverse_dictionary[labels[i, 0]])

# Step 3: build and train a skip-gram model.
batch_size = 128
embedding_size = 16  # Dimension of the embedding vector.
skip_window = 2  # How many words to consider left and right.
num_skips = 2  # How many times to reuse an input to generate a label.
num_sampled = 16  # Number of negative examples to sample.
valid_examples = np.arange(0, vocabulary_size, PER_TOPIC)  # the first word of each topic

graph = tf.Graph()
with graph.as_default():
    with tf.name_scope("inputs"):
        train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
        train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
        valid_dataset = tf.constant(valid_examples, dtype=tf.int32)

    with tf.device("/cpu:0"):
        with tf.name_scope("embeddings"):
            embeddings = tf.Variable(tf.random_uniform([vocabulary_size, embedding_size], -1.0, 1.0, seed=1))
            embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        with tf.name_scope("weights"):
            nce_weights = tf.Variable(tf.truncated_normal([vocabulary_size, embedding_size],
                                                          stddev=1.0 / math.sqrt(embedding_size), seed=2))
        with tf.name_scope("biases"):
            nce_biases = tf.Variable(tf.zeros([vocabulary_size]))

    with tf.name_scope("loss"):
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=train_labels,
                                             inputs=embed, num_sampled=num_sampled, num_classes=vocabulary_size))
    tf.summary.scalar("loss", loss)

    with tf.name_scope("optimizer"):
        optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    # Compute the cosine similarity between minibatch examples and all embeddings.
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)
    all_similarity = tf.matmul(normalized_embeddings, normalized_embeddings, transpose_b=True)

    merged = tf.summary.merge_all()
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()

# Step 4: begin training.
num_steps = 2001
with tf.Session(graph=graph) as session:
    writer = tf.summary.FileWriter(FLAGS.log_dir, session.graph)
    init.run()
    print("Initialized")
    average_loss = 0
    for step in range(num_steps):
        batch_inputs, batch_labels = generate_batch(batch_size, num_skips, skip_window)
        feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
        _, summary, loss_val = session.run([optimizer, merged, loss], feed_dict=feed_dict)
        average_loss += loss_val
        writer.add_summary(summary, step)
        if step % 500 == 0:
            if step > 0:
                average_loss /= 500
            print("Average loss at step ", step, ": ", average_loss)
            average_loss = 0

    sim = similarity.eval()
    for i in range(len(valid_examples)):
        valid_word = reverse_dictionary[valid_examples[i]]
        nearest = (-sim[i, :]).argsort()[1:4]
        print("Nearest to %s: %s" % (valid_word, ", ".join(reverse_dictionary[k] for k in nearest)))
    final_embeddings = normalized_embeddings.eval()
    pairs = all_similarity.eval()
    np.fill_diagonal(pairs, -np.inf)
    same_topic = np.mean(pairs.argmax(1) // PER_TOPIC == np.arange(vocabulary_size) // PER_TOPIC)
    print("nearest neighbour in the same topic: %.3f" % same_topic)

    # Write the metadata and the projector's config for TensorBoard, and save the model.
    with open(os.path.join(FLAGS.log_dir, "metadata.tsv"), "w") as f:
        for i in range(vocabulary_size):
            f.write(reverse_dictionary[i] + "\n")
    saver.save(session, os.path.join(FLAGS.log_dir, "model.ckpt"))
    config = projector.ProjectorConfig()
    embedding_conf = config.embeddings.add()
    embedding_conf.tensor_name = embeddings.name
    embedding_conf.metadata_path = os.path.join(FLAGS.log_dir, "metadata.tsv")
    projector.visualize_embeddings(writer, config)
    writer.close()
