"""TF 1.x's k-means Estimator, as its API documentation's example runs it: an input function
of all the points (``tf.train.limit_epochs``, one epoch), ``train`` called once per iteration
with the centers' movement and the score printed, then each point mapped to its cluster.

The points are the iris flowers' four measurements from scikit-learn instead of random ones,
so that the clusters can be checked against the species they were not told.
"""
import numpy as np
import distflow as tf
from sklearn.datasets import load_iris


def main():
    iris = load_iris()
    points = iris.data.astype(np.float32)

    def input_fn():
        return tf.train.limit_epochs(tf.convert_to_tensor(points, dtype=tf.float32), num_epochs=1)

    num_clusters = 3
    kmeans = tf.contrib.factorization.KMeansClustering(
        num_clusters=num_clusters, use_mini_batch=False, initial_clusters="kmeans_plus_plus", random_seed=1)

    # train
    num_iterations = 10
    previous_centers = None
    for _ in range(num_iterations):
        kmeans.train(input_fn)
        cluster_centers = kmeans.cluster_centers()
        if previous_centers is not None:
            print("delta:", np.abs(cluster_centers - previous_centers).max())
        previous_centers = cluster_centers
        print("score:", kmeans.score(input_fn))
    print("cluster centers:", cluster_centers.tolist())

    # map the input points to their clusters
    cluster_indices = list(kmeans.predict_cluster_index(input_fn))
    for i, point in enumerate(points[:3]):
        cluster_index = cluster_indices[i]
        center = cluster_centers[cluster_index]
        print("point:", point, "is in cluster", cluster_index, "centered at", center)

    # how well the clusters match the species: each cluster counted as its most common one
    clusters = np.array(cluster_indices)
    matched = sum(np.bincount(iris.target[clusters == c]).max() for c in range(num_clusters) if (clusters == c).any())
    print("cluster purity: %.3f" % (matched / len(points)))


if __name__ == "__main__":
    main()
