"""tf.contrib.seq2seq's decoders: teacher forcing equals dynamic_rnn on the same cell,
greedy decoding equals the same steps unrolled by hand, and a model trains through them."""

import functools

import numpy as np
import pytest

import distflow as tf

seq2seq = tf.contrib.seq2seq
RNG = np.random.RandomState(6)


def test_training_helper_decodes_as_dynamic_rnn():
    x = RNG.randn(3, 5, 4)
    lengths = np.array([5, 2, 4])
    cell = tf.nn.rnn_cell.BasicLSTMCell(6, dtype=tf.float64)
    projection = tf.layers.Dense(7, dtype=tf.float64, name="projection")
    initial = cell.zero_state(3, tf.float64)
    decoder = seq2seq.BasicDecoder(cell, seq2seq.TrainingHelper(tf.constant(x), lengths), initial, projection)
    outputs, state, got_lengths = seq2seq.dynamic_decode(decoder, impute_finished=True)
    with tf.variable_scope("decoder", reuse=True):  # (the same variables, run by dynamic_rnn)
        rnn_out, rnn_state = tf.nn.dynamic_rnn(cell, tf.constant(x), sequence_length=lengths, initial_state=initial)
    logits = projection(rnn_out)
    mask = (np.arange(5)[None, :] < lengths[:, None])[:, :, None]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state, got_len, want, want_state = sess.run([outputs, state, got_lengths, logits, rnn_state])
    assert got.rnn_output.shape == (3, 5, 7) and got_len.tolist() == [5, 2, 4]
    np.testing.assert_allclose(got.rnn_output, want * mask, rtol=1e-12, atol=1e-14)  # (zeros once finished)
    np.testing.assert_array_equal(got.sample_id[mask[:, :, 0]], want.argmax(-1)[mask[:, :, 0]])
    np.testing.assert_allclose(got_state.h, want_state.h, rtol=1e-12)
    np.testing.assert_allclose(got_state.c, want_state.c, rtol=1e-12)


def test_greedy_decoding_equals_the_steps_unrolled():
    embedding = RNG.randn(6, 3)
    end_token, start = 5, np.array([0, 1])
    cell = tf.nn.rnn_cell.GRUCell(4, dtype=tf.float64)
    projection = tf.layers.Dense(6, dtype=tf.float64, name="out")
    initial = tf.constant(RNG.randn(2, 4))
    decoder = seq2seq.BasicDecoder(cell, seq2seq.GreedyEmbeddingHelper(tf.constant(embedding), start, end_token),
                                   initial, projection)
    outputs, _, lengths = seq2seq.dynamic_decode(decoder, maximum_iterations=6)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_lengths, h = sess.run([outputs.sample_id, lengths, initial])
        weights = {v.op.name: sess.run(v) for v in tf.trainable_variables()}

    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    gates_k, gates_b = weights["decoder/gru_cell/gates/kernel"], weights["decoder/gru_cell/gates/bias"]
    cand_k, cand_b = weights["decoder/gru_cell/candidate/kernel"], weights["decoder/gru_cell/candidate/bias"]
    out_k, out_b = weights["decoder/out/kernel"], weights["decoder/out/bias"]
    ids, finished, want_lengths, steps = start.copy(), np.zeros(2, bool), np.zeros(2, int), []
    for t in range(6):
        x = embedding[ids]
        r, u = np.split(sigmoid(np.concatenate([x, h], 1) @ gates_k + gates_b), 2, axis=1)
        c = np.tanh(np.concatenate([x, r * h], 1) @ cand_k + cand_b)
        h = u * h + (1 - u) * c
        ids = (h @ out_k + out_b).argmax(1)
        steps.append(ids)
        want_lengths[~finished] = t + 1
        finished |= ids == end_token
        if finished.all():
            break
    want = np.stack(steps, 1)
    assert got.shape == want.shape and got.tolist() == want.tolist() and got_lengths.tolist() == want_lengths.tolist()


