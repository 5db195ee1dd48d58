#!/bin/busybox sh
# /init of the initramfs that scripts/check-linux/check-linux.sh boots
# under qemu: loads MTD, nandsim (the OLPC XO-1 part) and JFFS2, then runs
# the jobs /params lists, writing results to /out and, at the end, as a tar
# to the results disk.  Every step is echoed to the serial console (the log).
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /mnt /out
. /params
say() { echo "guest: $*"; }
fail() { say "FAIL: $*"; echo "FAIL $*" >> /out/errors; }

for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
         virtio_blk mtd bch nandcore nand jffs2; do
    insmod /modules/$m.ko || fail "insmod $m"
done
sleep 1

# load DISK DELAYS: nandsim with the part's ID bytes, datasheet delays and
# the image's bad blocks; every good block erased with a JFFS2 cleanmarker
# (flash_erase -j); then the image's data written with the kernel's ECC
# (nandwrite without -n/-o), one nandwrite per run of good blocks so that
# block i of the image lands on block i of the chip.
load() {
    insmod /modules/nandsim.ko $NANDSIM do_delays=$2 ${BADBLOCKS:+badblocks=$BADBLOCKS} $3 ||
        { fail "insmod nandsim"; return 1; }
    cat /proc/mtd
    flash_erase -j -q /dev/mtd0 0 0 || { fail "flash_erase"; return 1; }
    eval "segs=\$SEG_$1"
    for s in $segs; do
        nandwrite -q -k -s ${s%:*} --input-skip=${s%:*} --input-size=${s#*:} \
            /dev/mtd0 /dev/$1 || { fail "nandwrite $s"; return 1; }
    done
}

# tree NAME: the mounted tree's files (md5), directories and symlinks
tree() {
    (cd /mnt && find . -type f -exec md5sum {} + ) > /out/$1.md5
    (cd /mnt && find . -type d) > /out/$1.dirs
    (cd /mnt && find . -type l | while read -r l; do echo "$l -> $(readlink "$l")"; done) > /out/$1.links
}

for job in $JOBS; do
    # NAME:DISK:DELAYS:WHAT
    IFS=: read -r name disk delays what <<EOJ
$job
EOJ
    say "job $name: image /dev/$disk, do_delays=$delays ${what:+($what)}"
    t0=$(cut -d' ' -f1 /proc/uptime)
    if [ "$what" = count ]; then
        # nandsim's log of every operation (pr_debug, enabled by dyndbg;
        # log_buf_len on the kernel command line holds it): the mount's read
        # commands, counted.  Read-only, so that no GC thread reads after it.
        if load $disk 0 "log=1 dyndbg=+p"; then
            dmesg -c > /dev/null
            if mount -t jffs2 -o ro mtd0 /mnt; then
                dmesg -s 67108864 > /tmp/ops.log
                umount /mnt
                echo "reads $(grep -c 'log: read page' /tmp/ops.log)" > /out/$name.ops
                echo "programs $(grep -c 'log: programm page' /tmp/ops.log)" >> /out/$name.ops
                echo "erases $(grep -c 'log: erase sector' /tmp/ops.log)" >> /out/$name.ops
                say "$name: $(tr '\n' ' ' < /out/$name.ops)"
                rm -f /tmp/ops.log
            else
                fail "$name: mount -o ro"
            fi
        fi
        rmmod nandsim || fail "rmmod nandsim"
        continue
    fi
    if load $disk $delays; then
        t1=$(cut -d' ' -f1 /proc/uptime)
        say "loaded in $t0 .. $t1 s"
        # nandsim's cost of a page read, this boot: CALIB_PAGES reads by dd
        /mnttime -c dd if=/dev/mtd0 of=/dev/null bs=2048 count=$CALIB_PAGES 2>/dev/null \
            > /out/$name.calib || fail "$name: dd"
        if /mnttime mtd0 /mnt jffs2 > /out/$name.mount; then
            say "$name: $(cat /out/$name.mount)"
            if [ "$what" = interop ]; then
                tree $name
                say "$name: $(wc -l < /out/$name.md5) files checksummed"
                cp /linux-file /mnt/written-by-linux.bin && mkdir -p /mnt/from-linux &&
                    echo "written by Linux $(uname -r)" > /mnt/from-linux/hello.txt &&
                    sync || fail "$name: write from Linux"
                umount /mnt || fail "$name: umount"
                nanddump -q -o --bb=dumpbad -f /dev/$DUMPDISK /dev/mtd0 || fail "$name: nanddump"
                say "$name: nanddump to /dev/$DUMPDISK done"
            else
                umount /mnt || fail "$name: umount"
            fi
        else
            fail "$name: mount"
        fi
    fi
    dmesg | grep -i -E 'jffs2|nand|mtd' | tail -n 40 > /out/$name.dmesg
    rmmod nandsim || fail "rmmod nandsim"
done
uname -r > /out/kernel
dmesg > /out/dmesg.txt
cut -d' ' -f1 /proc/uptime > /out/uptime
tar -cf /dev/$OUTDISK -C /out . && sync
say "done"
poweroff -f
