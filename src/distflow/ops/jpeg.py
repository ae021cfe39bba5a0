"""JPEG in NumPy (ITU T.81): the decoder of ``tf.image.decode_jpeg`` and its kin, and the
baseline encoder of ``tf.image.encode_jpeg``.

It reads the JPEG files that cameras, image tools and data-set converters write: 8-bit
baseline and extended sequential Huffman frames (SOF0, SOF1) and progressive ones (SOF2), one
component (grayscale) or three (YCbCr, or RGB where an Adobe marker says so), any sampling
factors, restart intervals. Lossless, arithmetic-coded, hierarchical and 12-bit frames are
refused (an UnimplementedError naming the frame), as are four components (CMYK).

The entropy-coded data is read with a table per Huffman table, indexed by the next 16 bits
(one lookup a code); the rest is array work: dequantization, the 8x8 inverse DCT of all blocks
as two matrix products (floating point, rounded: libjpeg's default is a fixed-point
integer IDCT, so a pixel may differ from TensorFlow's by a level or two), libjpeg's "fancy"
triangle upsampling of 2x1 and 2x2 subsampled chroma (or pixel replication), and libjpeg's
fixed-point YCbCr to RGB conversion.

The encoder writes baseline files as libjpeg does by default: its RGB to YCbCr and 2x2 chroma
averaging in fixed point, Annex K's quantization tables scaled by quality as libjpeg scales
them, a floating-point DCT, Annex K's Huffman tables, a JFIF header.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from ..framework import errors

# The zigzag order: the k-th coefficient of a block's code is at natural position _ZIGZAG[k].
_ZIGZAG = np.array([
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
    21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53,
    60, 61, 54, 47, 55, 62, 63])
_ZZ = _ZIGZAG.tolist()


def _idct_matrix() -> np.ndarray:
    """C with ``pixels = C.T @ coefficients @ C`` for an 8x8 block (T.81's inverse DCT)."""
    c = np.array([[(math.sqrt(0.5) if u == 0 else 1.0) * math.cos((2 * x + 1) * u * math.pi / 16) / 2
                   for x in range(8)] for u in range(8)])
    return c


_C = _idct_matrix()


def _error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"DecodeJpeg: {message}")


_TABLES: dict = {}  # (the lookups of the Huffman tables seen last: a data set's images share theirs)
_MAX_SAMPLES = 1 << 28  # (a frame of more is refused: its coefficients alone would take over 1 GiB)


def _huffman_lookup(counts: bytes, symbols: bytes) -> list:
    """A Huffman table as a lookup of the next 16 bits: ``(length << 8) | symbol`` (0: no code)."""
    key = counts + symbols
    found = _TABLES.get(key)
    if found is not None:
        return found
    lookup = np.zeros(1 << 16, np.int32)
    code, at = 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            if at >= len(symbols):
                raise _error("a Huffman table has fewer symbols than its code lengths count")
            if code >= 1 << length:
                raise _error("a Huffman table has more codes of some length than fit")
            shift = 16 - length
            lookup[code << shift:(code + 1) << shift] = (length << 8) | symbols[at]
            code += 1
            at += 1
        code <<= 1
    if len(_TABLES) >= 64:
        _TABLES.clear()
    _TABLES[key] = table = lookup.tolist()
    return table


_PAD = 64 * 4 + 4


class _Bits:
    """The bits of one restart interval (byte stuffing removed, zeros after its end)."""

    __slots__ = ("wide", "pos", "end")

    def __init__(self, data: bytes):
        # (zeros after the end: a block of a cut-short interval reads them, at most 64 codes of 32 bits)
        raw = np.frombuffer(data + bytes(_PAD), np.uint8).astype(np.int64)
        # (40 bits from each byte: a code and its extra bits, at most 32, from one look at any bit)
        self.wide = ((raw[:-4] << 32) | (raw[1:-3] << 24) | (raw[2:-2] << 16) | (raw[3:-1] << 8) | raw[4:]).tolist()
        self.pos = 0
        self.end = 8 * len(data)

    def decode(self, table: list) -> int:
        pos = self.pos
        entry = table[(self.wide[pos >> 3] >> (24 - (pos & 7))) & 0xFFFF]
        if not entry:
            raise _error("a code that is in no Huffman table (the data is corrupt)")
        self.pos = pos + (entry >> 8)
        return entry & 0xFF

    def receive(self, count: int) -> int:
        pos = self.pos
        self.pos = pos + count
        return ((self.wide[pos >> 3] >> (24 - (pos & 7))) & 0xFFFF) >> (16 - count)

    def extend(self, count: int) -> int:
        """The next ``count`` bits as T.81's signed magnitude (EXTEND(RECEIVE(count)))."""
        if count == 0:
            return 0
        if count > 16:
            raise _error(f"a coefficient of {count} bits (at most 16: the data is corrupt)")
        value = self.receive(count)
        return value if value >= 1 << (count - 1) else value - (1 << count) + 1


