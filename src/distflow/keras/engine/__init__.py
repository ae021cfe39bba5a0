"""Keras's engine: Layer, Input, the functional Network, Model and Sequential."""
