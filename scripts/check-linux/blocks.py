#!/usr/bin/env python3
"""Erase-block bookkeeping for check-linux.sh (128 KiB blocks, raw images).

  blocks.py place IN OUT BAD...   copy the raw JFFS2 stream IN block by block
                                  to OUT, leaving each bad block's place 0xFF
                                  (as nandwrite skips bad blocks on the chip)
  blocks.py segments RAW BAD...   print "offset:length" for each run of good
                                  blocks up to RAW's last block that is not
                                  all 0xFF: what the guest's nandwrite writes
"""
import sys

BLOCK = 128 * 1024


def place(src, dst, bad):
    with open(src, "rb") as f, open(dst, "wb") as out:
        b = 0
        while True:
            while b in bad:
                out.write(b"\xff" * BLOCK)
                b += 1
            chunk = f.read(BLOCK)
            if not chunk:
                break
            out.write(chunk.ljust(BLOCK, b"\xff"))
            b += 1


def segments(raw, bad):
    last, blank, b = -1, b"\xff" * BLOCK, 0
    with open(raw, "rb") as f:
        while True:
            chunk = f.read(BLOCK)
            if not chunk:
                break
            if chunk != blank[:len(chunk)]:
                last = b
            b += 1
    runs, start = [], None
    for i in range(last + 2):
        good = i <= last and i not in bad
        if good and start is None:
            start = i
        elif not good and start is not None:
            runs.append("%d:%d" % (start * BLOCK, (i - start) * BLOCK))
            start = None
    print(" ".join(runs))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "place":
        place(sys.argv[2], sys.argv[3], {int(x) for x in sys.argv[4:]})
    elif len(sys.argv) >= 3 and sys.argv[1] == "segments":
        segments(sys.argv[2], {int(x) for x in sys.argv[3:]})
    else:
        sys.exit(__doc__)
