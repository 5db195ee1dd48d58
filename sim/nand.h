/*
 * nand.h -- the public interface of flashlab's NAND flash simulator.
 *
 * A device is an array of erase blocks, each an array of pages with a spare
 * (OOB) area.  Addresses are (block, page); blocks are numbered globally and
 * mapped onto channels, dies and planes as described in docs/simulator.md.
 *
 * The rules a real chip imposes, and which this simulator enforces (a
 * violation returns a distinct negative code, is counted, and never aborts):
 *   - a page can be programmed only while erased (NOP partial programs of
 *     one page are allowed where the part allows them, SLC typically 4);
 *   - pages of a block are programmed in ascending order;
 *   - erase sets a whole block to 0xFF;
 *   - programming only turns bits from 1 to 0.
 * ECC belongs to the device here: reads return corrected data and report
 * the number of corrected bits, or NAND_E_ECC with really corrupt data.
 *
 * Every operation advances (or, when queued, schedules on) a simulated clock
 * in nanoseconds.  All randomness comes from one seed through a counter-based
 * generator keyed by what happens, so runs are reproducible and the errors a
 * page shows do not depend on the order of unrelated operations.
 *
 * Errors are negative numbers (enum nand_err); 0 is success.
 */
#ifndef FLASHLAB_NAND_H
#define FLASHLAB_NAND_H

#include <stddef.h>
#include <stdint.h>

/* exported from libflashlab (built -fvisibility=hidden): docs/api.md */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t nand_block_t;
typedef uint32_t nand_page_t;
typedef uint64_t nand_time_t; /* simulated nanoseconds */

enum nand_err {
    NAND_OK = 0,
    NAND_E_INVAL = -1,        /* bad argument or configuration */
    NAND_E_ADDR = -2,         /* block, page or column out of range */
    NAND_E_NOT_ERASED = -3,   /* program of a page that is not erased */
    NAND_E_ORDER = -4,        /* program below the highest programmed page */
    NAND_E_NOP = -5,          /* more partial programs than the part allows */
    NAND_E_PROGRAM_FAIL = -6, /* status FAIL after program (worn block) */
    NAND_E_ERASE_FAIL = -7,   /* status FAIL after erase (worn block) */
    NAND_E_ECC = -8,          /* uncorrectable read: data is corrupt */
    NAND_E_POWER = -9,        /* power was cut during or before this call */
    NAND_E_NOMEM = -10,
    NAND_E_IO = -11,          /* image file could not be read or written */
    NAND_E_CORRUPT = -12,     /* image file is not a valid flashlab image */
    NAND_E_BUSY = -13,        /* operation queue is full */
    NAND_E_LOCKED = -14,      /* the image is in use by another writer */
};

/* A short human-readable name for an error code ("not erased", ...). */
const char *nand_strerror(int err);

/* ---- configuration ------------------------------------------------------
 * A zero field means "use the default" where a default is documented. */

struct nand_geometry {
    uint32_t channels;          /* default 1 */
    uint32_t dies_per_channel;  /* default 1 */
    uint32_t planes_per_die;    /* default 1 */
    uint32_t blocks_per_plane;  /* required */
    uint32_t pages_per_block;   /* required */
    uint32_t page_size;         /* data bytes per page, required */
    uint32_t oob_size;          /* spare bytes per page */
};

enum nand_cell { NAND_SLC = 1, NAND_MLC = 2, NAND_TLC = 3 };

struct nand_timing {
    uint64_t t_r_ns;        /* array read to register (lower page on MLC) */
    uint64_t t_r_upper_ns;  /* read of an upper (paired) page; 0 = t_r */
    uint64_t t_prog_ns;     /* program (lower page on MLC) */
    uint64_t t_prog_upper_ns; /* program of an upper page; 0 = t_prog */
    uint64_t t_bers_ns;     /* block erase */
    uint64_t t_cycle_ns;    /* one command/address/data cycle on the bus */
    uint32_t bus_bytes;     /* bytes per data cycle (8-bit bus = 1) */
    uint32_t addr_cycles;   /* address cycles of a page address (5) */
    /* Every read command pays tR and moves the whole page and spare over
     * the bus, however few bytes it asks for: how Linux's nandsim charges
     * reads (docs/linux-check.md).  0 = a chip: only the bytes asked. */
    int whole_page_reads;
};

