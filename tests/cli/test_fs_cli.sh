#!/bin/sh
# The flashlab CLI's LogFS commands: mkfs, put/get round trips, ls, cat,
# mkdir, rm, ln, mv, df, stat; clear errors with the right exit codes; and
# read-only commands leaving the image file byte-identical.
. "$(dirname "$0")/lib.sh"
# lacks DESCRIPTION PATTERN -- command...: the command succeeds, output lacks PATTERN
lacks() {
    what=$1; pat=$2; shift 3
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -ne 0 ]; then bad "$what: exit $rc: $out"; return; fi
    if printf '%s\n' "$out" | grep -q -- "$pat"; then bad "$what: output has '$pat': $out"; return; fi
    ok
}
# same DESCRIPTION FILE1 FILE2: byte-identical files
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }
# df_field IMAGE FIELD: the number after "FIELD:" in `flashlab df`
df_field() { $FL df "$1" | sed -n "s/^$2: *\([0-9]*\).*/\1/p"; }
DEV=configs/devices/test-64m.yaml
I="$T/fs.img"

# ---- help ------------------------------------------------------------------
expect 0 "top-level help lists mkfs" "mkfs " -- $FL --help
expect 0 "top-level help lists put" "put " -- $FL --help
for c in mkfs ls cat put get mkdir rm rmdir ln mv df stat fallocate; do
    expect 0 "$c --help" "usage: flashlab $c" -- $FL $c --help
done

# ---- mkfs ------------------------------------------------------------------
expect 0 "sim create" "created" -- $FL sim create --device $DEV "$I"
cp "$I" "$T/raw.img"
# an erased image: probing finds no file system; --fs logfs gives LogFS's own message
expect 1 "not a LogFS image" "raw.img: not a logfs file system (run flashlab mkfs --fs logfs)" -- $FL ls --fs logfs "$T/raw.img"
expect 1 "no file system on the image" "raw.img: no file system found (tried .*logfs.*); mkfs one or give --fs" -- $FL ls "$T/raw.img"
expect 1 "not a LogFS image (put)" "not a logfs file system" -- $FL mkdir --fs logfs "$T/raw.img:/a"
expect 1 "no file system on the image (mkdir)" "no file system found" -- $FL mkdir "$T/raw.img:/a"
expect 1 "missing image" "missing.img: cannot open" -- $FL ls "$T/missing.img"
expect 1 "missing image (cat)" "missing.img: cannot open" -- $FL cat "$T/missing.img:/a"
expect 1 "missing image (mkfs)" "cannot open" -- $FL mkfs "$T/missing.img"
expect 2 "mkfs bad block size" "block_size: 1000 is not a power of two" -- $FL mkfs --block-size 1000 "$I"
expect 2 "mkfs bad anchor blocks" "anchor_blocks: .1. is not a number in 2..16" -- $FL mkfs --anchor-blocks 1 "$I"
expect 2 "mkfs bad reserve" "reserve: .x. is not a number" -- $FL mkfs --reserve x "$I"
# the flags are checked by LogFS's option table: its message names the key
expect 2 "mkfs flag checked by LogFS" "anchor_blocks: '17' is not a number in 2..16" -- $FL mkfs --anchor-blocks 17 "$I"
expect 2 "mkfs without image" "expected one IMAGE" -- $FL mkfs
expect 2 "mkfs -o unknown key" "unknown option 'colour'" -- $FL mkfs -o colour=red "$I"
expect 2 "mkfs -o bad policy" "unknown policy 'lru'" -- $FL mkfs -o gc_policy=lru "$I"
expect 0 "mkfs --help-options lists the policies" "cost-benefit" -- $FL mkfs --help-options
expect 1 "mkfs block size too big for the erase block" "does not suit the device" -- $FL mkfs --block-size 32768 "$I"
same "a failed mkfs leaves the image alone" "$I" "$T/raw.img"
# a device too small names the smallest that takes the fs, for every kind
printf 'name: tiny\ncell: slc\ngeometry: {blocks_per_plane: 4, pages_per_block: 64, page_size: 2048, oob_size: 64}\n' > "$T/small4.yaml"
$FL sim create --device "$T/small4.yaml" "$T/small4.img" >/dev/null
for k in logfs jffs2-scan; do
    out=$($FL mkfs --fs $k "$T/small4.img" 2>&1)
    min=$(printf '%s\n' "$out" | sed -n 's/.*the smallest it takes is .* MiB (blocks_per_plane \([0-9]*\))$/\1/p')
    if [ -n "$min" ] && printf '%s\n' "$out" | grep -q "small4.img: too small for $k: 0.5 MiB (blocks_per_plane 4)"; then ok; else bad "mkfs $k on 4 blocks: $out"; fi
    # the minimum named takes it; one block less does not
    for b in "$min" "$((min - 1))"; do
        sed "s/blocks_per_plane: 4/blocks_per_plane: $b/" "$T/small4.yaml" > "$T/t$b.yaml"
        rm -f "$T/t$b.img"; $FL sim create --device "$T/t$b.yaml" "$T/t$b.img" >/dev/null
    done
    expect 0 "mkfs $k on the minimum named" "" -- $FL mkfs --fs $k "$T/t$min.img"
    expect 1 "mkfs $k one block below it" "too small for $k" -- $FL mkfs --fs $k "$T/t$((min - 1)).img"