def test_a_model_trains_through_dynamic_decode_and_tile_batch_repeats_rows():
    targets = RNG.randint(0, 5, size=(4, 6))
    inputs = tf.one_hot(tf.constant(targets), 5, dtype=tf.float32)
    cell = tf.nn.rnn_cell.LSTMCell(16)
    decoder = seq2seq.BasicDecoder(cell, seq2seq.TrainingHelper(inputs, [6, 6, 6, 6]), cell.zero_state(4, tf.float32),
                                   tf.layers.Dense(5))
    outputs, _, _ = seq2seq.dynamic_decode(decoder)
    shifted = np.concatenate([targets[:, 1:], targets[:, :1]], 1)  # (predict the next token)
    loss = seq2seq.sequence_loss(outputs.rnn_output, tf.constant(shifted), tf.ones([4, 6]))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    tiled = seq2seq.tile_batch(tf.constant([[1, 2], [3, 4]]), 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(80):
            sess.run(train)
        assert sess.run(loss) < 0.3 * first
        assert sess.run(tiled).tolist() == [[1, 2]] * 3 + [[3, 4]] * 3


def _softmax(z):
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def _weight(values, suffix):
    (found,) = [v for name, v in values.items() if name.endswith(suffix)]
    return found


def _monotonic(p, previous):
    """Monotonic attention by its recurrence: q[i] = (1 - p[i-1]) q[i-1] + previous[i]."""
    q, out = np.zeros(p.shape[0]), np.zeros_like(p)
    for i in range(p.shape[1]):
        q = (1 - p[:, i - 1] if i else 1.0) * q + previous[:, i]
        out[:, i] = p[:, i] * q
    return out


MECHANISMS = {"luong": seq2seq.LuongAttention, "bahdanau": seq2seq.BahdanauAttention,
              "luong_monotonic": functools.partial(seq2seq.LuongMonotonicAttention, score_bias_init=-0.5),
              "bahdanau_monotonic": functools.partial(seq2seq.BahdanauMonotonicAttention, score_bias_init=0.5)}


@pytest.mark.parametrize("kind", sorted(MECHANISMS))
def test_attention_wrapper_decodes_as_numpy(kind):
    memory = RNG.randn(2, 4, 5)
    memory_lengths = np.array([4, 2])
    x = RNG.randn(2, 3, 3)
    mechanism = MECHANISMS[kind](6, tf.constant(memory), memory_lengths, dtype=tf.float64)
    cell = seq2seq.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(6, dtype=tf.float64), mechanism,
                                    attention_layer_size=7, alignment_history=True)
    decoder = seq2seq.BasicDecoder(cell, seq2seq.TrainingHelper(tf.constant(x), [3, 3]),
                                   cell.zero_state(2, tf.float64))
    outputs, state, _ = seq2seq.dynamic_decode(decoder)
    history = state.alignment_history.stack()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_history = sess.run([outputs.rnn_output, history])
        values = {v.op.name: sess.run(v) for v in tf.trainable_variables()}
    keys = memory @ _weight(values, "memory_layer/kernel")
    mask = np.arange(4)[None, :] < memory_lengths[:, None]
    kernel, bias = _weight(values, "basic_rnn_cell/kernel"), _weight(values, "basic_rnn_cell/bias")
    h, attention, want, alignments_seen = np.zeros((2, 6)), np.zeros((2, 7)), [], []
    alignments = np.eye(4)[[0, 0]]  # (where a monotonic mechanism starts)
    for t in range(3):
        h = np.tanh(np.concatenate([x[:, t], attention, h], 1) @ kernel + bias)
        if kind.startswith("luong"):
            score = np.einsum("bd,btd->bt", h, keys)
        else:
            query = h @ _weight(values, "query_layer/kernel")
            score = np.tanh(keys + query[:, None, :]) @ _weight(values, "attention_v")
        if kind.endswith("monotonic"):
            score = score + _weight(values, "attention_score_bias")
            alignments = _monotonic(1 / (1 + np.exp(-np.where(mask, score, -np.inf))), alignments)
        else:
            alignments = _softmax(np.where(mask, score, -np.inf))
        context = np.einsum("bt,btd->bd", alignments, memory * mask[:, :, None])
        attention = np.concatenate([h, context], 1) @ _weight(values, "attention_layer/kernel")
        want.append(attention)
        alignments_seen.append(alignments)
    np.testing.assert_allclose(got, np.stack(want, 1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_history, np.stack(alignments_seen), rtol=1e-10, atol=1e-12)
    assert np.all(got_history[:, 1, 2:] == 0.0)  # (memory past its length: no attention)
    if kind.endswith("monotonic"):
        assert _weight(values, "attention_score_bias") == (-0.5 if kind.startswith("luong") else 0.5)


def test_monotonic_attention_in_each_mode_and_its_gradient():
    p, previous = RNG.uniform(0.05, 0.95, (3, 6)), _softmax(RNG.randn(3, 6))
    hard_p = (RNG.uniform(size=(3, 6)) > 0.5).astype(np.float64)
    hard_previous = np.eye(6)[[0, 2, 5]]
    with tf.Session() as sess:
        pp = tf.constant(p)
        got = {mode: sess.run(seq2seq.monotonic_attention(pp, tf.constant(previous), mode))
               for mode in ("recursive", "parallel")}
        hard = sess.run(seq2seq.monotonic_attention(tf.constant(hard_p), tf.constant(hard_previous), "hard"))
        grad = sess.run(tf.gradients(tf.reduce_sum(seq2seq.monotonic_attention(pp, tf.constant(previous), "parallel")
                                                   * tf.constant(np.arange(6.0))), pp)[0])
        cumprod = sess.run(seq2seq.safe_cumprod(tf.constant(p), axis=1, exclusive=True))
    np.testing.assert_allclose(got["recursive"], _monotonic(p, previous), rtol=1e-12)
    np.testing.assert_allclose(got["parallel"], _monotonic(p, previous), rtol=1e-9)
    for b, start in enumerate([0, 2, 5]):  # the first chosen entry at or after the last one
        chosen = [i for i in range(start, 6) if hard_p[b, i]]
        np.testing.assert_array_equal(hard[b], np.eye(6)[chosen[0]] if chosen else np.zeros(6))
    np.testing.assert_allclose(cumprod, np.cumprod(np.concatenate([np.ones((3, 1)), p[:, :-1]], 1), 1), rtol=1e-12)
    eps, numeric = 1e-6, np.zeros_like(p)
    for index in np.ndindex(*p.shape):
        for sign in (1, -1):
            moved = p.copy()
            moved[index] += sign * eps
            numeric[index] += sign * (_monotonic(moved, previous) @ np.arange(6.0)).sum() / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="mode must be"):
        seq2seq.monotonic_attention(pp, tf.constant(previous), "soft")
    with pytest.raises(ValueError, match="mode must be"):
        seq2seq.BahdanauMonotonicAttention(3, tf.constant(RNG.randn(2, 4, 5)), mode="soft")