/*
 * Raw bit error rate per bit, as in docs/references.md section 2:
 *   RBER = eps + alpha*PE^k + beta*PE^m*t^n + gamma*PE^p*R^q
 * with PE the block's effective P/E cycles, t the hours since the page was
 * programmed and R the reads of the block since its last erase.
 */
struct nand_rber_model {
    double eps, alpha, k, beta, m, n, gamma, p, q;
};

/* The model's RBER per bit for a block at pe effective P/E cycles (P/E
 * divided by endurance_scale), a page programmed `hours` ago, and `reads`
 * reads of the block since its erase; at most 0.5.  Every read the
 * simulator makes draws its bit errors from this rate (sim/biterr.c), so
 * tests and docs/validation.md hold the presets to published chips
 * through it. */
double nand_rber(const struct nand_rber_model *m, double pe, double hours,
                 double reads);

struct nand_ecc {
    uint32_t codeword_bytes; /* data bytes per codeword (nand_config_init:
                              * 512; 0 = the whole page) */
    uint32_t correct_bits;   /* t: bits corrected per codeword; 0 = no ECC */
};

struct nand_config {
    char name[64];
    struct nand_geometry geo;
    enum nand_cell cell;
    uint32_t nop;              /* partial programs per page (default 1) */
    /* MLC/TLC: upper page p pairs with lower page p - pair_distance, pages
     * grouped so that (p / pair_distance) odd means upper.  0 = no pairing. */
    uint32_t pair_distance;
    struct nand_timing timing;
    uint64_t endurance;        /* rated P/E cycles */
    double endurance_sigma;    /* relative spread of per-block endurance */
    /* Acceleration for lifetime experiments: a block's effective wear is
     * PE / endurance_scale for both wear-out and bit errors, so a scale of
     * 0.01 makes a 100k-cycle part wear out after ~1k erases. Default 1. */
    double endurance_scale;
    uint64_t initial_pe;       /* every block starts with this many cycles */
    double factory_bad_fraction;
    struct nand_rber_model rber;
    struct nand_ecc ecc;
    uint64_t seed;
    int dedup;                 /* content-light store: share equal pages */
    /* Content-light store: keep a programmed page in a run-length form
     * when that is under half the page (long runs of one byte value), in
     * full otherwise.  Invisible to every operation; only the memory held
     * (bytes_stored) and the cost of a program change.  Works with dedup. */
    int compress;
    /* Where the part's figures come from: a datasheet's part number or a
     * paper (docs/devices.md, "Presets").  Kept by the loader, not stored
     * in images; "" when not given. */
    char source[160];
};

/* Set every field to its documented default (an SLC part with no
 * geometry; the caller fills the geometry in). */
void nand_config_init(struct nand_config *cfg);

/* Fill defaults into zero fields and check the result. Returns 0 or
 * NAND_E_INVAL with a message in err (which may be NULL). */
int nand_config_finish(struct nand_config *cfg, char *err, size_t errlen);

/* Load a device description from a YAML file (configs/devices/).  Errors
 * are written to err as "file:line:col: message". */
int nand_config_load(const char *path, struct nand_config *cfg,
                     char *err, size_t errlen);

/* Derived sizes. */
uint64_t nand_blocks(const struct nand_config *cfg);
uint64_t nand_dies(const struct nand_config *cfg);
uint64_t nand_capacity_bytes(const struct nand_config *cfg);

/* Page pairing (MLC/TLC with pair_distance): 1 if page p of a block is an
 * upper page, whose torn or failed program also damages page *lower of the
 * same block (lower may be NULL); 0 for a lower page, and for every page
 * of a part without pairing. */
int nand_page_is_upper(const struct nand_config *cfg, nand_page_t p,
                       nand_page_t *lower);

/* ---- a device ---------------------------------------------------------- */

typedef struct nand_dev nand_dev;

/* Create a fresh device: all blocks erased, factory bad blocks marked. */
int nand_create(const struct nand_config *cfg, nand_dev **out);
/* Open a device saved with nand_save, with what nand_sync appended to its
 * journal since; the device is powered on.  A damaged journal is an error
 * naming it; a torn last record (a crash during a sync) is ignored. */