done
expect 0 "mkfs" "logfs, block size 4096" -- $FL mkfs "$I"
expect 0 "ls of an empty fs" "" -- $FL ls "$I"
[ -z "$($FL ls "$I")" ] && ok || bad "empty fs lists nothing"
cp "$T/raw.img" "$T/small.img"
expect 0 "mkfs with options" "block size 512" -- $FL mkfs --block-size 512 --anchor-blocks 2 --reserve 10 "$T/small.img"
expect 0 "df of the options" "block size: *512" -- $FL df "$T/small.img"

# ---- compressed data blocks (docs/compression.md) ---------------------------
cp "$T/raw.img" "$T/z.img"
expect 0 "mkfs -o compress=zlib" "" -- $FL mkfs -o compress=zlib "$T/z.img"
expect 0 "df names the compression" "compression: zlib" -- $FL df "$T/z.img"
seq 1 20000 > "$T/text.txt" # 108,894 bytes of digits and newlines
expect 0 "put, zlib" "" -- $FL put "$T/text.txt" "$T/z.img:/zlib.txt"
expect 0 "put -o compress=lzo" "" -- $FL put --fs logfs -o compress=lzo "$T/text.txt" "$T/z.img:/lzo.txt"
zlive=$(df_field "$T/z.img" live)
# raw, the two copies alone would be 217,788 bytes
[ -n "$zlive" ] && [ "$zlive" -lt 145000 ] && ok || bad "two compressed copies take $zlive live bytes"
expect 0 "get the zlib file" "" -- $FL get "$T/z.img:/zlib.txt" "$T/z.back"
same "the zlib file reads back" "$T/text.txt" "$T/z.back"
expect 0 "get the lzo file" "" -- $FL get "$T/z.img:/lzo.txt" "$T/l.back"
same "the lzo file reads back" "$T/text.txt" "$T/l.back"
expect 0 "fsck of a compressed image" "clean" -- $FL fsck "$T/z.img"
expect 2 "an unknown method" "compress: .gzip. is not none, zlib or lzo" -- $FL put --fs logfs -o compress=gzip "$T/text.txt" "$T/z.img:/x"

# ---- put / get / cat --------------------------------------------------------
head -c 307200 /dev/urandom > "$T/rand.bin"
printf 'hello, flash\n' > "$T/hello.txt"
live0=$(df_field "$I" live)
expect 0 "put 300 KiB" "/rand.bin: 307200 bytes" -- $FL put "$T/rand.bin" "$I:/rand.bin"
live1=$(df_field "$I" live)
[ -n "$live1" ] && [ "$live1" -ge $((live0 + 307200)) ] && ok || bad "df live grows by the file: $live0 -> $live1"
expect 0 "df files" "files: *1" -- $FL df "$I"
expect 0 "df commits" "commits: *[1-9]" -- $FL df "$I"
expect 0 "get" "" -- $FL get "$I:/rand.bin" "$T/back.bin"
same "get returns what put stored" "$T/rand.bin" "$T/back.bin"
expect 0 "get to stdout" "" -- sh -c "$FL get '$I:/rand.bin' - > '$T/back2.bin'"
same "get - returns what put stored" "$T/rand.bin" "$T/back2.bin"
expect 0 "put over an existing file" "/rand.bin: 13 bytes" -- $FL put "$T/hello.txt" "$I:/rand.bin"
expect 0 "cat after overwrite" "^hello, flash$" -- $FL cat "$I:/rand.bin"
expect 0 "ls -l size after overwrite" " 13 [0-9-]* [0-9:]* rand.bin" -- $FL ls -l "$I"
expect 0 "put back the big file" "307200 bytes" -- $FL put "$T/rand.bin" "$I:/rand.bin"
$FL get "$I:/rand.bin" "$T/back3.bin"
same "overwrite with a bigger file" "$T/rand.bin" "$T/back3.bin"
expect 0 "put from stdin" "/stdin.txt: 13 bytes" -- sh -c "$FL put - '$I:/stdin.txt' < '$T/hello.txt'"
expect 0 "cat of the stdin file" "hello, flash" -- $FL cat "$I:/stdin.txt"