class _Component:
    __slots__ = ("ident", "h", "v", "table", "width", "height", "blocks_wide", "blocks_high", "coefficients",
                 "dc_table", "ac_table", "pred")

    def __init__(self, ident, h, v, table):
        self.ident, self.h, self.v, self.table = ident, h, v, table


def _segments(data: bytes):
    """(marker, payload, offset after it) for each marker segment up to the first SOS
    (whose payload ends where its entropy-coded data begins), and so on after each scan."""
    pos = 2
    while pos < len(data):
        if data[pos] != 0xFF:
            raise _error(f"expected a marker at byte {pos}, found 0x{data[pos]:02x}")
        marker = data[pos + 1]
        pos += 2
        if marker == 0xFF:
            pos -= 1  # (fill bytes)
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            continue
        if marker == 0xD9:
            yield marker, b"", pos
            return
        if pos + 2 > len(data):
            raise _error("the data ends inside a marker segment")
        length = struct.unpack(">H", data[pos:pos + 2])[0]
        payload = data[pos + 2:pos + length]
        pos += length
        if marker == 0xDA:
            end = _scan_end(data, pos)
            yield marker, (payload, data[pos:end]), end
            pos = end
        else:
            yield marker, payload, pos


def _scan_end(data: bytes, pos: int) -> int:
    """Where a scan's entropy-coded data ends: the first marker that is not a restart marker
    nor stuffing (or the end of the data, for a truncated file)."""
    while True:
        pos = data.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(data):
            return len(data)
        following = data[pos + 1]
        if following == 0 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            pos += 1 if following == 0xFF else 2
            continue
        return pos


def _intervals(entropy: bytes):
    """The restart intervals of a scan's data, byte stuffing removed."""
    parts, start, pos = [], 0, 0
    while True:
        pos = entropy.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(entropy):
            break
        if 0xD0 <= entropy[pos + 1] <= 0xD7:
            parts.append(entropy[start:pos])
            start = pos = pos + 2
        else:
            pos += 2
    parts.append(entropy[start:])
    return [p.replace(b"\xff\x00", b"\xff") for p in parts]