int nand_open(const char *path, nand_dev **out, char *err, size_t errlen);
/* Write the whole device state to an image file (atomically, via rename),
 * and delete its journal (path + ".journal"), now folded in.  0,
 * NAND_E_IO, or NAND_E_LOCKED (another process holds path's lock). */
int nand_save(nand_dev *dev, const char *path);
/* Make the device's state durable in the image at path cheaply: when dev
 * was opened from or last saved to path, append what changed since then
 * (or since the last sync) to path + ".journal" and fsync it -- the blocks
 * whose pages changed, the counters of the others; otherwise nand_save.
 * nand_open replays the journal; nand_save folds it into the image
 * (docs/simulator.md, "The image journal").  When the image or the
 * journal at path is no longer the one dev extends (a writer that ignored
 * the lock replaced it), nand_save: the journal is never appended to
 * a file it would leave unreadable.  0, NAND_E_IO or NAND_E_LOCKED. */
int nand_sync(nand_dev *dev, const char *path);
/* Frees dev, and releases the image lock it holds (nand_open_write):
 * call it after the last nand_save or nand_sync. */
void nand_close(nand_dev *dev);

/* ---- the image lock (sim/imagelock.c; docs/simulator.md, "The image
 * lock") ------------------------------------------------------------------
 * One image, one writer.  A writer holds an exclusive flock on
 * path + ".lock" from before it opens the image until after its last save,
 * and writes into that file who it is, so that a contender can name it:
 * "IMAGE is in use by flashlab mount on M (pid N)".  A holder that gave
 * a mount point no longer mounted (a mount saving after its unmount) is
 * waited for (up to 300 s); any other holder refuses at once. */
typedef struct nand_lock nand_lock;

/* Lock path for writing.  who names the holder ("flashlab put"; NULL:
 * "a flashlab session"), mountpoint the mount it serves (or NULL).
 * 0 with *out held, NAND_E_LOCKED with "IMAGE is in use by WHO (pid N)"
 * in err, or NAND_E_IO / NAND_E_NOMEM with a message in err.  Creates
 * path + ".lock" (never deleted: deleting races with the next locker). */
int nand_lock_image(const char *path, const char *who, const char *mountpoint,
                    nand_lock **out, char *err, size_t errlen);
/* Describe the holder anew (after a fork: the new pid). */
void nand_lock_describe(nand_lock *l, const char *who, const char *mountpoint);
/* Release and free l (NULL: no-op). */
void nand_unlock_image(nand_lock *l);
/* For a reader: wait as nand_lock_image does for a saving mount; 1 with
 * the holder ("flashlab mount on M (pid N)") in who when a writer is at
 * work (what is read is its last saved and synced state), else 0. */
int nand_lock_holder(const char *path, char *who, size_t cap);

/* nand_open for a writer: nand_lock_image(path, who, NULL, ...) first;
 * the device holds the lock until nand_close.  A missing image is
 * nand_open's error, and leaves no lock file behind. */
int nand_open_write(const char *path, const char *who, nand_dev **out,
                    char *err, size_t errlen);
/* Give lock l (taken with nand_lock_image) to dev: nand_close releases
 * it (for a device made with nand_create or nand_import). */
void nand_hold_lock(nand_dev *dev, nand_lock *l);

/* Whatever the caller did, nand_save and nand_sync refuse (NAND_E_LOCKED)
 * to write an image whose lock another process holds. */

const struct nand_config *nand_get_config(const nand_dev *dev);

/* Result of one operation. */
struct nand_result {
    nand_time_t start;        /* when the die started the operation */
    nand_time_t done;         /* completion time on the simulated clock */
    uint32_t corrected_bits;  /* bits ECC corrected (reads) */
    uint32_t raw_bit_errors;  /* bits flipped before ECC (reads) */
    /* the most bits ECC corrected in one codeword of the read: what a
     * scrubbing threshold compares (MTD's max_bitflips) */
    uint32_t max_cw_bits;
};

/*
 * Synchronous operations: the clock advances to the operation's end.
 * data is page_size bytes, oob is oob_size bytes; either may be NULL
 * (program: leave that part erased; read: do not transfer it).
 * res may be NULL.  The buffers stay the caller's: a program stores a
 * copy (or its compressed form) before it returns.  A whole page whose
 * oob directly follows its data in one buffer (oob == data + page_size)
 * and lands on an erased page is stored straight from that buffer, with
 * no intermediate copy: the fast path for an FTL's page-sized writes.
 */
