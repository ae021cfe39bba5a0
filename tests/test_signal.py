"""tf.signal's audio features against NumPy written the obvious way (np.fft, loops over
frames, the cosine sums), and the STFT's gradient by float64 central differences."""

import math

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.RandomState(10)


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def test_real_ffts_windows_and_frames():
    x = RNG.randn(2, 20)
    got = _run(tf.signal.rfft(x), tf.signal.rfft(x, [16]), tf.signal.irfft(tf.signal.rfft(x)),
               tf.signal.irfft(np.fft.rfft(x, 15), [15]), tf.signal.hann_window(8), tf.signal.hamming_window(8, False),
               tf.signal.frame(x, 6, 4), tf.signal.frame(x, 6, 4, pad_end=True))
    np.testing.assert_allclose(got[0], np.fft.rfft(x), atol=1e-10)
    np.testing.assert_allclose(got[1], np.fft.rfft(x[:, :16]), atol=1e-10)
    np.testing.assert_allclose(got[2], x, atol=1e-10)
    np.testing.assert_allclose(got[3], np.fft.irfft(np.fft.rfft(x, 15), 15), atol=1e-10)
    np.testing.assert_allclose(got[4], 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8), atol=1e-7)
    np.testing.assert_allclose(got[5], 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(8) / 7), atol=1e-7)
    frames = np.stack([x[:, i:i + 6] for i in range(0, 15, 4)], 1)
    np.testing.assert_array_equal(got[6], frames)
    padded = np.pad(x, [(0, 0), (0, 26 - 20)])
    np.testing.assert_array_equal(got[7], np.stack([padded[:, i:i + 6] for i in range(0, 20, 4)], 1))


def test_stft_round_trip_mel_and_mfccs():
    signal = RNG.randn(3, 200)
    spectrogram = tf.signal.stft(signal, 64, 16, window_fn=tf.signal.hann_window)
    back = tf.signal.inverse_stft(spectrogram, 64, 16,
                                  window_fn=tf.signal.inverse_stft_window_fn(16, tf.signal.hann_window))
    mel = tf.signal.linear_to_mel_weight_matrix(10, 33, 8000, 100.0, 3800.0, dtype=tf.float64)
    log_mel = tf.log(tf.tensordot(tf.abs(spectrogram), mel, 1) + 1e-6)
    mfccs = tf.signal.mfccs_from_log_mel_spectrograms(log_mel)
    got_stft, got_back, got_mel, got_log_mel, got_mfccs = _run(spectrogram, back, mel, log_mel, mfccs)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(64) / 64)
    want = np.stack([np.fft.rfft(signal[:, i:i + 64] * window) for i in range(0, 137, 16)], 1)
    np.testing.assert_allclose(got_stft, want, atol=1e-9)
    # (away from the ends, where fewer than four frames overlap, the signal comes back)
    np.testing.assert_allclose(got_back[:, 48:144], signal[:, 48:144], atol=1e-9)

    def mel_of(f):
        return 1127.0 * np.log(1 + f / 700.0)

    edges = np.linspace(mel_of(100.0), mel_of(3800.0), 12)
    bins = mel_of(np.linspace(0, 4000, 33))
    for b in range(1, 33):
        for m in range(10):
            rising = (bins[b] - edges[m]) / (edges[m + 1] - edges[m])
            falling = (edges[m + 2] - bins[b]) / (edges[m + 2] - edges[m + 1])
            assert got_mel[b, m] == np.float64(max(0.0, min(rising, falling))) or \
                abs(got_mel[b, m] - max(0.0, min(rising, falling))) < 1e-12
    assert np.all(got_mel[0] == 0)
    n = 10
    dct = np.array([[2 * math.cos(math.pi * k * (2 * j + 1) / (2 * n)) for k in range(n)] for j in range(n)])
    np.testing.assert_allclose(got_mfccs, got_log_mel @ dct / math.sqrt(2 * n), rtol=1e-9, atol=1e-9)


