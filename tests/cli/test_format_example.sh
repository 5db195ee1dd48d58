#!/bin/sh
# docs/FORMAT.md §18, the worked example: its commands (the block after
# "<!-- format-example: commands -->") run as written, and every byte of
# every dump after "<!-- format-example: block B page P -->" is the byte
# of that page of the image they make.  Dump lines: "OFFS  b b b ..." (those
# bytes at OFFS), "OFFS  b ..." (byte b up to the next line's offset), a line
# "..." (not checked up to the next offset), "OFFS" alone (where the last
# fill ends).
. "$(dirname "$0")/lib.sh"
DOC=docs/FORMAT.md
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
mkdir -p "$T/bin" "$T/ex"
ln -s "$FLA" "$T/bin/flashlab"

awk '/<!-- format-example: commands -->/ {f = 1; next}
     f && /^```sh/ {g = 1; next} g && /^```/ {exit} g {print}' "$DOC" > "$T/commands.sh"
[ -s "$T/commands.sh" ] && ok || bad "no example commands in $DOC"
if (cd "$T/ex" && PATH="$T/bin:$PATH" sh -e "$T/commands.sh" > "$T/commands.out" 2>&1); then ok
else bad "the example's commands failed: $(cat "$T/commands.out")"; fi
grep -q "^000000 *46 4c 4c 4f 47 46 53 00 06" "$T/commands.out" && ok ||
    bad "sim read does not show the superblock: $(head -3 "$T/commands.out")"
expect 0 "fsck of the example" "clean" -- $FL fsck "$T/ex/example.img"
expect 0 "stat prints the times exactly" "^mtime:  1179273600.059291500  2007-05-16T00:00:00.059291500Z$" -- $FL stat "$T/ex/example.img:/hello"
expect 0 "export raw" "" -- $FL sim export --format raw "$T/ex/example.img" "$T/ex/example.raw"

# Every dump against the raw image (page data only: block b page p at
# (b * 64 + p) * 2048).
if python3 - "$DOC" "$T/ex/example.raw" > "$T/dumps.out" 2>&1 <<'PY'
import re, sys
doc, raw = open(sys.argv[1]).read().splitlines(), open(sys.argv[2], "rb").read()
PAGE, PPB = 2048, 64
dumps = checked = 0
errors = []
i = 0
while i < len(doc):
    m = re.match(r"<!-- format-example: block (\d+) page (\d+) -->", doc[i])
    i += 1
    if not m:
        continue
    base = (int(m.group(1)) * PPB + int(m.group(2))) * PAGE
    while not doc[i].startswith("```"):
        i += 1
    i += 1
    rows = []  # (offset or None for "...", bytes, fill)
    while not doc[i].startswith("```"):
        line = doc[i]
        i += 1
        if line.strip() == "...":
            rows.append((None, [], False))
            continue
        r = re.match(r"([0-9a-f]{4})((?:  | )((?:[0-9a-f]{2} )*[0-9a-f]{2})( \.\.\.)?)?(\s|$)", line)
        if not r:
            errors.append("unparsed dump line: %r" % line)
            continue
        rows.append((int(r.group(1), 16), [int(b, 16) for b in (r.group(3) or "").split()],
                     bool(r.group(4))))
    dumps += 1
    for k, (off, data, fill) in enumerate(rows):
        if off is None:
            continue
        end = off + len(data)
        if fill:
            nxt = next((o for o, _, _ in rows[k + 1:] if o is not None), None)
            if nxt is None:
                errors.append("fill at %04x with no offset after it" % off)
                continue
            data = data[:-1] + [data[-1]] * (nxt - off - len(data) + 1)
            end = nxt
        got = raw[base + off:base + end]
        checked += len(data)
        for j, (want, have) in enumerate(zip(data, got)):
            if want != have:
                errors.append("%s: byte %04x is %02x, the doc says %02x"
                              % (m.group(0), off + j, have, want))
                break
print("%d dumps, %d bytes checked" % (dumps, checked))
for e in errors:
    print(e)
sys.exit(1 if errors or dumps < 5 or checked < 2048 else 0)
PY
then ok; else bad "FORMAT.md §18 differs from the image: $(cat "$T/dumps.out")"; fi

echo "test_format_example: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