class _Decoder:
    def __init__(self, data: bytes):
        if data[:2] != b"\xff\xd8":
            raise _error("the contents are not a JPEG image (no SOI marker)")
        self.data = data
        self.quant = {}
        self.dc_tables, self.ac_tables = {}, {}
        self.restart = 0
        self.components: list[_Component] = []
        self.adobe_transform = None
        self.jfif = False
        self.progressive = False
        self.width = self.height = 0
        self.eobrun = 0
        self.truncated = True  # (until the EOI marker is read)

    def run(self, frame_only=False):
        frame_seen = False
        for marker, payload, _ in _segments(self.data):
            if marker == 0xDB:
                self._quant(payload)
            elif marker == 0xC4:
                self._huffman(payload)
            elif marker == 0xDD:
                self.restart = struct.unpack(">H", payload[:2])[0]
            elif marker in (0xC0, 0xC1, 0xC2):
                self._frame(payload, progressive=marker == 0xC2)
                frame_seen = True
                if frame_only:
                    return
            elif 0xC3 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                kinds = {0xC3: "lossless", 0xC5: "differential sequential", 0xC6: "differential progressive",
                         0xC7: "differential lossless", 0xC9: "arithmetic-coded sequential",
                         0xCA: "arithmetic-coded progressive", 0xCB: "arithmetic-coded lossless",
                         0xCD: "differential arithmetic-coded sequential",
                         0xCE: "differential arithmetic-coded progressive",
                         0xCF: "differential arithmetic-coded lossless"}
                raise errors.UnimplementedError(None, None, f"DecodeJpeg: {kinds[marker]} JPEG frames (SOF "
                                                f"0x{marker:02x}) are not supported: baseline, extended and "
                                                "progressive Huffman frames are")
            elif marker == 0xDA:
                if not frame_seen:
                    raise _error("a scan before the frame header")
                self._scan(*payload)
            elif marker == 0xEE and payload[:5] == b"Adobe" and len(payload) >= 12:
                self.adobe_transform = payload[11]
            elif marker == 0xE0 and payload[:5] == b"JFIF\x00":
                self.jfif = True
            elif marker == 0xD9:
                self.truncated = False
                break
        if not frame_seen:
            raise _error("no frame header (SOF) in the image")

    def _quant(self, payload):
        pos = 0
        while pos < len(payload):
            precision, ident = payload[pos] >> 4, payload[pos] & 15
            size = 128 if precision else 64
            values = np.frombuffer(payload[pos + 1:pos + 1 + size], ">u2" if precision else np.uint8)
            if len(values) != 64:
                raise _error("a quantization table is cut short")
            table = np.zeros(64, np.float64)
            table[_ZIGZAG] = values
            self.quant[ident] = table
            pos += 1 + size

    def _huffman(self, payload):
        pos = 0
        while pos < len(payload):
            kind, ident = payload[pos] >> 4, payload[pos] & 15
            counts = payload[pos + 1:pos + 17]
            if len(counts) < 16:
                raise _error("a Huffman table is cut short")
            total = sum(counts)
            symbols = payload[pos + 17:pos + 17 + total]
            (self.ac_tables if kind else self.dc_tables)[ident] = _huffman_lookup(counts, symbols)
            pos += 17 + total

    def _frame(self, payload, progressive):
        precision, self.height, self.width, count = struct.unpack(">BHHB", payload[:6])
        if precision != 8:
            raise errors.UnimplementedError(None, None, f"DecodeJpeg: {precision}-bit JPEG images are not supported "
                                            "(8-bit are)")
        if count not in (1, 3):
            raise errors.UnimplementedError(None, None, f"DecodeJpeg: JPEG images of {count} components are not "
                                            "supported (grayscale and three-component colour are)")
        if self.width == 0 or self.height == 0:
            raise _error(f"an image of {self.width}x{self.height} pixels")
        if self.width * self.height * count > _MAX_SAMPLES:
            raise _error(f"an image of {self.width}x{self.height} pixels and {count} components is larger than "
                         f"distflow decodes ({_MAX_SAMPLES} samples)")
        self.progressive = progressive
        for i in range(count):
            ident, sampling, table = payload[6 + 3 * i:9 + 3 * i]
            h, v = sampling >> 4, sampling & 15
            if not (1 <= h <= 4 and 1 <= v <= 4):
                raise _error(f"component {ident} has sampling factors {h}x{v}")
            self.components.append(_Component(ident, h, v, table))
        self.hmax = max(c.h for c in self.components)
        self.vmax = max(c.v for c in self.components)
        self.mcus_wide = -(-self.width // (8 * self.hmax))
        self.mcus_high = -(-self.height // (8 * self.vmax))
        for c in self.components:
            c.width = -(-self.width * c.h // self.hmax)
            c.height = -(-self.height * c.v // self.vmax)
            c.blocks_wide, c.blocks_high = -(-c.width // 8), -(-c.height // 8)
            c.coefficients = np.zeros((self.mcus_high * c.v, self.mcus_wide * c.h, 64), np.int32)

    def _scan(self, header, entropy):
        count = header[0]
        by_id = {c.ident: c for c in self.components}
        scan = []
        for i in range(count):
            ident, tables = header[1 + 2 * i], header[2 + 2 * i]
            if ident not in by_id:
                raise _error(f"a scan names component {ident}, which the frame does not have")
            c = by_id[ident]
            c.dc_table = self.dc_tables.get(tables >> 4)
            c.ac_table = self.ac_tables.get(tables & 15)
            scan.append(c)
        ss, se, approx = header[1 + 2 * count:4 + 2 * count]
        ah, al = approx >> 4, approx & 15
        if not self.progressive:
            ss, se, ah, al = 0, 63, 0, 0
        for c in scan:
            if (ss == 0 and ah == 0 and c.dc_table is None) or (se > 0 and c.ac_table is None):
                raise _error(f"a scan uses a Huffman table the image does not define (component {c.ident})")
        units = self._units(scan)
        intervals = _intervals(entropy)
        per_interval = self.restart or len(units)
        if not self.progressive:
            self._sequential_scan(scan, units, intervals, per_interval)
            return
        for n, start in enumerate(range(0, len(units), per_interval)):
            if n >= len(intervals):
                self.truncated = True  # (what was not read stays zero)
                break
            bits = _Bits(intervals[n])
            for c in scan:
                c.pred = 0
            self.eobrun = 0
            for unit in units[start:start + per_interval]:
                for c, row, col in unit:
                    block = c.coefficients[row, col]
                    if ss == 0:
                        if ah == 0:
                            c.pred += bits.extend(bits.decode(c.dc_table))
                            block[0] = c.pred << al
                        elif bits.receive(1):
                            block[0] |= 1 << al
                    elif ah == 0:
                        self._ac_first(bits, c.ac_table, block, ss, se, al)
                    else:
                        self._ac_refine(bits, c.ac_table, block, ss, se, al)
                if bits.pos > bits.end + 64:
                    self.truncated = True  # (the interval's data ran out: the rest of it stays zero)
                    break

    def _units(self, scan):
        """The scan's units in order: each a list of (component, block row, block column). An
        interleaved scan goes MCU by MCU; a scan of one component block by block over the
        component's own blocks."""
        if len(scan) == 1:
            c = scan[0]
            return [[(c, r, q)] for r in range(c.blocks_high) for q in range(c.blocks_wide)]
        units = []
        for my in range(self.mcus_high):
            for mx in range(self.mcus_wide):
                units.append([(c, my * c.v + y, mx * c.h + x) for c in scan for y in range(c.v) for x in range(c.h)])
        return units

    def _sequential_scan(self, scan, units, intervals, per_interval):
        """A sequential scan (the hot loop: each code and its extra bits read from one 40-bit
        word, no call a coefficient; each block's 64 values kept in a list, and put in place
        with one assignment a component at the end)."""
        zz = _ZZ
        placed = {c.ident: ([], [], []) for c in scan}  # (rows, columns, values of each block)
        for n, start in enumerate(range(0, len(units), per_interval)):
            if n >= len(intervals):
                self.truncated = True  # (what was not read stays zero)
                break
            bits = _Bits(intervals[n])
            wide, pos, end = bits.wide, 0, bits.end + 64
            for c in scan:
                c.pred = 0
            for unit in units[start:start + per_interval]:
                for c, row, col in unit:
                    w = wide[pos >> 3]
                    off = pos & 7
                    entry = c.dc_table[(w >> (24 - off)) & 0xFFFF]
                    if not entry:
                        raise _error("a code that is in no Huffman table (the data is corrupt)")
                    length, size = entry >> 8, entry & 0xFF
                    if size:
                        if size > 16:
                            raise _error(f"a coefficient of {size} bits (at most 16: the data is corrupt)")
                        value = (w >> (40 - off - length - size)) & ((1 << size) - 1)
                        c.pred += value if value >= 1 << (size - 1) else value - (1 << size) + 1
                    pos += length + size
                    values = [0] * 64
                    values[0] = c.pred
                    table = c.ac_table
                    k = 1
                    while k < 64:
                        w = wide[pos >> 3]
                        off = pos & 7
                        entry = table[(w >> (24 - off)) & 0xFFFF]
                        if not entry:
                            raise _error("a code that is in no Huffman table (the data is corrupt)")
                        length = entry >> 8
                        run, size = (entry >> 4) & 15, entry & 15
                        if size:
                            k += run
                            if k > 63:
                                raise _error("a block's coefficients run past its 64")
                            value = (w >> (40 - off - length - size)) & ((1 << size) - 1)
                            values[zz[k]] = value if value >= 1 << (size - 1) else value - (1 << size) + 1
                            pos += length + size
                            k += 1
                        else:
                            pos += length
                            if run != 15:
                                break
                            k += 16
                    rows, cols, blocks = placed[c.ident]
                    rows.append(row)
                    cols.append(col)
                    blocks.append(values)
                if pos > end:
                    self.truncated = True  # (the interval's data ran out: the rest of it stays zero)
                    break
        for c in scan:
            rows, cols, blocks = placed[c.ident]
            if blocks:
                c.coefficients[rows, cols] = np.array(blocks, np.int32)

    def _ac_first(self, bits, table, block, ss, se, al):
        if self.eobrun > 0:
            self.eobrun -= 1
            return
        k = ss
        while k <= se:
            rs = bits.decode(table)
            r, s = rs >> 4, rs & 15
            if s:
                k += r
                if k > 63:
                    raise _error("a block's coefficients run past its 64")
                block[_ZZ[k]] = bits.extend(s) << al
                k += 1
            elif r < 15:
                self.eobrun = (1 << r) - 1 + (bits.receive(r) if r else 0)
                return
            else:
                k += 16

    def _ac_refine(self, bits, table, block, ss, se, al):
        p1, m1 = 1 << al, -1 << al
        k = ss

        def correct(z):
            if bits.receive(1) and (block[z] & p1) == 0:
                block[z] += p1 if block[z] >= 0 else m1

        if self.eobrun == 0:
            while k <= se:
                rs = bits.decode(table)
                r, s = rs >> 4, rs & 15
                if s:
                    s = p1 if bits.receive(1) else m1
                elif r != 15:
                    self.eobrun = (1 << r) + (bits.receive(r) if r else 0)
                    break
                while k <= se:
                    z = _ZZ[k]
                    if block[z] != 0:
                        correct(z)
                    else:
                        r -= 1
                        if r < 0:
                            break
                    k += 1
                if s and k <= se:
                    block[_ZZ[k]] = s
                k += 1
        if self.eobrun > 0:
            while k <= se:
                z = _ZZ[k]
                if block[z] != 0:
                    correct(z)
                k += 1
            self.eobrun -= 1

    def planes(self):
        """Each component's samples (uint8, its own size), dequantized and transformed."""
        out = []
        for c in self.components:
            if c.table not in self.quant:
                raise _error(f"component {c.ident} uses quantization table {c.table}, which the image does not define")
            coefficients = c.coefficients[:c.blocks_high, :c.blocks_wide]
            blocks = (coefficients * self.quant[c.table]).reshape(-1, 8, 8)
            pixels = np.matmul(np.matmul(_C.T, blocks), _C) + 128.0
            pixels = np.clip(np.rint(pixels), 0, 255).astype(np.uint8)
            plane = pixels.reshape(c.blocks_high, c.blocks_wide, 8, 8).transpose(0, 2, 1, 3)
            out.append(plane.reshape(c.blocks_high * 8, c.blocks_wide * 8)[:c.height, :c.width])
        return out


def _fancy_h2(plane: np.ndarray) -> np.ndarray:
    """libjpeg's h2v1 upsampling: each output pixel 3/4 its own sample and 1/4 its nearer
    neighbour's (the edge samples stand for the missing ones)."""
    x = plane.astype(np.int32)
    left = np.concatenate([x[:, :1], x[:, :-1]], 1)
    right = np.concatenate([x[:, 1:], x[:, -1:]], 1)
    out = np.empty((x.shape[0], 2 * x.shape[1]), np.int32)
    out[:, 0::2] = (3 * x + left + 1) >> 2
    out[:, 1::2] = (3 * x + right + 2) >> 2
    return out.astype(np.uint8)


def _fancy_h2v2(plane: np.ndarray) -> np.ndarray:
    """libjpeg's h2v2 upsampling: the triangle filter, 9/16 the nearest sample, 3/16 each of
    the next nearest, 1/16 the diagonal."""
    x = plane.astype(np.int32)
    above = np.concatenate([x[:1], x[:-1]], 0)
    below = np.concatenate([x[1:], x[-1:]], 0)
    rows = np.empty((2 * x.shape[0], x.shape[1]), np.int32)
    rows[0::2] = 3 * x + above
    rows[1::2] = 3 * x + below
    left = np.concatenate([rows[:, :1], rows[:, :-1]], 1)
    right = np.concatenate([rows[:, 1:], rows[:, -1:]], 1)
    out = np.empty((rows.shape[0], 2 * rows.shape[1]), np.int32)
    out[:, 0::2] = (3 * rows + left + 8) >> 4
    out[:, 1::2] = (3 * rows + right + 7) >> 4
    if x.shape[1] == 1:
        out[:, 0::2] = (4 * rows + 8) >> 4
        out[:, 1::2] = (4 * rows + 7) >> 4
    return out.astype(np.uint8)


def _upsample(plane, fy: int, fx: int, fancy: bool) -> np.ndarray:
    if fy == fx == 1:
        return plane
    if fancy and fx == 2 and fy == 1 and plane.shape[1] > 1:
        return _fancy_h2(plane)
    if fancy and fx == 2 and fy == 2:
        return _fancy_h2v2(plane)
    return np.repeat(np.repeat(plane, fy, 0), fx, 1)


_SCALE = 16
_HALF = 1 << (_SCALE - 1)


def _fix(x: float) -> int:
    return int(x * (1 << _SCALE) + 0.5)


def _ycc_to_rgb(y, cb, cr) -> np.ndarray:
    """libjpeg's YCbCr to RGB, in its fixed point."""
    y, cb, cr = y.astype(np.int64), cb.astype(np.int64) - 128, cr.astype(np.int64) - 128
    r = y + ((_fix(1.40200) * cr + _HALF) >> _SCALE)
    g = y + ((-_fix(0.34414) * cb - _fix(0.71414) * cr + _HALF) >> _SCALE)
    b = y + ((_fix(1.77200) * cb + _HALF) >> _SCALE)
    return np.clip(np.stack([r, g, b], -1), 0, 255).astype(np.uint8)


def _run(data: bytes, frame_only: bool) -> _Decoder:
    decoder = _Decoder(data)
    try:
        decoder.run(frame_only)
    except (IndexError, ValueError, struct.error):  # (lengths, counts or indices pointing past the data)
        raise _error("the data is corrupt or cut short") from None
    return decoder


def jpeg_shape(data: bytes) -> tuple:
    """(height, width, components) from the frame header, without decoding."""
    decoder = _run(data, frame_only=True)
    return decoder.height, decoder.width, len(decoder.components)


def decode(data: bytes, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
           try_recover_truncated: bool = False) -> np.ndarray:
    """The image as uint8 [height, width, channels] (``channels`` 0: the image's own, 1 or 3).
    ``ratio`` (1, 2, 4 or 8) scales the image down by that factor (the mean of each
    ratio x ratio square, rounded up at the edges, where libjpeg scales its IDCT). A truncated
    image is an error, or with ``try_recover_truncated`` decoded with what is missing gray."""
    decoder = _run(data, frame_only=False)
    if decoder.truncated and not try_recover_truncated:
        raise _error("the JPEG data is truncated (no end-of-image marker, or a scan ends early); "
                     "try_recover_truncated=True decodes what there is")
    planes = decoder.planes()
    want = channels or len(planes)
    if want not in (1, 3):
        raise _error(f"channels must be 0, 1 or 3, got {channels}")
    if len(planes) == 1 or want == 1:  # (grayscale out of a colour image is its luma, as libjpeg gives it)
        pixels = planes[0][:decoder.height, :decoder.width][..., None]
        if len(planes) == 3 and decoder.adobe_transform == 0 and not decoder.jfif:  # (RGB stored as is)
            pixels = _luma(np.stack([p for p in planes], -1))[..., None]
        if want == 3:
            pixels = np.repeat(pixels, 3, -1)
    else:
        full = [_upsample(p, decoder.vmax // c.v, decoder.hmax // c.h, fancy_upscaling)[:decoder.height,
                                                                                         :decoder.width]
                for p, c in zip(planes, decoder.components)]
        rgb_stored = decoder.adobe_transform == 0 or (
            not decoder.jfif and decoder.adobe_transform is None
            and [c.ident for c in decoder.components] == [ord("R"), ord("G"), ord("B")])
        pixels = np.stack(full, -1) if rgb_stored else _ycc_to_rgb(*full)
    if ratio != 1:
        pixels = _scale_down(pixels, ratio)
    return np.ascontiguousarray(pixels)


def _luma(rgb):
    rgb = rgb.astype(np.int64)
    return ((_fix(0.299) * rgb[..., 0] + _fix(0.587) * rgb[..., 1] + _fix(0.114) * rgb[..., 2] + _HALF)
            >> _SCALE).astype(np.uint8)


def _scale_down(pixels, ratio):
    if ratio not in (1, 2, 4, 8):
        raise _error(f"ratio must be 1, 2, 4 or 8, got {ratio}")
    h, w, c = pixels.shape
    out_h, out_w = -(-h // ratio), -(-w // ratio)
    padded = np.pad(pixels.astype(np.float64), ((0, out_h * ratio - h), (0, out_w * ratio - w), (0, 0)), mode="edge")
    means = padded.reshape(out_h, ratio, out_w, ratio, c).mean(axis=(1, 3))
    return np.rint(means).astype(np.uint8)


# -- encoding -----------------------------------------------------------------------------------

# T.81 Annex K's example tables: the quantization tables (natural order) libjpeg scales by
# quality, and the Huffman tables every baseline encoder without optimization writes.
_LUMA_QUANT = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99])
_CHROMA_QUANT = np.array([
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32)
_DC_LUMA = (bytes([0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]), bytes(range(12)))
_DC_CHROMA = (bytes([0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]), bytes(range(12)))
_AC_LUMA = (bytes([0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d]), bytes([
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
    0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
    0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37,
    0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
    0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
    0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
    0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
    0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa]))
_AC_CHROMA = (bytes([0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77]), bytes([
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22,
    0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
    0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36,
    0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
    0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
    0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
    0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
    0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
    0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa]))


def _codes(table) -> dict:
    """symbol -> (code, length) of a Huffman table given as (counts, symbols)."""
    counts, symbols = table
    out, code, at = {}, 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            out[symbols[at]] = (code, length)
            code += 1
            at += 1
        code <<= 1
    return out


def _scaled_quant(base: np.ndarray, quality: int) -> np.ndarray:
    """libjpeg's quality scaling of a base table (jpeg_quality_scaling, baseline: 1..255)."""
    quality = min(max(int(quality), 1), 100)
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return np.clip((base * scale + 50) // 100, 1, 255)


def _blocks(plane: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """A plane padded (edge samples repeated) to rows x cols blocks, as [rows, cols, 64]."""
    h, w = plane.shape
    padded = np.pad(plane, ((0, rows * 8 - h), (0, cols * 8 - w)), mode="edge")
    return padded.reshape(rows, 8, cols, 8).transpose(0, 2, 1, 3).reshape(rows, cols, 64)


def _pack(codes: list, lengths: list) -> bytes:
    """The bits of (code, length) pairs, MSB first, padded with ones, 0xFF bytes stuffed."""
    codes, lengths = np.asarray(codes, np.int64), np.asarray(lengths, np.int64)
    lengths_nz = lengths[lengths > 0]
    codes = codes[lengths > 0]
    total = int(lengths_nz.sum())
    starts = np.repeat(np.cumsum(lengths_nz) - lengths_nz, lengths_nz)
    index = np.arange(total) - starts  # (each bit's place in its code, from the top)
    shift = np.repeat(lengths_nz, lengths_nz) - 1 - index
    bits = (np.repeat(codes, lengths_nz) >> shift) & 1
    bits = np.concatenate([bits, np.ones(-total % 8, np.int64)]).astype(np.uint8)
    return np.packbits(bits).tobytes().replace(b"\xff", b"\xff\x00")


def _magnitude(values: np.ndarray):
    """(size category, its extra bits) of each coefficient: T.81's SSSS and the value's bits
    (a negative value as its one's complement)."""
    size = np.zeros(values.shape, np.int64)
    a = np.abs(values)
    nz = a > 0
    size[nz] = np.floor(np.log2(a[nz])).astype(np.int64) + 1
    extra = np.where(values < 0, values + (1 << size) - 1, values)
    return size, extra


def encode(pixels: np.ndarray, quality: int = 95, chroma_downsampling: bool = True, density_unit: str = "in",
           x_density: int = 300, y_density: int = 300, xmp_metadata: bytes = b"") -> bytes:
    """A baseline JPEG of uint8 [height, width, 1 or 3] pixels: libjpeg's quality-scaled Annex K
    tables, its fixed-point RGB to YCbCr, 2x2 chroma subsampling unless asked not to, a JFIF
    header, Annex K's Huffman tables."""
    pixels = np.asarray(pixels)
    if pixels.ndim != 3 or pixels.shape[2] not in (1, 3) or pixels.dtype != np.uint8:
        raise _encode_error(f"the image must be uint8 [height, width, 1 or 3], got {pixels.dtype} "
                            f"{list(pixels.shape)}")
    h, w, channels = pixels.shape
    if not (0 < h < 65536 and 0 < w < 65536):
        raise _encode_error(f"an image of {h}x{w} pixels (JPEG takes 1 to 65535 each way)")
    if channels == 3:
        rgb = pixels.astype(np.int64)
        r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
        y = (_fix(0.29900) * r + _fix(0.58700) * g + _fix(0.11400) * b + _HALF) >> _SCALE
        cb = (-_fix(0.16874) * r - _fix(0.33126) * g + _fix(0.5) * b + (128 << _SCALE) + _HALF - 1) >> _SCALE
        cr = (_fix(0.5) * r - _fix(0.41869) * g - _fix(0.08131) * b + (128 << _SCALE) + _HALF - 1) >> _SCALE
        planes = [y, cb, cr]
        sampling = 2 if chroma_downsampling else 1
    else:
        planes, sampling = [pixels[..., 0].astype(np.int64)], 1
    mcu = 8 * sampling
    mcus_high, mcus_wide = -(-h // mcu), -(-w // mcu)
    quant = [_scaled_quant(_LUMA_QUANT, quality), _scaled_quant(_CHROMA_QUANT, quality)]
    components = []  # (id, sampling, table index, blocks [rows, cols, 64] in zigzag, quantized)
    for i, plane in enumerate(planes):
        factor = sampling if i == 0 else 1
        if i > 0 and sampling == 2:  # (libjpeg's h2v2 downsampling: the mean of 2x2, biases 1 and 2 in turn)
            even = np.pad(plane, ((0, (-h) % 2), (0, (-w) % 2)), mode="edge")
            sums = even[0::2, 0::2] + even[0::2, 1::2] + even[1::2, 0::2] + even[1::2, 1::2]
            bias = np.tile([1, 2], sums.shape[1] // 2 + 1)[:sums.shape[1]]
            plane = (sums + bias) >> 2
        blocks = _blocks(plane.astype(np.float64) - 128.0, mcus_high * factor, mcus_wide * factor)
        table = quant[min(i, 1)]
        coefficients = np.matmul(np.matmul(_C, blocks.reshape(-1, 8, 8)), _C.T).reshape(blocks.shape)
        quantized = np.rint(coefficients / table).astype(np.int64)[..., _ZIGZAG]
        components.append((i + 1, factor, min(i, 1), quantized))
    codes, lengths = _entropy_coded(components, mcus_high, mcus_wide)
    units = {"in": 1, "cm": 2}.get(density_unit)
    if units is None:
        raise ValueError(f"density_unit must be 'in' or 'cm', got {density_unit!r}")
    out = [b"\xff\xd8", _marker(0xE0, b"JFIF\x00\x01\x01" + struct.pack(">BHHBB", units, x_density, y_density, 0, 0))]
    if xmp_metadata:
        out.append(_marker(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + bytes(xmp_metadata)))
    for t, table in enumerate(quant[:1 if channels == 1 else 2]):
        out.append(_marker(0xDB, bytes([t]) + bytes(table[_ZIGZAG].astype(np.uint8))))
    frame = struct.pack(">BHHB", 8, h, w, len(components))
    for ident, factor, t, _ in components:
        frame += bytes([ident, factor << 4 | factor, t])
    out.append(_marker(0xC0, frame))
    for kind, tables in ((0, (_DC_LUMA, _DC_CHROMA)), (1, (_AC_LUMA, _AC_CHROMA))):
        for t, (counts, symbols) in enumerate(tables[:1 if channels == 1 else 2]):
            out.append(_marker(0xC4, bytes([kind << 4 | t]) + counts + symbols))
    scan = bytes([len(components)]) + b"".join(bytes([ident, t << 4 | t]) for ident, _, t, _ in components)
    out.append(_marker(0xDA, scan + b"\x00\x3f\x00"))
    out.append(_pack(codes, lengths))
    out.append(b"\xff\xd9")
    return b"".join(out)


def _encode_error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"EncodeJpeg: {message}")


def _marker(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def _code_arrays(table):
    """(codes, lengths) of a Huffman table as arrays indexed by symbol (length 0: no code)."""
    codes, lengths = np.zeros(256, np.int64), np.zeros(256, np.int64)
    for symbol, (code, length) in _codes(table).items():
        codes[symbol], lengths[symbol] = code, length
    return codes, lengths


def _entropy_coded(components, mcus_high, mcus_wide):
    """The (code, length) pairs of the scan, in order: each block's DC difference and its AC
    run-length symbols (a ZRL for each 16 zeros before a value, an EOB unless the last
    coefficient is not zero), the blocks MCU by MCU. Array work: every pair gets a sort key
    (its block, its place in the block), and one sort puts them in order."""
    blocks, tables, owners = [], [], []
    for ci, (_, factor, t, quantized) in enumerate(components):
        rows = quantized.reshape(mcus_high, factor, mcus_wide, factor, 64).transpose(0, 2, 1, 3, 4)
        blocks.append(rows.reshape(mcus_high * mcus_wide, factor * factor, 64))
        tables.append(t)
        owners.append(np.full(factor * factor, ci))
    order = np.concatenate(blocks, 1).reshape(-1, 64)  # (MCU by MCU, each MCU's blocks in turn)
    owner = np.tile(np.concatenate(owners), mcus_high * mcus_wide)
    table = np.array(tables)[owner]
    dc_tables, ac_tables = [_code_arrays(_DC_LUMA), _code_arrays(_DC_CHROMA)], \
        [_code_arrays(_AC_LUMA), _code_arrays(_AC_CHROMA)]
    dc_code, dc_len = (np.stack([t[i] for t in dc_tables]) for i in range(2))
    ac_code, ac_len = (np.stack([t[i] for t in ac_tables]) for i in range(2))
    keys, codes, lengths = [], [], []
    n = len(order)
    index = np.arange(n)
    # DC: the difference from the component's block before (per component, in scan order)
    diff = np.empty(n, np.int64)
    for ci in range(len(components)):
        mine = owner == ci
        dc = order[mine, 0]
        diff[mine] = np.diff(dc, prepend=0)
    size, extra = _magnitude(diff)
    if (size > 11).any():
        raise _encode_error("a DC coefficient too large for baseline JPEG")
    keys += [index * 4096, index * 4096 + 1]
    codes += [dc_code[table, size], extra]
    lengths += [dc_len[table, size], size]
    # AC: each value with the zeros before it
    block, k = np.nonzero(order[:, 1:])
    k = k + 1
    values = order[block, k]
    first = np.r_[True, block[1:] != block[:-1]] if len(block) else np.zeros(0, bool)
    previous = np.where(first, 0, np.r_[0, k[:-1]])
    run = k - previous - 1
    size, extra = _magnitude(values)
    if (size > 10).any():
        raise _encode_error("a coefficient too large for baseline JPEG")
    t = table[block]
    for i in range(3):  # (at most 3 ZRLs: 62 zeros at most before a value)
        zrl = run >= 16 * (i + 1)
        keys.append(block[zrl] * 4096 + k[zrl] * 32 + i)
        codes.append(ac_code[t[zrl], 0xF0])
        lengths.append(ac_len[t[zrl], 0xF0])
    symbol = (run % 16) * 16 + size
    keys += [block * 4096 + k * 32 + 20, block * 4096 + k * 32 + 21]
    codes += [ac_code[t, symbol], extra]
    lengths += [ac_len[t, symbol], size]
    ends = order[:, 63] == 0  # (an EOB after the last value)
    keys.append(index[ends] * 4096 + 64 * 32)
    codes.append(ac_code[table[ends], 0x00])
    lengths.append(ac_len[table[ends], 0x00])
    keys, codes, lengths = np.concatenate(keys), np.concatenate(codes), np.concatenate(lengths)
    at = np.argsort(keys, kind="stable")
    return codes[at], lengths[at]
