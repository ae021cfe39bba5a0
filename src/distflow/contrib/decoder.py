"""The base of ``tf.contrib.seq2seq``'s decoders (seq2seq.py, beam_search.py)."""


class Decoder:
    """Runs one step at a time under ``dynamic_decode``: ``initialize()`` -> (finished, inputs,
    state); ``step(time, inputs, state)`` -> (outputs, state, next inputs, finished); and, if
    it has one, ``finalize(outputs, final_state, sequence_lengths)`` on the time-major outputs."""

    @property
    def tracks_own_finished(self) -> bool:
        return False