def _numpy_beam_search(embedding, start, end, h0, kernel, bias, out_k, out_b, beam, steps, penalty):
    """TF 1.x's beam search step by step (a BasicRNNCell and a dense projection), then the
    beams followed back from their ends."""
    batch, vocab = len(start), out_k.shape[1]
    h = np.repeat(h0[:, None, :], beam, 1)
    log_probs = np.where(np.arange(beam) == 0, 0.0, -np.inf)[None].repeat(batch, 0)
    finished = np.arange(beam)[None].repeat(batch, 0) != 0
    lengths = np.zeros((batch, beam), np.int64)
    ids = np.repeat(np.asarray(start)[:, None], beam, 1)
    record = []
    rows = np.arange(batch)[:, None]
    for _ in range(steps):
        h_new = np.tanh(np.concatenate([embedding[ids], h], -1) @ kernel + bias)
        logits = h_new @ out_k + out_b
        step = logits - logits.max(-1, keepdims=True)
        step = step - np.log(np.exp(step).sum(-1, keepdims=True))
        masked = np.full(vocab, np.finfo(np.float64).min)
        masked[end] = 0.0
        step = np.where(finished[..., None], masked, step)
        total = log_probs[..., None] + step
        scores = total
        if penalty:
            grows = np.where(np.arange(vocab) == end, 0, 1) * (~finished)[..., None]
            scores = total / ((5.0 + lengths[..., None] + grows) / 6.0) ** penalty
        flat = scores.reshape(batch, -1)
        index = np.argsort(-flat, axis=1, kind="stable")[:, :beam]
        parents, words = index // vocab, index % vocab
        log_probs = total.reshape(batch, -1)[rows, index]
        was_finished = finished[rows, parents]
        finished = was_finished | (words == end)
        lengths = lengths[rows, parents] + ~was_finished
        h = h_new[rows, parents]
        record.append((flat[rows, index], words, parents))
        ids = words
        if finished.all():
            break
    scores, words, parents = (np.stack(r) for r in zip(*record))
    out = np.full(words.shape, end)
    for b in range(batch):
        last = min(len(record), int(lengths[b].max()))
        for k in range(beam):
            out[last - 1, b, k] = words[last - 1, b, k]
            parent = parents[last - 1, b, k]
            for level in range(last - 2, -1, -1):
                out[level, b, k] = words[level, b, parent]
                parent = parents[level, b, parent]
            done = False
            for t in range(last):
                if done:
                    out[t, b, k] = end
                elif out[t, b, k] == end:
                    done = True
    return out.transpose(1, 0, 2), scores.transpose(1, 0, 2)