def test_dct_types_and_their_inverses():
    x = RNG.randn(4, 8)
    got = _run(tf.signal.dct(x), tf.signal.dct(x, norm="ortho"), tf.signal.idct(tf.signal.dct(x, norm="ortho"),
                                                                                  norm="ortho"),
               tf.signal.idct(tf.signal.dct(x)), tf.signal.dct(x, type=1), tf.signal.dct(x, type=3))
    n = 8
    want2 = np.array([[2 * sum(r[j] * math.cos(math.pi * k * (2 * j + 1) / (2 * n)) for j in range(n))
                       for k in range(n)] for r in x])
    np.testing.assert_allclose(got[0], want2, atol=1e-10)
    scale = np.full(n, math.sqrt(1 / (2 * n)))
    scale[0] = math.sqrt(1 / (4 * n))
    np.testing.assert_allclose(got[1], want2 * scale, atol=1e-10)
    np.testing.assert_allclose(got[2], x, atol=1e-10)
    np.testing.assert_allclose(got[3], 2 * n * x, atol=1e-9)
    want1 = np.array([[r[0] + (-1) ** k * r[-1] + 2 * sum(r[j] * math.cos(math.pi * j * k / (n - 1))
                                                         for j in range(1, n - 1)) for k in range(n)] for r in x])
    np.testing.assert_allclose(got[4], want1, atol=1e-10)
    want3 = np.array([[r[0] + 2 * sum(r[j] * math.cos(math.pi * j * (2 * k + 1) / (2 * n)) for j in range(1, n))
                       for k in range(n)] for r in x])
    np.testing.assert_allclose(got[5], want3, atol=1e-10)


def test_the_stft_magnitude_gradient_against_central_differences():
    check_gradients(lambda s: tf.abs(tf.signal.stft(s, 8, 4, fft_length=8)), [RNG.randn(2, 20)])


def test_wav_files_against_the_bytes_tensorflow_writes():
    x = np.array([[0.5, -1.2], [1.0, -1.0], [0.00001, 0.3333], [-0.5, 0.99999]], np.float32)
    # (TensorFlow 2.21's tf.audio.encode_wav(x, 16000))
    tf_bytes = bytes.fromhex("524946463400000057415645666d74201000000001000200803e000000fa00000400100064617461"
                             "1000000000400080ff7f00800000aa2a00c0ff7f")
    encoded = tf.audio.encode_wav(x, 16000)
    audio, rate = tf.audio.decode_wav(tf_bytes)
    mono = tf.audio.decode_wav(tf_bytes, desired_channels=1, desired_samples=6)[0]
    wide = tf.audio.decode_wav(tf_bytes, desired_channels=3, desired_samples=2)[0]
    assert mono.shape.as_list() == [6, 1] and audio.shape.as_list() == [None, None]
    got_bytes, got_audio, got_rate, got_mono, got_wide = _run(encoded, audio, rate, mono, wide)
    assert got_bytes == tf_bytes and got_rate == 16000
    want = np.clip(np.round(x.astype(np.float64) * 32768), -32768, 32767) / 32768
    np.testing.assert_array_equal(got_audio, want.astype(np.float32))
    np.testing.assert_array_equal(got_mono, np.concatenate([want[:, :1], np.zeros((2, 1))]).astype(np.float32))
    np.testing.assert_array_equal(got_wide, want[:2, [0, 1, 1]].astype(np.float32))
    assert tf.contrib.signal.stft is tf.signal.stft


def test_a_malformed_wav_file_names_the_op_and_what_is_wrong():
    for data, words in [(b"RIFFxx", "RIFF/WAVE header"),
                        (b"RIFF\0\0\0\0WAVEfmt \x10\0\0\0" + b"\3\0\1\0" + b"\0" * 12 + b"data\0\0\0\0", "16-bit PCM"),
                        (b"RIFF\0\0\0\0WAVEdata\x08\0\0\0", "claims 8 bytes")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"DecodeWav.*{words}"):
            _run(tf.audio.decode_wav(data)[0])


def test_two_and_three_dimensional_real_ffts():
    x, y = RNG.randn(2, 4, 6), RNG.randn(3, 4, 5)
    got = _run(tf.signal.rfft2d(x), tf.signal.rfft2d(x, [3, 8]), tf.signal.irfft2d(tf.signal.rfft2d(x)),
               tf.signal.irfft2d(tf.signal.rfft2d(x), [3, 7]), tf.signal.rfft3d(y), tf.signal.rfft3d(y, [2, 5, 6]),
               tf.signal.irfft3d(tf.signal.rfft3d(y), [3, 4, 5]))
    np.testing.assert_allclose(got[0], np.fft.rfft2(x), atol=1e-10)
    np.testing.assert_allclose(got[1], np.fft.rfft2(x, [3, 8], axes=[-2, -1]), atol=1e-10)
    np.testing.assert_allclose(got[2], x, atol=1e-10)
    np.testing.assert_allclose(got[3], np.fft.irfft2(np.fft.rfft2(x), [3, 7], axes=[-2, -1]), atol=1e-10)
    np.testing.assert_allclose(got[4], np.fft.rfftn(y), atol=1e-10)
    np.testing.assert_allclose(got[5], np.fft.rfftn(y, [2, 5, 6], axes=[0, 1, 2]), atol=1e-10)
    np.testing.assert_allclose(got[6], y, atol=1e-10)
    check_gradients(lambda s: tf.abs(tf.signal.rfft2d(s, [3, 4])), [RNG.randn(2, 3, 5)])
