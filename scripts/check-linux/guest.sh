# guest.sh (sourced by check-linux.sh): the initramfs and the qemu run.
# Disks: vda plain.raw and vdb sum.raw (read-only), vdc the results (a tar
# the guest writes), vdd the nanddump of the chip after Linux wrote to it.
I="$B/initramfs"
rm -rf "$I"
mkdir -p "$I/bin" "$I/modules" "$I/usr/sbin" "$I/proc" "$I/sys" "$I/dev" "$I/tmp"
cp "$B/root/bin/busybox" "$I/bin/busybox"
cp "$HERE/guest-init.sh" "$I/init"
cp "$B/mnttime" "$I/mnttime"
for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev \
         drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci drivers/block/virtio_blk \
         drivers/mtd/mtd lib/bch drivers/mtd/nand/nandcore drivers/mtd/nand/raw/nand \
         drivers/mtd/nand/raw/nandsim fs/jffs2/jffs2; do
    [ -f "$MODS/$m.ko" ] || die "$MODS/$m.ko missing"
    cp "$MODS/$m.ko" "$I/modules/"
done
for t in flash_erase nandwrite nanddump; do
    cp "/usr/sbin/$t" "$I/usr/sbin/"
    # its shared libraries, at the paths the loader looks at
    for lib in $(ldd "/usr/sbin/$t" | awk '/\// {print ($2 == "=>") ? $3 : $1}'); do
        mkdir -p "$I${lib%/*}"
        cp -L "$lib" "$I$lib"
    done
done
head -c 300000 /dev/urandom > "$B/linux-file"
cp "$B/linux-file" "$I/linux-file"

# nandsim as the OLPC XO-1 part: ID bytes and delays from $DEV (tR ->
# access_delay in us; the bus's ns per byte -> input_cycle, which nandsim
# charges per page read, and output_cycle, per page program; tPROG ->
# programm_delay; tBERS 1.5 ms -> erase_delay=2, whole ms)
t_r=$(awk '/t_r_ns:/ {print $2 / 1000}' "$DEV")
t_prog=$(awk '/t_prog_ns:/ {print $2 / 1000}' "$DEV")
t_cyc=$(awk '/t_cycle_ns:/ {print $2}' "$DEV")
NANDSIM="id_bytes=0xec,0xd3,0x51,0x95 access_delay=$t_r programm_delay=$t_prog erase_delay=2 input_cycle=$t_cyc output_cycle=$t_cyc"
{
    echo "NANDSIM='$NANDSIM'"
    echo "BADBLOCKS='$(echo $BAD_LIST | tr ' ' ',')'"
    echo "SEG_vda='$(python3 "$HERE/blocks.py" segments "$B/plain.raw" $BAD_LIST)'"
    echo "SEG_vdb='$(python3 "$HERE/blocks.py" segments "$B/sum.raw" $BAD_LIST)'"
    echo "OUTDISK=vdc DUMPDISK=vdd CALIB_PAGES=8192"
    echo "JOBS='${JOBS:-plain-count:vda:0:count sum-count:vdb:0:count plain-d1:vda:1: sum-d1:vdb:1: sum-d0:vdb:0: plain-d0:vda:0:interop}'"
} > "$I/params"
(cd "$I" && find . | "$OLDPWD/$B/root/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1) > "$B/initramfs.cpio.gz"

rm -f "$B/out.tar" "$B/dump.nanddump"
truncate -s 64M "$B/out.tar"
# the whole chip with its OOB: 8192 blocks x 64 pages x (2048 + 64) bytes
truncate -s $((8192 * 64 * 2112)) "$B/dump.nanddump"
echo "check-linux: booting $KVER under qemu (TCG); console in $B/console.log"
start=$(date +%s)
timeout ${QEMU_TIMEOUT:-5400} qemu-system-x86_64 -nodefaults -display none -no-reboot \
    -machine pc -smp 1 -m "$QEMU_MEM" \
    -kernel "$KERNEL" -initrd "$B/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 loglevel=5 log_buf_len=64M" \
    -serial "file:$B/console.log" \
    -drive "file=$B/plain.raw,format=raw,if=virtio,readonly=on" \
    -drive "file=$B/sum.raw,format=raw,if=virtio,readonly=on" \
    -drive "file=$B/out.tar,format=raw,if=virtio" \
    -drive "file=$B/dump.nanddump,format=raw,if=virtio" ||
    bad "qemu exited with an error (console: $B/console.log)"
echo "check-linux: guest ran $(( $(date +%s) - start )) s"
