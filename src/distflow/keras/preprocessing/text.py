"""``tf.keras.preprocessing.text``: texts split into words and numbered by frequency."""

from __future__ import annotations

import collections

import numpy as np

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(text, filters=_FILTERS, lower=True, split=" "):
    if lower:
        text = text.lower()
    text = text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in text.split(split) if word]


class Tokenizer:
    """Numbers words by how often ``fit_on_texts`` saw them (1 the most frequent; 0 is kept for
    padding), and turns texts into sequences of those numbers or into matrices."""

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ", char_level=False, oov_token=None,
                 document_count=0, **kwargs):
        self.num_words, self.filters, self.lower, self.split = num_words, filters, lower, split
        self.char_level, self.oov_token = char_level, oov_token
        self.word_counts: collections.OrderedDict = collections.OrderedDict()
        self.word_docs: collections.defaultdict = collections.defaultdict(int)
        self.document_count = document_count
        self.word_index: dict = {}
        self.index_word: dict = {}
        self.index_docs: collections.defaultdict = collections.defaultdict(int)

    def _words(self, text):
        if self.char_level:
            return list(text.lower() if self.lower else text)
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts) -> None:
        for text in texts:
            self.document_count += 1
            words = self._words(text) if isinstance(text, str) else list(text)
            for w in words:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(words):
                self.word_docs[w] += 1
        ordered = sorted(self.word_counts.items(), key=lambda kv: -kv[1])  # (stable: ties keep first-seen order)
        vocab = ([self.oov_token] if self.oov_token is not None else []) + [w for w, _ in ordered]
        self.word_index = {w: i + 1 for i, w in enumerate(vocab)}
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, count in self.word_docs.items():
            self.index_docs[self.word_index[w]] = count

    def texts_to_sequences(self, texts) -> list:
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        limit = self.num_words
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for text in texts:
            seq = []
            for w in (self._words(text) if isinstance(text, str) else text):
                i = self.word_index.get(w)
                if i is not None and (limit is None or i < limit):
                    seq.append(i)
                elif oov is not None:
                    seq.append(oov)
            yield seq

    def sequences_to_texts(self, sequences) -> list:
        return [" ".join(self.index_word[i] for i in seq if i in self.index_word) for seq in sequences]

    def texts_to_matrix(self, texts, mode="binary"):
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """One row per sequence over the vocabulary: ``binary``, ``count``, ``freq`` or ``tfidf``."""
        if mode not in ("binary", "count", "freq", "tfidf"):
            raise ValueError(f"Unknown vectorization mode: {mode}")
        size = self.num_words or (len(self.word_index) + 1)
        out = np.zeros((len(sequences), size))
        for row, seq in enumerate(sequences):
            counts = collections.Counter(i for i in seq if i < size)
            for i, c in counts.items():
                if mode == "count":
                    out[row, i] = c
                elif mode == "freq":
                    out[row, i] = c / len(seq)
                elif mode == "binary":
                    out[row, i] = 1
                else:
                    tf = 1 + np.log(c)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(i, 0)))
                    out[row, i] = tf * idf
        return out