@pytest.mark.parametrize("penalty", [0.0, 0.6])
def test_beam_search_decodes_as_numpy(penalty):
    embedding = RNG.randn(6, 3)
    start, end, beam = np.array([0, 2]), 5, 3
    h0 = RNG.randn(2, 4)
    cell = tf.nn.rnn_cell.BasicRNNCell(4, dtype=tf.float64)
    projection = tf.layers.Dense(6, dtype=tf.float64, name="out")
    decoder = seq2seq.BeamSearchDecoder(cell, tf.constant(embedding), start, end,
                                        seq2seq.tile_batch(tf.constant(h0), beam), beam, projection,
                                        length_penalty_weight=penalty)
    outputs, _, _ = seq2seq.dynamic_decode(decoder, maximum_iterations=7)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ids, scores = sess.run([outputs.predicted_ids, outputs.beam_search_decoder_output.scores])
        weights = {v.op.name: sess.run(v) for v in tf.trainable_variables()}
    want_ids, want_scores = _numpy_beam_search(
        embedding, start, end, h0, _weight(weights, "basic_rnn_cell/kernel"), _weight(weights, "basic_rnn_cell/bias"),
        _weight(weights, "out/kernel"), _weight(weights, "out/bias"), beam, 7, penalty)
    assert ids.shape == want_ids.shape and ids.tolist() == want_ids.tolist()
    np.testing.assert_allclose(scores, want_scores, rtol=1e-10)
    assert np.all(np.diff(scores[:, -1], axis=1) <= 0)  # (the best beam first)


class _TableCell(tf.nn.rnn_cell.RNNCell):
    """A cell whose logits and attention are rows of tables picked by its input (one-hot
    rows of the previous words): a beam search over it is easy to follow in NumPy."""

    def __init__(self, logits, alignment_logits):
        super().__init__()
        self._logits, self._alignment_logits = tf.constant(logits), tf.constant(alignment_logits)

    output_size = property(lambda self: self._logits.shape[1].value)

    def __call__(self, inputs, state, scope=None):
        alignments = tf.nn.softmax(tf.matmul(inputs, self._alignment_logits))
        return tf.matmul(inputs, self._logits), state._replace(alignments=alignments, time=state.time + 1)