int nand_read(nand_dev *dev, nand_block_t b, nand_page_t p,
              void *data, void *oob, struct nand_result *res);
int nand_program(nand_dev *dev, nand_block_t b, nand_page_t p,
                 const void *data, const void *oob, struct nand_result *res);
int nand_erase(nand_dev *dev, nand_block_t b, struct nand_result *res);

/* nand_read of a page's data (no spare) that lends the stored bytes
 * instead of copying them: the same time, statistics, bit errors and
 * result as nand_read(dev, b, p, buf, NULL, res), with *data set to the
 * bytes read.  They are the device's own (read only, valid until the next
 * call that programs, erases or otherwise changes the device, or restores
 * a snapshot) when the page is stored in full and no bit error reaches the
 * caller (none that ECC does not correct); otherwise they are copied into
 * buf (page_size bytes) and *data == buf.  For a caller that only looks
 * at parts of a page: the copy it saves is the whole page. */
int nand_read_view(nand_dev *dev, nand_block_t b, nand_page_t p, void *buf,
                   const void **data, struct nand_result *res);

/* A program that hands its page over instead of having it copied.
 * nand_page_buffer gives the caller one of the store's page buffers
 * (page_size + oob_size bytes, contents undefined; NULL when memory is
 * short); the caller fills its first page_size bytes, and
 * nand_program_buffer programs them as nand_program(dev, b, p, buf, NULL,
 * res) does -- the spare left erased, the same time, statistics and
 * result -- and takes the buffer in every case: the device keeps it as
 * the page (or frees it), and the caller must not touch it again.  A
 * buffer not programmed goes back with nand_page_buffer_free, before
 * nand_close. */
void *nand_page_buffer(nand_dev *dev);
void nand_page_buffer_free(nand_dev *dev, void *buf);
int nand_program_buffer(nand_dev *dev, nand_block_t b, nand_page_t p, void *buf,
                        struct nand_result *res);

/* Column access: the page and its spare form one byte space of
 * page_size + oob_size bytes; col addresses it as on a real chip. */
int nand_read_col(nand_dev *dev, nand_block_t b, nand_page_t p,
                  uint32_t col, void *buf, uint32_t len,
                  struct nand_result *res);
int nand_program_col(nand_dev *dev, nand_block_t b, nand_page_t p,
                     uint32_t col, const void *buf, uint32_t len,
                     struct nand_result *res);

/* Raw read: no ECC, every sampled bit error is visible. */
int nand_read_raw(nand_dev *dev, nand_block_t b, nand_page_t p,
                  void *data, void *oob, struct nand_result *res);

/* Bad blocks, the way vendors mark them: a non-0xFF first byte of the
 * spare of page 0.  is_bad reads that byte (a real, timed, raw flash read)
 * and calls the block bad when fewer than 4 of its bits are 1, so that a
 * stray bit flip neither hides nor fakes a marker. */
int nand_is_bad(nand_dev *dev, nand_block_t b);   /* 1 bad, 0 good, <0 err */
int nand_mark_bad(nand_dev *dev, nand_block_t b);

/* ---- queued operations: parallelism across dies ------------------------
 * Submitting schedules the operation on its die and channel starting no
 * earlier than the current time and applies its effect; the clock does not
 * move.  nand_wait advances the clock to the end of everything submitted
 * (or to an armed cut time before it).  A power cut tears every queued
 * program or erase under way at its instant and undoes those that had not
 * started (docs/simulator.md, "Power loss"). */
enum nand_op_kind { NAND_OP_READ, NAND_OP_PROGRAM, NAND_OP_ERASE };
struct nand_op {
    enum nand_op_kind kind;
    nand_block_t block;
    nand_page_t page;
    void *data;          /* read buffer or program data (may be NULL) */
    void *oob;
    int status;          /* filled in: 0 or a nand_err */
    struct nand_result res;
};
int nand_submit(nand_dev *dev, struct nand_op *op);
nand_time_t nand_wait(nand_dev *dev);

/* ---- the clock ---------------------------------------------------------- */
nand_time_t nand_now(const nand_dev *dev);
/* Let simulated time pass (idle host, retention experiments). */
void nand_advance(nand_dev *dev, nand_time_t ns);

