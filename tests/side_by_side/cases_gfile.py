# tf.gfile (tf.io.gfile in TF 2): files and folders as TF 1.x programs use them.
INPUTS = {}

FILES = r'''
import os, tempfile
d = tempfile.mkdtemp()
def p(*parts):
    return os.path.join(d, *parts)
def rel(paths):
    return sorted(os.path.relpath(x, d) if os.path.isabs(x) else x for x in paths)
'''


def S(body):
    return "sess:" + FILES + body


CASES = [
    S("f = tf.gfile.GFile(p('a.txt'), 'w'); f.write('hello\\nworld\\n'); f.close(); "
      "out = [tf.gfile.GFile(p('a.txt')).read(), tf.gfile.GFile(p('a.txt'), 'rb').read(), tf.gfile.Exists(p('a.txt'))]"),
    S("f = tf.gfile.GFile(p('a.txt'), 'w'); f.write('l1\\nl2\\nl3'); f.close(); "
      "out = [tf.gfile.GFile(p('a.txt')).readlines(), list(tf.gfile.GFile(p('a.txt'))), tf.gfile.GFile(p('a.txt')).readline()]"),
    S("g = tf.gfile.GFile(p('a.txt'), 'w'); g.write('abcdef'); g.close(); f = tf.gfile.GFile(p('a.txt')); "
      "out = [f.read(2), f.tell(), f.seek(4) or f.read(), f.size()]"),
    S("g = tf.gfile.GFile(p('a.txt'), 'w'); g.write('x'); g.close(); g = tf.gfile.GFile(p('a.txt'), 'a'); g.write('y'); g.close(); "
      "out = tf.gfile.GFile(p('a.txt')).read()"),
    S("tf.gfile.MakeDirs(p('x', 'y', 'z')); tf.gfile.MakeDirs(p('x', 'y')); "
      "out = [tf.gfile.IsDirectory(p('x', 'y')), tf.gfile.Exists(p('x', 'y', 'z')), sorted(tf.gfile.ListDirectory(p('x')))]"),
    S("tf.gfile.MkDir(p('m'));\ntry:\n    tf.gfile.MkDir(p('m')); out = 'made twice'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("try:\n    tf.gfile.MkDir(p('no', 'parent')); out = 'made'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("try:\n    tf.gfile.GFile(p('missing.txt')).read(); out = 'read'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("try:\n    tf.gfile.ListDirectory(p('missing')); out = 'listed'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("try:\n    tf.gfile.Remove(p('missing')); out = 'removed'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("try:\n    tf.gfile.Stat(p('missing')); out = 'stat'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("[tf.gfile.GFile(p(n), 'w').close() for n in ('a.txt', 'b.txt', 'c.csv')]; "
      "out = [rel(tf.gfile.Glob(p('*.txt'))), rel(tf.gfile.Glob(p('?.csv'))), rel(tf.gfile.Glob(p('[ab].txt'))), tf.gfile.Glob(p('zz*'))]"),
    S("tf.gfile.MakeDirs(p('w', 'a')); tf.gfile.GFile(p('w', 'f1'), 'w').close(); tf.gfile.GFile(p('w', 'a', 'f2'), 'w').close(); "
      "out = [(os.path.relpath(r, d), sorted(ds), sorted(fs)) for r, ds, fs in tf.gfile.Walk(p('w'))]"),
    S("tf.gfile.MakeDirs(p('w', 'a')); tf.gfile.GFile(p('w', 'a', 'f2'), 'w').close(); "
      "out = [(os.path.relpath(r, d), sorted(ds), sorted(fs)) for r, ds, fs in tf.gfile.Walk(p('w'), in_order=False)]"),
    S("g = tf.gfile.GFile(p('a'), 'w'); g.write('1'); g.close(); tf.gfile.Copy(p('a'), p('b')); "
      "out = [tf.gfile.GFile(p('b')).read()]\ntry:\n    tf.gfile.Copy(p('a'), p('b')); out.append('copied')\nexcept tf.errors.OpError as e:\n    out.append(type(e).__name__)\n"
      "tf.gfile.Copy(p('a'), p('b'), overwrite=True); out.append('again')"),
    S("g = tf.gfile.GFile(p('a'), 'w'); g.write('1'); g.close(); g = tf.gfile.GFile(p('b'), 'w'); g.write('2'); g.close()\n"
      "try:\n    tf.gfile.Rename(p('a'), p('b')); out = ['renamed']\nexcept tf.errors.OpError as e:\n    out = [type(e).__name__]\n"
      "tf.gfile.Rename(p('a'), p('b'), overwrite=True); out += [tf.gfile.GFile(p('b')).read(), tf.gfile.Exists(p('a'))]"),
    S("tf.gfile.MakeDirs(p('t', 'u')); tf.gfile.GFile(p('t', 'u', 'f'), 'w').close(); tf.gfile.DeleteRecursively(p('t')); "
      "out = tf.gfile.Exists(p('t'))"),
    S("g = tf.gfile.GFile(p('s'), 'w'); g.write('12345'); g.close(); st = tf.gfile.Stat(p('s')); "
      "out = [st.length, st.is_directory, tf.gfile.Stat(d).is_directory]"),
    S("out = [tf.gfile.IsDirectory(p('nothing')), tf.gfile.Exists(p('nothing')), tf.gfile.IsDirectory(d)]"),
    S("g = tf.gfile.GFile(p('u.txt'), 'w'); g.write(u'caf\\u00e9'); g.close(); "
      "out = [tf.gfile.GFile(p('u.txt')).read(), tf.gfile.GFile(p('u.txt'), 'rb').read()]"),
    S("g = tf.gfile.GFile(p('b.bin'), 'wb'); g.write(b'\\x00\\xff'); g.close(); out = tf.gfile.GFile(p('b.bin'), 'rb').read()"),
    S("with tf.gfile.Open(p('o.txt'), 'w') as g:\n    g.write('z')\nout = [tf.gfile.Open(p('o.txt')).read(), tf.gfile.FastGFile(p('o.txt')).read()]"),
    S("g = tf.gfile.GFile(p('a.txt'), 'w'); g.write('abc'); g.flush(); out = tf.gfile.GFile(p('a.txt')).read(); g.close()"),
    S("tf.gfile.MakeDirs(p('e')); out = [tf.gfile.ListDirectory(p('e')), rel(tf.gfile.Glob(p('e', '*')))]"),
    S("tf.gfile.GFile(p('f'), 'w').close(); out = [tf.io.gfile.exists(p('f')), tf.io.gfile.isdir(p('f')), rel(tf.io.gfile.glob(p('*')))]"),
    S("tf.gfile.MakeDirs(p('k')); tf.gfile.GFile(p('k', 'x'), 'w').close();\n"
      "try:\n    tf.gfile.Remove(p('k')); out = 'removed a folder'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
    S("tf.gfile.GFile(p('f'), 'w').close();\ntry:\n    tf.gfile.ListDirectory(p('f')); out = 'listed a file'\nexcept tf.errors.OpError as e:\n    out = type(e).__name__\n"),
]