def _numpy_coverage_search(logits, alignment_logits, start, end, beam, steps, coverage):
    batch, vocab = len(start), logits.shape[1]
    rows = np.arange(batch)[:, None]
    ids = np.repeat(np.asarray(start)[:, None], beam, 1)
    log_probs = np.where(np.arange(beam) == 0, 0.0, -np.inf)[None].repeat(batch, 0)
    finished = np.arange(beam)[None].repeat(batch, 0) != 0
    received = np.zeros((batch, beam, alignment_logits.shape[1]))
    record = []
    for _ in range(steps):
        step = logits[ids] - np.log(np.exp(logits[ids]).sum(-1, keepdims=True))
        masked = np.full(vocab, np.finfo(np.float64).min)
        masked[end] = 0.0
        total = log_probs[..., None] + np.where(finished[..., None], masked, step)
        received = received + _softmax(alignment_logits[ids]) * ~finished[..., None]
        penalty = np.log(np.minimum(np.where(received == 0, 1.0, received), 1.0)).sum(-1) * finished * coverage
        flat = (total + penalty[..., None]).reshape(batch, -1)
        index = np.argsort(-flat, axis=1, kind="stable")[:, :beam]
        parents, words = index // vocab, index % vocab
        log_probs = total.reshape(batch, -1)[rows, index]
        finished = finished[rows, parents] | (words == end)
        received = received[rows, parents]
        record.append((flat[rows, index], words, parents))
        ids = words
        if finished.all():
            break
    return [np.stack(r, 1) for r in zip(*record)]


def test_beam_search_with_a_coverage_penalty_decodes_as_numpy():
    vocab, source, start, end, beam = 5, 4, np.array([0, 2]), 4, 3
    rng = np.random.RandomState(11)
    logits, alignment_logits = 2 * rng.randn(vocab, vocab), 3 * rng.randn(vocab, source)
    logits[:, end] += 1.0  # (hypotheses finish along the way, so that their coverage counts)
    runs = {}
    for coverage in (0.0, 2.0):
        with tf.Graph().as_default():
            n = len(start) * beam
            state = seq2seq.AttentionWrapperState(
                cell_state=tf.zeros([n, 1], tf.float64), attention=tf.zeros([n, 1], tf.float64), time=tf.constant(0),
                alignments=tf.zeros([n, source], tf.float64), alignment_history=(),
                attention_state=tf.zeros([n, source], tf.float64))
            decoder = seq2seq.BeamSearchDecoder(_TableCell(logits, alignment_logits), tf.constant(np.eye(vocab)),
                                                start, end, state, beam, coverage_penalty_weight=coverage)
            outputs, final, _ = seq2seq.dynamic_decode(decoder, maximum_iterations=6)
            found = outputs.beam_search_decoder_output
            with tf.Session() as sess:
                runs[coverage] = sess.run([found.scores, found.predicted_ids, found.parent_ids])
                if coverage:
                    assert sess.run(final.accumulated_attention_probs).shape == (2, beam, source)
        want = _numpy_coverage_search(logits, alignment_logits, start, end, beam, 6, coverage)
        np.testing.assert_allclose(runs[coverage][0], want[0], rtol=1e-10)
        assert runs[coverage][1].tolist() == want[1].tolist() and runs[coverage][2].tolist() == want[2].tolist()
    plain, covered = runs[0.0][0], runs[2.0][0]  # (the penalty changed the search)
    assert plain.shape != covered.shape or not np.allclose(plain, covered)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="no cell is attentional"):
        seq2seq.BeamSearchDecoder(tf.nn.rnn_cell.BasicRNNCell(3), tf.constant(np.eye(vocab)), start, end,
                                  tf.zeros([6, 3]), beam, coverage_penalty_weight=1.0)


