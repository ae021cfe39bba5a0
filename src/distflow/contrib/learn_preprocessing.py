"""``tf.contrib.learn.preprocessing``: the vocabulary of TF 1.x's text models (2016-2018), which
maps each document to a fixed-length vector of word ids.

``VocabularyProcessor(max_document_length, min_frequency=0, vocabulary=None,
tokenizer_fn=None)``: ``fit`` gives each new word the next id in order of appearance (0 is
the unknown word, and padding); with ``min_frequency`` the words seen that many times or
fewer are dropped and the rest renumbered by falling count, then alphabetically;
``transform`` yields an int64 vector per document, its first ``max_document_length`` words'
ids and zeros after; ``reverse`` turns ids back into text. ``save`` and ``restore`` keep
the vocabulary in a JSON file (TF pickled the whole object: its files are not read here, and
a file of pickled bytes is refused rather than unpickled).
"""

from __future__ import annotations

import collections
import json
import re

import numpy as np

from .._namespace import missing
from ..platform import gfile

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """Each document's words: runs of letters, digits, ', - and _ (and capitalised words split
    where a new capital starts)."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Word -> id, 0 for ``unknown_token``; new words get the next id until ``freeze``."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        self._reverse_mapping = [unknown_token] if support_reverse else None
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        self._freeze = freeze

    def get(self, category):
        """The id of ``category``: a new one while not frozen, 0 (unknown) once frozen."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Counts ``count`` more of ``category`` (giving it an id if it is new)."""
        if self.get(category) <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps the words seen more than ``min_frequency`` times (and fewer than
        ``max_frequency``, when positive), renumbered by falling count, then alphabetically."""
        ranked = sorted(sorted(self._freq.items(), key=lambda item: (isinstance(item[0], str), item[0])),
                        key=lambda item: item[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        kept = []
        for category, count in ranked:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
            kept.append((category, count))
        self._freq = collections.defaultdict(int, kept)

    def reverse(self, class_id):
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to support reverse() function.")
        return self._reverse_mapping[class_id]


class VocabularyProcessor:
    """Documents to fixed-length vectors of word ids (see the module docstring)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None, tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary is not None else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn or tokenizer

    def fit(self, raw_documents, unused_y=None):
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields each document's word ids: an int64 vector of ``max_document_length``."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for index, token in enumerate(tokens):
                if index >= self.max_document_length:
                    break
                word_ids[index] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields each vector of ids back as text (words joined by spaces)."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        """Writes the vocabulary and lengths to ``filename`` (JSON; a custom tokenizer is not saved)."""
        vocabulary = self.vocabulary_
        state = {"format": "distflow VocabularyProcessor 1", "max_document_length": self.max_document_length,
                 "min_frequency": self.min_frequency, "unknown_token": vocabulary._unknown_token,
                 "words": sorted(vocabulary._mapping, key=vocabulary._mapping.get),
                 "counts": dict(vocabulary._freq), "frozen": vocabulary._freeze}
        with gfile.GFile(filename, "w") as f:
            f.write(json.dumps(state))

    @classmethod
    def restore(cls, filename):
        """The processor ``save`` wrote to ``filename``."""
        with gfile.GFile(filename, "rb") as f:
            data = f.read()
        try:
            state = json.loads(data.decode("utf-8"))
            if state.get("format") != "distflow VocabularyProcessor 1":
                raise ValueError("not a saved VocabularyProcessor")
        except (UnicodeDecodeError, ValueError, AttributeError) as e:
            raise ValueError(f"{filename} is not a VocabularyProcessor that distflow saved ({e}); TensorFlow's "
                             "own files are pickles, which distflow does not load") from None
        vocabulary = CategoricalVocabulary(state["unknown_token"])
        for word in state["words"][1:]:
            vocabulary.get(word)
        vocabulary._freq.update(state["counts"])
        vocabulary.freeze(state["frozen"])
        return cls(state["max_document_length"], state["min_frequency"], vocabulary)


__getattr__ = missing("tf.contrib.learn.preprocessing")