# ---- mkdir / ls ---------------------------------------------------------------
expect 0 "mkdir -p nested" "" -- $FL mkdir -p "$I:/a/b/c"
expect 0 "mkdir -p of existing dirs" "" -- $FL mkdir -p "$I:/a/b"
expect 0 "mkdir two at once" "" -- $FL mkdir "$I:/d1" "$I:/d2"
expect 0 "put into a nested dir" "" -- $FL put "$T/hello.txt" "$I:/a/b/c/f.txt"
expect 0 "ls root lists a" "^a$" -- $FL ls "$I"
expect 0 "ls root lists rand.bin" "^rand.bin$" -- $FL ls "$I:/"
expect 0 "ls nested" "^c$" -- $FL ls "$I:/a/b"
expect 0 "ls deepest" "^f.txt$" -- $FL ls "$I:/a/b/c"
lacks "ls lists only the directory's entries" "f.txt" -- $FL ls "$I:/a"
[ "$($FL ls "$I" | tr '\n' ' ')" = "a d1 d2 rand.bin stdin.txt " ] && ok ||
    bad "ls sorts by name: $($FL ls "$I" | tr '\n' ' ')"
expect 0 "ls -l shows a file's size and time" "^-rw-r--r-- *1 *307200 [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9] rand.bin$" -- $FL ls -l "$I"
expect 0 "ls -l shows a directory" "^drwxr-xr-x .* a$" -- $FL ls -l "$I"
expect 0 "ls of a file lists just it" "^/rand.bin$" -- $FL ls "$I:/rand.bin"
expect 0 "ls -l of a file" "307200 [0-9-]* [0-9:]* /rand.bin" -- $FL ls -l "$I:/rand.bin"

# ---- ln / stat -------------------------------------------------------------------
expect 0 "ln hard link" "" -- $FL ln "$I:/rand.bin" "$I:/a/hard"
expect 0 "stat shows nlink 2" "nlink: *2" -- $FL stat "$I:/rand.bin"
expect 0 "stat of the link too" "nlink: *2" -- $FL stat "$I:/a/hard"
expect 0 "stat type" "type: *regular file" -- $FL stat "$I:/a/hard"
expect 0 "stat size" "size: *307200 bytes" -- $FL stat "$I:/a/hard"
expect 0 "stat of a directory" "type: *directory" -- $FL stat "$I:/a"
$FL get "$I:/a/hard" "$T/hard.bin"
same "a hard link reads the same data" "$T/rand.bin" "$T/hard.bin"
expect 0 "ln -s" "" -- $FL ln -s "$I:/a/b" "$I:/sl"
expect 0 "ls -l shows the symlink" "^lrwxrwxrwx .* sl -> /a/b$" -- $FL ls -l "$I"
expect 0 "stat of a symlink" "target: /a/b" -- $FL stat "$I:/sl"
expect 0 "ls through a symlink" "^c$" -- $FL ls "$I:/sl"
expect 0 "cat through a symlink" "hello, flash" -- $FL cat "$I:/sl/c/f.txt"
expect 0 "ln into a directory" "" -- $FL ln "$I:/stdin.txt" "$I:/d1"
expect 0 "ln into a directory uses the name" "^stdin.txt$" -- $FL ls "$I:/d1"
expect 0 "stat after the third link" "nlink: *2" -- $FL stat "$I:/stdin.txt"