/* ---- power loss ------------------------------------------------------------
 * A cut interrupts the operation in flight: an interrupted program leaves a
 * page with only some of its bits programmed, an interrupted erase a block
 * neither old nor erased, and an interrupted upper-page program on MLC/TLC
 * also corrupts its paired lower page.  After a cut every call fails with
 * NAND_E_POWER until nand_power_on. */

/* Cut when the clock reaches t (the operation running then is torn). */
void nand_cut_at_time(nand_dev *dev, nand_time_t t);
/* Let n more state-changing operations (programs, erases, mark-bad; queued
 * ones counted as issued) complete and tear the next one after fraction
 * frac of its busy time (frac < 0: drawn from the seed). */
void nand_cut_after_ops(nand_dev *dev, uint64_t n, double frac);
/* Called before every state-changing operation; return nonzero to cut it,
 * setting *frac to the fraction of its busy time that completes. */
typedef int (*nand_cut_fn)(void *ctx, const struct nand_op *op, double *frac);
void nand_cut_callback(nand_dev *dev, nand_cut_fn fn, void *ctx);
void nand_cut_disarm(nand_dev *dev);
/* Cut now, between operations. */
void nand_power_cut(nand_dev *dev);
int nand_is_powered(const nand_dev *dev);
void nand_power_on(nand_dev *dev);

/* ---- snapshots -------------------------------------------------------------
 * A snapshot shares every block with the device (copy-on-write), so taking
 * one costs a pointer per block and restoring one is as cheap. */
typedef struct nand_snapshot nand_snapshot;
/* A snapshot belongs to its device: free it before nand_close. */
int nand_snapshot_take(nand_dev *dev, nand_snapshot **out);
int nand_snapshot_restore(nand_dev *dev, const nand_snapshot *snap);
void nand_snapshot_free(nand_snapshot *snap);

/* ---- exchanging images with Linux tools (sim/dump.c) ---------------------
 * Flat page dumps, as mtd-utils write and read them (docs/simulator.md,
 * "Exchanging images with mtd-utils and nandsim"):
 *   NAND_DUMP_NANDDUMP  every page's data then its whole OOB, block after
 *                       block: `nanddump --oob --noecc --bb=dumpbad`, read
 *                       by `nandwrite --oob --noecc`; bad blocks are dumped
 *                       as stored, so their markers survive;
 *   NAND_DUMP_RAW       data only (`mkfs.jffs2 --pad`, `ubinize` images);
 *                       a bad block exports as 0xFF (nanddump's padbad).
 * Block i of the file is block i of the device (nothing is shifted around
 * bad blocks). */
enum nand_dump_format { NAND_DUMP_NANDDUMP = 1, NAND_DUMP_RAW = 2 };

/* Write every page of dev to the file at path, block after block.  The
 * stored cell contents are written as they are: no ECC, no sampled bit
 * errors, and no read is counted, so the device's clock, statistics and
 * read-disturb counts do not change.  0, NAND_E_INVAL (bad fmt) or
 * NAND_E_IO, with a message naming path in err (which may be NULL). */
int nand_export(nand_dev *dev, const char *path, enum nand_dump_format fmt,
                char *err, size_t errlen);

/* Create a fresh device from cfg (as nand_create) and program into it,
 * in order, every page of the dump at path that is not all 0xFF (data and,
 * for nanddump, OOB: erased pages stay erased; raw pages get an erased
 * OOB).  A nanddump block whose page-0 marker reads bad is marked bad.
 * The file must be a whole number of pages (page_size, plus oob_size for
 * nanddump) and no larger than the device; it may end before the device
 * does (the rest stays erased).  Data for a factory-bad block of the device
 * is refused, naming the block, unless (nanddump) the file's block is bad
 * too.  0 with *out set, or an error code with a message naming path in
 * err (NAND_E_IO: cannot read; NAND_E_CORRUPT: wrong size or data on a bad
 * block; the status of a failed program). */
int nand_import(const struct nand_config *cfg, const char *path,
                enum nand_dump_format fmt, nand_dev **out,
                char *err, size_t errlen);

/* ---- damage injection (sim/corrupt.c, docs/simulator.md "Damage
 * injection") ------------------------------------------------------------
 * Changes the stored state the way media faults and failing firmware do,
 * outside any operation: no clock (but AGE's), statistics or power rules
 * involved.  Everything it does is part of the device and saved with it,
 * so a damaged image stays a valid image.  Positions are drawn from seed. */
