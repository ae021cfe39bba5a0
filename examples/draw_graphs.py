"""Draws the two pictures of docs/: in-graph and between-graph replication, placed.

    python examples/draw_graphs.py [--out docs/images]

in_graph.svg: examples/in_graph_training.py's graph (the variables on the CPU, one tower
per GPU), name scopes collapsed to one box per device. between_graph.svg: the graph one
worker of a 2-ps, 2-worker cluster builds with replica_device_setter (variables spread
over the ps tasks, the computation on the worker). Red dashed edges cross devices: there
a step sends and receives a tensor. Needs Graphviz's dot.
"""
import argparse
import os
import tempfile

import distflow as tf
from distflow.tools import graph


def between_graph_def():
    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"], "worker": ["worker0:2222", "worker1:2222"]})
    with tf.Graph().as_default() as g:
        with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
            x = tf.placeholder(tf.float32, [None, 64], name="images")
            y = tf.placeholder(tf.int64, [None], name="labels")
            h = tf.layers.dense(x, 128, activation=tf.nn.relu, name="hidden")
            logits = tf.layers.dense(h, 10, name="logits")
            loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
            tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=tf.train.get_or_create_global_step())
        return g.as_graph_def()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs", "images"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    in_graph = graph.load(os.path.join(here, "in_graph_training.py"), ["--devices", "/gpu:0,/gpu:1"])
    graph.render(graph.to_dot(in_graph, depth=1), os.path.join(args.out, "in_graph.svg"))
    graph.render(graph.to_dot(between_graph_def(), depth=1), os.path.join(args.out, "between_graph.svg"))
    print(f"wrote {args.out}/in_graph.svg and between_graph.svg")


if __name__ == "__main__":
    main()