# ---- mv -------------------------------------------------------------------------------
expect 0 "mv across directories" "" -- $FL mv "$I:/a/b/c/f.txt" "$I:/d2/g.txt"
lacks "mv: the old name is gone" "f.txt" -- $FL ls "$I:/a/b/c"
expect 0 "mv: the new name reads the data" "hello, flash" -- $FL cat "$I:/d2/g.txt"
expect 0 "mv into a directory" "" -- $FL mv "$I:/d2/g.txt" "$I:/a"
expect 0 "mv into a directory keeps the name" "^g.txt$" -- $FL ls "$I:/a"
expect 0 "mv a directory" "" -- $FL mv "$I:/d2" "$I:/a/b/d2"
expect 0 "mv a directory: it moved" "^d2$" -- $FL ls "$I:/a/b"
expect 0 "mv replaces a file" "" -- $FL mv "$I:/a/g.txt" "$I:/stdin.txt"
expect 0 "mv replaced the file" "^hello, flash$" -- $FL cat "$I:/stdin.txt"

# ---- df ---------------------------------------------------------------------------------
free0=$(df_field "$I" free); files0=$(df_field "$I" files)
expect 0 "put for df" "" -- $FL put "$T/rand.bin" "$I:/second.bin"
free1=$(df_field "$I" free); files1=$(df_field "$I" files)
[ -n "$free1" ] && [ "$free1" -lt "$free0" ] && ok || bad "df free shrinks after put: $free0 -> $free1"
[ "$files1" -eq $((files0 + 1)) ] && ok || bad "df files grows after put: $files0 -> $files1"
expect 0 "df total" "total: *[0-9]* bytes" -- $FL df "$I"
# the breakdown: device - bad - superblocks - anchor - held back - segment
# tails - headroom = total, and live + not committed + free = total (to the
# 0.01 MiB shown)
for row in "device" "- bad blocks" "- superblocks" "- anchor ring" "- held back" \
           "- segment tails" "- cleaner headroom" "= total" "  - live" "  - not committed" \
           "  = free"; do
    expect 0 "df breakdown: $row" "^  $row  *[0-9.]* MiB" -- $FL df "$I"
done
$FL df "$I" | awk '
    { v = ""; for (i = 1; i <= NF; i++) if ($i == "MiB") { v = $(i - 1); break } }
    /^  device /            { d = v }
    /^  - /                 { d -= v }
    /^  = total /           { t = v }
    /^    - /               { u += v }
    /^    = free /          { f = v }
    END { e1 = d - t; e2 = t - u - f; if (e1 < 0) e1 = -e1; if (e2 < 0) e2 = -e2
          exit !(t > 0 && e1 < 0.05 && e2 < 0.05) }' && ok ||
    bad "df breakdown does not add up: $($FL df "$I")"
expect 0 "df breakdown counts the anchor ring" "anchor ring .* 4 blocks" -- $FL df "$I"

# ---- read-only commands leave the image alone ---------------------------------------------
cp "$I" "$T/before.img"
expect 0 "ls (read-only)" "" -- $FL ls "$I"
expect 0 "ls -l (read-only)" "" -- $FL ls -l "$I:/a"
expect 0 "cat (read-only)" "" -- $FL cat "$I:/stdin.txt"
expect 0 "get (read-only)" "" -- $FL get "$I:/rand.bin" "$T/ro.bin"
expect 0 "df (read-only)" "" -- $FL df "$I"
expect 0 "stat (read-only)" "" -- $FL stat "$I:/sl"
expect 1 "cat of a missing file (read-only)" "" -- $FL cat "$I:/nope"
expect 1 "failed mkdir" "" -- $FL mkdir "$I:/a"
same "read-only and failed commands leave the image byte-identical" "$I" "$T/before.img"
expect 0 "a changing command" "" -- $FL mkdir "$I:/new"
if cmp -s "$I" "$T/before.img"; then bad "mkdir did not save the image"; else ok; fi

