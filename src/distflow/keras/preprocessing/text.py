"""``tf.keras.preprocessing.text``: texts split into words and numbered by frequency."""

from __future__ import annotations

import collections
import hashlib
import json

import numpy as np

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(text, filters=_FILTERS, lower=True, split=" "):
    if lower:
        text = text.lower()
    text = text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in text.split(split) if word]


def one_hot(text, n, filters=_FILTERS, lower=True, split=" "):
    """Each word of ``text`` as an index in [1, n): its hash (Python's, which changes from one
    process to the next unless PYTHONHASHSEED is set, as Keras warns), so two words may share one."""
    return hashing_trick(text, n, hash_function=hash, filters=filters, lower=lower, split=split)


def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" "):
    """Each word of ``text`` as ``hash_function(word) % (n - 1) + 1``: Python's ``hash`` by
    default, or ``'md5'``, the same in every process; 0 is left for padding."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(word):  # noqa: F811 - the named choice
            return int(hashlib.md5(word.encode()).hexdigest(), 16)
    return [hash_function(word) % (n - 1) + 1 for word in text_to_word_sequence(text, filters, lower, split)]


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

    def get_config(self) -> dict:
        """Its arguments and what it counted, the counts as JSON strings (Keras's form)."""
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower, "split": self.split,
                "char_level": self.char_level, "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts), "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs), "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs) -> str:
        """The tokenizer as JSON, which ``tokenizer_from_json`` (distflow's or Keras's) reads."""
        return json.dumps({"class_name": "Tokenizer", "config": self.get_config()}, **kwargs)

    def fit_on_sequences(self, sequences) -> None:
        """Counts, for ``tfidf`` matrices, the documents each index appears in (sequences of
        indices, as ``texts_to_sequences`` gives them)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

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


def tokenizer_from_json(json_string) -> Tokenizer:
    """The Tokenizer ``to_json`` wrote (distflow's or Keras's)."""
    config = dict(json.loads(json_string).get("config") or {})
    counted = {key: json.loads(config.pop(key)) for key in ("word_counts", "word_docs", "index_docs", "index_word",
                                                             "word_index") if key in config}
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = collections.OrderedDict(counted.get("word_counts", {}))
    tokenizer.word_docs = collections.defaultdict(int, counted.get("word_docs", {}))
    tokenizer.index_docs = collections.defaultdict(int, {int(k): v for k, v in counted.get("index_docs", {}).items()})
    tokenizer.index_word = {int(k): v for k, v in counted.get("index_word", {}).items()}
    tokenizer.word_index = dict(counted.get("word_index", {}))
    return tokenizer
