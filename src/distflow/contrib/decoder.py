"""The base of ``tf.contrib.seq2seq``'s decoders (seq2seq.py, beam_search.py)."""


class Decoder:
    """Runs one step at a time under ``dynamic_decode``: ``initialize()`` -> (finished, inputs,
    state); ``step(time, inputs, state)`` -> (outputs, state, next inputs, finished); and, if
    it has one, ``finalize(outputs, final_state, sequence_lengths)`` on the time-major outputs."""

    @property
    def tracks_own_finished(self) -> bool:
        return False


def embedding_and_tokens(embedding, start_tokens, end_token):
    """(a function from ids to embeddings, ``start_tokens`` as an int32 vector, ``end_token``
    as an int32 scalar): ``embedding`` is a callable or the matrix to look ids up in."""
    from .. import convert_to_tensor, int32, nn  # noqa: PLC0415

    if callable(embedding):
        embedding_fn = embedding
    else:
        params = convert_to_tensor(embedding)
        embedding_fn = lambda ids: nn.embedding_lookup(params, ids)  # noqa: E731
    start = convert_to_tensor(start_tokens, dtype=int32)
    end = convert_to_tensor(end_token, dtype=int32)
    if start.shape.ndims != 1:
        raise ValueError("start_tokens must be a vector")
    if end.shape.ndims != 0:
        raise ValueError("end_token must be a scalar")
    return embedding_fn, start, end

