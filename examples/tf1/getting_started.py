"""TF 1.x "Getting started": constants, sessions, variables, feeds and fetches."""
import numpy as np
import distflow as tf

node1 = tf.constant(3.0, dtype=tf.float32)
node2 = tf.constant(4.0)  # also tf.float32 implicitly
print(node1, node2)

sess = tf.Session()
print(sess.run([node1, node2]))
node3 = tf.add(node1, node2)
print("node3:", node3)
print("sess.run(node3):", sess.run(node3))

a = tf.placeholder(tf.float32)
b = tf.placeholder(tf.float32)
adder_node = a + b  # + provides a shortcut for tf.add(a, b)
print(sess.run(adder_node, {a: 3, b: 4.5}))
print(sess.run(adder_node, {a: [1, 3], b: [2, 4]}))
add_and_triple = adder_node * 3.
print(sess.run(add_and_triple, {a: 3, b: 4.5}))

# A counter, the way the old "Variables" tutorial wrote it.
state = tf.Variable(0, name="counter")
one = tf.constant(1)
new_value = tf.add(state, one)
update = tf.assign(state, new_value)
init_op = tf.global_variables_initializer()
with tf.Session() as s:
    s.run(init_op)
    print(s.run(state))
    for _ in range(3):
        s.run(update)
        print(s.run(state))

# InteractiveSession: Tensor.eval() and Operation.run() without naming the session.
isess = tf.InteractiveSession()
x = tf.Variable([1.0, 2.0])
c = tf.constant([3.0, 3.0])
x.initializer.run()
sub = tf.subtract(x, c)
print(sub.eval())
matrix1 = tf.constant([[3., 3.]])
matrix2 = tf.constant([[2.], [2.]])
product = tf.matmul(matrix1, matrix2)
print("product", product.eval().tolist())
input1 = tf.constant([3.0])
input2 = tf.constant([2.0])
input3 = tf.constant([5.0])
intermed = tf.add(input2, input3)
mul = tf.multiply(input1, intermed)
print("fetch", [v.tolist() for v in isess.run([mul, intermed])])
print("mean", tf.reduce_mean(np.array([[1., 2.], [3., 4.]], np.float32), 1).eval().tolist())
isess.close()
