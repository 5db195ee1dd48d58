#!/usr/bin/env python3
"""jffs2-fuzz-seed.py -- a raw JFFS2 image (32 KiB erase blocks, as
mkfs.jffs2 -e 0x8000 or `flashlab sim export --format raw` of the fuzz
device write it) as an input of the jffs2 fuzz target (fuzz/fuzz_jffs2.c):
the flag byte, then a chunk (block, offset u16 LE, length u16 LE, bytes) per
run of bytes that are not erased.  --cleanmarkers adds the NAND cleanmarker
to page 0's OOB of every erased block.

usage: jffs2-fuzz-seed.py [--cleanmarkers] FLAGS IMAGE OUT
"""
import struct
import sys

BS, BLOCKS, RUN = 0x8000, 12, 0xFFFF


def chunks(img):
    out = bytearray()
    for b in range(min(BLOCKS, (len(img) + BS - 1) // BS)):
        blk = img[b * BS:(b + 1) * BS]
        i = 0
        while i < len(blk):
            if blk[i] == 0xFF:  # skip erased bytes, a 16-byte run at a time
                j = i
                while j < len(blk) and blk[j:j + 16] == b'\xff' * len(blk[j:j + 16]):
                    j += 16
                if j > i:
                    i = j
                    continue
            j = i
            while j < len(blk) and j - i < RUN and blk[j:j + 16] != b'\xff' * len(blk[j:j + 16]):
                j += 16
            j = min(j, len(blk))
            out += struct.pack('<BHH', b, i, j - i) + blk[i:j]
            i = j
    return out


def main(argv):
    clean = '--cleanmarkers' in argv
    args = [a for a in argv if a != '--cleanmarkers']
    if len(args) != 3:
        sys.exit(__doc__)
    flags, src, dst = int(args[0], 0), args[1], args[2]
    img = open(src, 'rb').read()
    out = bytearray([flags]) + chunks(img)
    if clean:  # magic 0x1985, type 0x2003, totlen 8: at OOB byte 2
        for b in range(BLOCKS):
            if set(img[b * BS:(b + 1) * BS]) <= {0xFF}:
                out += struct.pack('<BHH', 0x80 | b, 2, 8) + struct.pack('<HHI', 0x1985, 0x2003, 8)
    open(dst, 'wb').write(out)


main(sys.argv[1:])
