import numpy as np, os, tempfile
_d = os.path.join(tempfile.gettempdir(), 'distflow_side_by_side_csv')
os.makedirs(_d, exist_ok=True)
open(os.path.join(_d, 'a.csv'), 'w').write('age,name,score,flag\n31,ann,1.5,1\n42,"bo, b",,0\n7,cy,2.25,1\n')
open(os.path.join(_d, 'b.csv'), 'w').write('age,name,score,flag\n99,dee,3,0\n')
INPUTS = dict(dummy=np.zeros(1, np.float32))
A, B = os.path.join(_d, 'a.csv'), os.path.join(_d, 'b.csv')
E = "tf.data.experimental"
def seq(ds, n):
    return f"exec:ds = {ds}\ni = tf.data.make_one_shot_iterator(ds)\nout = i.get_next()\nruns = {n}"
CASES = [seq(f"{E}.CsvDataset({A!r}, [0, '', 0.0, 0], header=True).batch(5)", 1),
         seq(f"{E}.CsvDataset([{A!r}, {B!r}], [tf.int64, tf.string, [9.0], tf.int32], header=True, select_cols=None).batch(5)", 1) if False else seq(f"{E}.CsvDataset([{A!r}, {B!r}], [0, '', [9.0], 0], header=True).batch(5)", 1),
         seq(f"{E}.CsvDataset({A!r}, [0, 0.0], header=True, select_cols=[0, 2]).batch(5)", 1),
         seq(f"{E}.make_csv_dataset({A!r}, 2, shuffle=False, num_epochs=1)", 2),
         seq(f"{E}.make_csv_dataset([{A!r}, {B!r}], 4, label_name='flag', shuffle=False, num_epochs=1)", 1),
         seq(f"{E}.make_csv_dataset({A!r}, 3, select_columns=['score', 'age'], shuffle=False, num_epochs=1, column_defaults=[0, 0.5])", 1)]