def test_gather_tree_follows_the_parents_back():
    step_ids = np.array([[[2, 5, 3]], [[6, 9, 4]], [[7, 8, 9]]])  # [time, batch, beam]
    parent_ids = np.array([[[0, 0, 0]], [[1, 2, 0]], [[2, 1, 1]]])
    got = _run_value(seq2seq.gather_tree(step_ids, parent_ids, [3], 9))
    # beam 0: 7 <- 4 (beam 2 at step 1) <- 2 (beam 0); beams 1 and 2 pass the end token at step 1
    assert got[:, 0].T.tolist() == [[2, 4, 7], [3, 9, 9], [3, 9, 9]]
    # a parent out of [0, beam) marks the rest of that beam's path -1, as TF's kernels do
    bad = np.array([[[0, 0, 0]], [[0, -1, 3]], [[2, 1, 2]]])
    got = _run_value(seq2seq.gather_tree(step_ids, bad, [3], 10))
    assert got[:, 0].T.tolist() == [[-1, 4, 7], [-1, 9, 8], [-1, 4, 9]]


def _run_value(t):
    with tf.Session() as sess:
        return sess.run(t)


def _one_step(helper, cell_units=4, batch=3):
    cell = tf.nn.rnn_cell.BasicRNNCell(cell_units, dtype=tf.float64)
    decoder = seq2seq.BasicDecoder(cell, helper, cell.zero_state(batch, tf.float64))
    finished, inputs, state = decoder.initialize()
    outputs, _, next_inputs, next_finished = decoder.step(tf.constant(0), inputs, state)
    return decoder, outputs, next_inputs, next_finished


@pytest.mark.parametrize("probability", [0.0, 1.0])
def test_scheduled_embedding_training_reads_targets_or_its_own_samples(probability):
    targets = RNG.randn(3, 4, 2)
    embedding = RNG.randn(4, 2)
    helper = seq2seq.ScheduledEmbeddingTrainingHelper(tf.constant(targets), [4, 4, 1], tf.constant(embedding),
                                                      probability, seed=3)
    _, outputs, next_inputs, finished = _one_step(helper)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ids, got, done = sess.run([outputs.sample_id, next_inputs, finished])
    assert done.tolist() == [False, False, True] and ids.shape == (3,)
    if probability == 0.0:  # (-1: the target read)
        assert ids.tolist() == [-1, -1, -1]
        np.testing.assert_allclose(got, targets[:, 1])
    else:
        assert (ids >= 0).all() and (ids < 4).all()
        np.testing.assert_allclose(got, embedding[ids])


@pytest.mark.parametrize("probability", [0.0, 1.0])
def test_scheduled_output_training_reads_targets_or_its_own_outputs_with_auxiliary_inputs(probability):
    targets, extra = RNG.randn(3, 4, 3), RNG.randn(3, 4, 1)
    helper = seq2seq.ScheduledOutputTrainingHelper(tf.constant(targets), [4, 4, 4], probability,
                                                   next_inputs_fn=lambda out: out[:, :3] * 2.0,
                                                   auxiliary_inputs=tf.constant(extra))
    decoder, outputs, next_inputs, _ = _one_step(helper)
    assert decoder.output_dtype.sample_id == tf.bool
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        chosen, out, got = sess.run([outputs.sample_id, outputs.rnn_output, next_inputs])
    assert chosen.tolist() == [bool(probability)] * 3
    want = np.concatenate([targets[:, 1], extra[:, 1]], 1) if probability == 0.0 else \
        np.concatenate([out[:, :3] * 2.0, extra[:, 1]], 1)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_inference_and_custom_helpers_run_the_functions_given_them():
    start = RNG.randn(3, 2)
    helper = seq2seq.InferenceHelper(sample_fn=lambda out: out[:, :2] * 0.5, sample_shape=[2], sample_dtype=tf.float64,
                                     start_inputs=tf.constant(start), end_fn=lambda s: tf.reduce_sum(s, 1) > 0.0,
                                     next_inputs_fn=lambda s: s + 1.0)
    _, outputs, next_inputs, finished = _one_step(helper)
    custom = seq2seq.CustomHelper(lambda: (tf.constant([False, True]), tf.ones([2, 2], tf.float64)),
                                  lambda time, outputs, state: tf.zeros([2], tf.int32),
                                  lambda time, outputs, state, sample_ids: (tf.constant([True, True]), outputs[:, :2],
                                                                            state))
    with pytest.raises(ValueError, match="batch_size accessed before initialize was called"):
        custom.batch_size
    _, custom_outputs, custom_next, custom_finished = _one_step(custom, batch=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, samples, got, done = sess.run([outputs.rnn_output, outputs.sample_id, next_inputs, finished])
        got_custom, custom_out, custom_done = sess.run([custom_next, custom_outputs.rnn_output, custom_finished])
    np.testing.assert_allclose(samples, out[:, :2] * 0.5)
    np.testing.assert_allclose(got, samples + 1.0)
    assert done.tolist() == (samples.sum(1) > 0).tolist()
    np.testing.assert_allclose(got_custom, custom_out[:, :2])
    assert custom_done.tolist() == [True, True]


def test_an_attention_wrappers_state_keeps_its_static_batch_size_through_decoding():
    memory = tf.constant(RNG.randn(5, 8, 7))
    mechanism = seq2seq.BahdanauAttention(9, memory, memory_sequence_length=[8] * 5)
    cell = seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(9, dtype=tf.float64), mechanism, attention_layer_size=6)
    initial = cell.zero_state(5, tf.float64)
    helper = seq2seq.TrainingHelper(tf.zeros([5, 4, 3], tf.float64), [4] * 5)
    _, final, _ = seq2seq.dynamic_decode(seq2seq.BasicDecoder(cell, helper, initial))
    assert initial.attention.shape.as_list() == [5, 6] and final.attention.shape.as_list() == [5, 6]
    assert final.alignments.shape.as_list() == [5, 8]