# ---- rm / rmdir --------------------------------------------------------------------------
expect 0 "rm a file" "" -- $FL rm "$I:/second.bin"
lacks "rm: gone from ls" "second.bin" -- $FL ls "$I"
expect 1 "rm: cat fails" "no such file: /second.bin" -- $FL cat "$I:/second.bin"
expect 0 "rm a hard link" "" -- $FL rm "$I:/a/hard"
expect 0 "rm a link drops nlink" "nlink: *1" -- $FL stat "$I:/rand.bin"
expect 0 "rm a symlink" "" -- $FL rm "$I:/sl"
expect 0 "rm a symlink leaves its target" "^c$" -- $FL ls "$I:/a/b"
expect 0 "rm an empty directory" "" -- $FL rm "$I:/new"
expect 0 "rmdir an empty directory" "" -- $FL rmdir "$I:/a/b/c"
expect 0 "build a tree" "" -- $FL mkdir -p "$I:/t/u/v" "$I:/t/w"
expect 0 "a file in the tree" "" -- $FL put "$T/rand.bin" "$I:/t/u/v/x.bin"
expect 0 "a link in the tree" "" -- $FL ln -s "$I:/t/w" "$I:/t/u/l"
expect 1 "rm of a non-empty dir without -r" "flashlab rm: directory not empty (use rm -r): /t" -- $FL rm "$I:/t"
expect 1 "rmdir of a non-empty dir" "directory not empty: /t" -- $FL rmdir "$I:/t"
expect 0 "rm -r of a tree" "" -- $FL rm -r "$I:/t"
lacks "rm -r: the tree is gone" "^t$" -- $FL ls "$I"
expect 1 "rm -r: its files are gone" "no such file: /t/u/v/x.bin" -- $FL cat "$I:/t/u/v/x.bin"

# ---- errors ---------------------------------------------------------------------------------
expect 1 "cat of a missing file" "flashlab cat: no such file: /nope" -- $FL cat "$I:/nope"
expect 1 "cat below a missing dir" "no such file: /x/y" -- $FL cat "$I:/x/y"
expect 1 "cat below a file" "not a directory: /rand.bin/x" -- $FL cat "$I:/rand.bin/x"
expect 1 "cat of a directory" "flashlab cat: is a directory: /a" -- $FL cat "$I:/a"
expect 1 "get of a directory" "is a directory: /a" -- $FL get "$I:/a" "$T/dir.out"
expect 1 "get of a missing file" "no such file: /nope" -- $FL get "$I:/nope" "$T/nope.out"
[ ! -e "$T/nope.out" ] && ok || bad "a failed get left a host file"
expect 1 "ls of a missing path" "flashlab ls: no such file: /nope" -- $FL ls "$I:/nope"
expect 1 "stat of a missing path" "no such file: /nope" -- $FL stat "$I:/nope"
expect 1 "mkdir of an existing path" "flashlab mkdir: file exists: /a" -- $FL mkdir "$I:/a"
expect 1 "mkdir of the root" "file exists: /" -- $FL mkdir "$I:/"
expect 1 "mkdir without its parent" "no such file: /q/r" -- $FL mkdir "$I:/q/r"
expect 1 "mkdir -p through a file" "not a directory: /rand.bin" -- $FL mkdir -p "$I:/rand.bin/x"
expect 1 "rmdir of a file" "not a directory: /rand.bin" -- $FL rmdir "$I:/rand.bin"
expect 1 "rm of a missing file" "flashlab rm: no such file: /nope" -- $FL rm "$I:/nope"
expect 1 "rm -r of the root" "cannot remove the root directory" -- $FL rm -r "$I:/"
expect 1 "ln to a missing file" "no such file: /nope" -- $FL ln "$I:/nope" "$I:/x"
expect 1 "ln over an existing name" "file exists: /stdin.txt" -- $FL ln "$I:/rand.bin" "$I:/stdin.txt"
expect 1 "ln of a directory" "cannot hard-link a directory: /a" -- $FL ln "$I:/a" "$I:/x"
expect 1 "mv of a missing file" "flashlab mv: no such file: /nope" -- $FL mv "$I:/nope" "$I:/x"
expect 1 "mv a directory into itself" "cannot move a directory into itself" -- $FL mv "$I:/a" "$I:/a/b"
expect 1 "mv a directory over a file" "not a directory: /rand.bin" -- $FL mv "$I:/a" "$I:/rand.bin"
expect 1 "put of a missing host file" "nohost: cannot open" -- $FL put "$T/nohost" "$I:/x"
expect 1 "put of a host directory" "is a directory" -- $FL put "$T" "$I:/x"
expect 1 "put without the parent" "no such file: /nodir/x" -- $FL put "$T/hello.txt" "$I:/nodir/x"
expect 1 "put onto a directory" "is a directory: /a" -- $FL put "$T/hello.txt" "$I:/a"
expect 0 "a '..' path" "" -- sh -c "$FL get '$I:/a/./../rand.bin' - > '$T/back3.bin'"
same "a '..' path reads the file" "$T/rand.bin" "$T/back3.bin"
expect 2 "bad IMAGE:path syntax" "'$I' is not IMAGE:/path" -- $FL cat "$I"
expect 2 "bad IMAGE:path syntax (relative path)" "is not IMAGE:/path" -- $FL mkdir "$I:a"
expect 2 "IMAGE:path without an image" "':/a' is not IMAGE:/path" -- $FL stat ":/a"
expect 2 "ln across images" "are on different images" -- $FL ln "$I:/rand.bin" "$T/small.img:/x"
expect 2 "mv across images" "are on different images" -- $FL mv "$I:/rand.bin" "$T/small.img:/x"
expect 2 "ln with one argument" "expected IMAGE:/target and IMAGE:/linkname" -- $FL ln "$I:/rand.bin"
expect 2 "put with one argument" "expected HOSTFILE and IMAGE:/path" -- $FL put "$T/hello.txt"
expect 2 "unknown option (ls)" "Try 'flashlab ls --help'" -- $FL ls --bogus "$I"
expect 2 "unknown option (rm)" "Try 'flashlab rm --help'" -- $FL rm -x "$I:/a"
expect 2 "unknown option (mv -s)" "Try 'flashlab mv --help'" -- $FL mv -s "$I:/a" "$I:/b"
expect 2 "unknown option (df)" "Try 'flashlab df --help'" -- $FL df --long "$I"

