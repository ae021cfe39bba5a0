"""Devices, placement, partitioning, the executor and the local Session."""