enum nand_corrupt_mode {
    NAND_CORRUPT_FLIP = 1,   /* `bits` weak cells in one codeword: raw bit
                              * errors on every read (corrected while
                              * bits <= t, with the sampled ones) */
    NAND_CORRUPT_BEYOND,     /* the same with t + 1 bits (bits 0) or more */
    NAND_CORRUPT_UNCORRECTABLE, /* every codeword of the page fails ECC */
    NAND_CORRUPT_WIPE,       /* the page reads erased (still not
                              * programmable: the block must be erased) */
    NAND_CORRUPT_TEAR,       /* the page's program torn after fraction
                              * `frac` (< 0: drawn from seed) */
    NAND_CORRUPT_BAD,        /* the block becomes a grown bad block */
    NAND_CORRUPT_AGE,        /* `age_ns` of simulated time pass (retention)
                              * and `reads` reads are counted on the block
                              * (read disturb; every block if all_blocks) */
    NAND_CORRUPT_SILENT,     /* `bits` bits of the stored data change: ECC
                              * passes the page, only an FS CRC sees it */
};

struct nand_corrupt {
    enum nand_corrupt_mode mode;
    nand_block_t block;
    nand_page_t page;
    uint32_t bits;    /* FLIP, BEYOND, SILENT; 0 = 1 (SILENT, FLIP) */
    uint32_t offset;  /* FLIP/BEYOND: a byte of the codeword to hit (0: a
                       * data codeword drawn from seed); SILENT: first
                       * byte of the range changed */
    uint32_t length;  /* SILENT: bytes of the range (0 = to the page end) */
    double frac;      /* TEAR */
    uint64_t age_ns;  /* AGE */
    uint64_t reads;   /* AGE */
    int all_blocks;   /* AGE: reads on every block, block ignored */
    uint64_t seed;
};

/* Parse a mode name ("flip", "beyond", "uncorrectable", "wipe", "tear",
 * "bad", "age", "silent"): the mode, or 0 if unknown. */
int nand_corrupt_mode_parse(const char *name);
/* Apply one damage.  0, or NAND_E_ADDR / NAND_E_INVAL with a message
 * naming the block and page in err (which may be NULL); a page that holds
 * nothing (erased) cannot take FLIP, BEYOND, UNCORRECTABLE, TEAR or
 * SILENT. */
int nand_corrupt(nand_dev *dev, const struct nand_corrupt *c, char *err,
                 size_t errlen);

/* ---- wear and statistics ------------------------------------------------- */
struct nand_block_info {
    uint64_t pe_cycles;       /* erases done, including initial_pe */
    uint64_t endurance;       /* this block's drawn endurance (scaled) */
    uint64_t reads_since_erase;
    uint32_t pages_programmed;/* highest programmed page + 1 */
    int factory_bad;
    int grown_bad;            /* a program/erase failed from wear */
    int marked_bad;           /* the bad-block marker is set */
    int erase_torn;           /* last erase was interrupted */
};
int nand_block_info(const nand_dev *dev, nand_block_t b,
                    struct nand_block_info *info);
/* Start a block at a given wear (for lifetime experiments). */
int nand_set_wear(nand_dev *dev, nand_block_t b, uint64_t pe_cycles);

struct nand_stats {
    uint64_t reads, programs, erases;    /* completed operations */
    uint64_t bytes_read, bytes_written;  /* over the bus */
    uint64_t bits_corrected;
    uint64_t ecc_failures;               /* uncorrectable codewords */
    uint64_t uncorrectable_reads;        /* reads returning NAND_E_ECC */
    uint64_t program_fails, erase_fails;
    uint64_t violations_not_erased, violations_order, violations_nop;
    uint64_t violations_addr;
    uint64_t power_cuts, torn_programs, torn_erases, paired_corruptions;
    uint64_t state_ops;                  /* programs+erases+mark-bads issued */
    uint64_t pages_stored;               /* programmed pages held */
    uint64_t bytes_stored;               /* page bytes held (after dedup and
                                          * compress) */
    nand_time_t busy_ns;                 /* sum of die busy time */
};
void nand_get_stats(const nand_dev *dev, struct nand_stats *st);
void nand_reset_stats(nand_dev *dev);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