# ---- no space: a small device, a file bigger than it ------------------------------------
sed 's/blocks_per_plane: 512/blocks_per_plane: 96/' $DEV > "$T/tiny.yaml"
expect 0 "tiny device" "created" -- $FL sim create --device "$T/tiny.yaml" "$T/tiny.img"
expect 0 "mkfs tiny" "logfs, block size" -- $FL mkfs "$T/tiny.img"
head -c 16000000 /dev/zero | tr '\0' 'x' > "$T/big.bin"
cp "$T/tiny.img" "$T/tiny-before.img"
expect 1 "put more than fits" "flashlab put: no space left on device: /big" -- $FL put "$T/big.bin" "$T/tiny.img:/big"
same "a failed put leaves the image unchanged" "$T/tiny.img" "$T/tiny-before.img"
expect 0 "the fs is usable after ENOSPC" "/h: 13 bytes" -- $FL put "$T/hello.txt" "$T/tiny.img:/h"

# ---- fallocate ----------------------------------------------------------------
expect 2 "fallocate without -l" "expected -l LENGTH" -- $FL fallocate "$T/tiny.img:/f"
expect 2 "fallocate -l 0" "-l '0' is not a size above 0" -- $FL fallocate -l 0 "$T/tiny.img:/f"
expect 2 "fallocate bad size" "-o '1X' is not a size" -- $FL fallocate -o 1X -l 1K "$T/tiny.img:/f"
cp "$T/tiny.img" "$T/tiny-before.img"
expect 1 "fallocate more than fits" "flashlab fallocate: no space left on device: /f" -- \
    $FL fallocate -l 64M "$T/tiny.img:/f"
same "a failed fallocate leaves the image unchanged" "$T/tiny.img" "$T/tiny-before.img"
expect 0 "fallocate 64K" "" -- $FL fallocate -l 64K "$T/tiny.img:/f"
expect 0 "stat: its 16 blocks" "blocks: 128 " -- $FL stat "$T/tiny.img:/f"
expect 0 "fallocate -n past the end" "" -- $FL fallocate -n -o 64K -l 8K "$T/tiny.img:/f"
expect 0 "stat: size kept, 18 blocks" "size: *65536 bytes" -- $FL stat "$T/tiny.img:/f"
expect 0 "stat: 18 blocks" "blocks: 144 " -- $FL stat "$T/tiny.img:/f"
expect 0 "fsck clean after fallocate" "clean" -- $FL fsck "$T/tiny.img"

echo "test_fs_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
