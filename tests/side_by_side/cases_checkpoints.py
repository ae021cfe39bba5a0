import numpy as np
INPUTS = dict(x=np.ones((2, 3), np.float32))
SAVE = ("import tempfile, os\nd = tempfile.mkdtemp()\nw = tf.Variable(np.arange(6.0, dtype=np.float32).reshape(2, 3), name='w')\n"
        "with tf.variable_scope('s'):\n    b = tf.get_variable('b', [3], initializer=tf.ones_initializer())\n"
        "step = tf.train.get_or_create_global_step()\nopt = tf.train.AdamOptimizer(0.1)\ntrain = opt.minimize(tf.reduce_sum(w * b), global_step=step)\n"
        "sess = tf.Session()\nsess.run(tf.global_variables_initializer())\nsess.run(train)\nsaver = tf.train.Saver(max_to_keep=2)\n"
        "p1 = saver.save(sess, os.path.join(d, 'model'), global_step=step)\nsess.run(train)\np2 = saver.save(sess, os.path.join(d, 'model'), global_step=step)\n")
CASES = [
 "py:\n" + SAVE + "out = sorted((n, tuple(s)) for n, s in tf.train.list_variables(d))",
 "py:\n" + SAVE + "out = [os.path.basename(p1), os.path.basename(p2), os.path.basename(tf.train.latest_checkpoint(d)), [os.path.basename(p) for p in saver.last_checkpoints]]",
 "py:\n" + SAVE + "out = [np.round(tf.train.load_variable(d, 's/b'), 5).tolist(), tf.train.load_variable(d, 'global_step').tolist(), round(float(tf.train.load_variable(d, 'beta1_power')), 6)]",
 "py:\n" + SAVE + "r = tf.train.NewCheckpointReader(p1)\nout = [sorted(r.get_variable_to_shape_map().items()), sorted((k, v.name) for k, v in r.get_variable_to_dtype_map().items()), r.has_tensor('w'), r.get_tensor('s/b/Adam').tolist()]",
 "py:\n" + SAVE + "st = tf.train.get_checkpoint_state(d)\nout = [os.path.basename(st.model_checkpoint_path), [os.path.basename(p) for p in st.all_model_checkpoint_paths]]",
 "py:\n" + SAVE + "out = sorted(os.listdir(d))",
 "py:\nw = tf.Variable(1.0, name='w')\nsaver = tf.train.Saver({'renamed': w})\nout = [saver.saver_def.version, saver.saver_def.max_to_keep, saver.saver_def.keep_checkpoint_every_n_hours, saver.saver_def.sharded]",
 "py:\nw = tf.Variable(1.0, name='w')\nout = sorted(tf.train.Saver()._var_list.keys()) if hasattr(tf.train.Saver(), '_var_list') and isinstance(tf.train.Saver()._var_list, dict) else 'n/a'",
]