def test_an_attention_wrapper_over_several_mechanisms_concatenates_their_attentions():
    memories = [RNG.randn(2, 4, 5), RNG.randn(2, 3, 2)]
    x = RNG.randn(2, 2, 3)
    mechanisms = [seq2seq.LuongAttention(6, tf.constant(m), dtype=tf.float64) for m in memories]
    cell = seq2seq.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(6, dtype=tf.float64), mechanisms,
                                    attention_layer_size=[3, 2], alignment_history=True)
    assert cell.output_size == 5 and cell.state_size.alignments == (4, 3)
    initial = cell.zero_state(2, tf.float64)
    decoder = seq2seq.BasicDecoder(cell, seq2seq.TrainingHelper(tf.constant(x), [2, 2]), initial)
    outputs, state, _ = seq2seq.dynamic_decode(decoder)
    histories = [h.stack() for h in state.alignment_history]
    with pytest.raises(ValueError, match="exactly one integer per attention_mechanism"):
        seq2seq.AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(6), mechanisms, attention_layer_size=[3])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_histories = sess.run([outputs.rnn_output, histories])
        values = {v.op.name: sess.run(v) for v in tf.trainable_variables()}
    keys = [m @ values[name] for m, name in zip(memories, ("memory_layer/kernel", "memory_layer_1/kernel"))]
    layers = [_weight(values, "attention_layer/kernel"), _weight(values, "attention_layer_1/kernel")]
    kernel, bias = _weight(values, "basic_rnn_cell/kernel"), _weight(values, "basic_rnn_cell/bias")
    h, attention, want, seen = np.zeros((2, 6)), np.zeros((2, 5)), [], [[], []]
    for t in range(2):
        h = np.tanh(np.concatenate([x[:, t], attention, h], 1) @ kernel + bias)
        parts = []
        for i in range(2):
            alignments = _softmax(np.einsum("bd,btd->bt", h, keys[i]))
            seen[i].append(alignments)
            parts.append(np.concatenate([h, np.einsum("bt,btd->bd", alignments, memories[i])], 1) @ layers[i])
        attention = np.concatenate(parts, 1)
        want.append(attention)
    np.testing.assert_allclose(got, np.stack(want, 1), rtol=1e-10, atol=1e-12)
    for i in range(2):
        np.testing.assert_allclose(got_histories[i], np.stack(seen[i]), rtol=1e-10, atol=1e-12)
