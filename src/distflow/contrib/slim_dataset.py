"""``tf.contrib.slim.dataset`` and ``data_decoder``: what a TF-Slim dataset is (its files, the
reader and decoder of their records, how many samples, what each item means), and the
interface of a decoder of records into items."""

from __future__ import annotations

import abc


class DataDecoder(abc.ABC):
    """Decodes one record into tensors, one per item asked for."""

    @abc.abstractmethod
    def decode(self, data, items):
        """The tensors of ``items`` decoded from ``data``."""

    @abc.abstractmethod
    def list_items(self):
        """The names of the items this decoder gives."""


class Dataset:
    """A dataset's ``data_sources``, ``reader`` (class), ``decoder``, ``num_samples`` and
    ``items_to_descriptions``, and any other keyword (``num_classes``, ``labels_to_names``)
    as attributes."""

    def __init__(self, data_sources, reader, decoder, num_samples, items_to_descriptions, **kwargs):
        self.__dict__.update(kwargs, data_sources=data_sources, reader=reader, decoder=decoder,
                             num_samples=num_samples, items_to_descriptions=items_to_descriptions)
