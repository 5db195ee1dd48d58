/*
 * harness.h -- flashlab's fuzz targets, callable without libFuzzer.
 *
 * Each target is one function taking an input and its size; it returns 0
 * (the input was processed, whether the code under test accepted it or
 * not) and aborts, after printing why, when it finds a broken invariant.
 * Crashes and sanitizer reports are found by the sanitizers themselves.
 *
 * fuzz/libfuzzer_main.c wraps one target (chosen with -DFUZZ_TARGET) into
 * LLVMFuzzerTestOneInput; tests/workloads/test_fuzz_regress.c replays the committed
 * corpora and regressions through the same functions.  See fuzz/README.md.
 */
#ifndef FLASHLAB_FUZZ_HARNESS_H
#define FLASHLAB_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* A device description (a file of configs/devices/) through nand_config_load;
 * an accepted one must give a usable device. */
int fuzz_device_yaml(const uint8_t *data, size_t size);
/* An experiment (a YAML file of configs/) through experiment_load and
 * experiment_run.  Device files it names resolve from the working
 * directory: run from the repository root. */
int fuzz_experiment_yaml(const uint8_t *data, size_t size);
/* A trace: byte 0 picks the format and the reader's options, the rest is
 * the trace.  Every record is read and checked; fs-op traces must survive
 * a write/read round trip byte for byte. */
int fuzz_trace(const uint8_t *data, size_t size);
/* A LogFS image built once (fuzz_mount_init), damaged as the input says
 * (a flag byte, then 6-byte mutation records), then mounted read-only and
 * read-write, walked, written to, cleaned and unmounted. */
int fuzz_mount_init(void);
int fuzz_mount(const uint8_t *data, size_t size);
/* A device image file (nand_save's format) through nand_open; the
 * trailing checksum is recomputed first so that the body gets parsed. */
int fuzz_image(const uint8_t *data, size_t size);
/* A nanddump (byte 0 even) or raw (odd) page dump, the rest of the input,
 * through nand_import into a tiny device; an accepted one must export
 * back as itself. */
int fuzz_import(const uint8_t *data, size_t size);
/* A flag byte, then IMAGE.journal for a small image made once
 * (fuzz_journal_init), through nand_open; the header is made to name the
 * image and (flag bit 0 clear) the record CRCs are recomputed. */
int fuzz_journal_init(void);
int fuzz_journal(const uint8_t *data, size_t size);
/* A foreign JFFS2 image: a flag byte, then chunks placed on a tiny device,
 * mounted with a JFFS2 kind, walked, read and (by flag) written to. */
int fuzz_jffs2(const uint8_t *data, size_t size);

struct fuzz_target {
    const char *name;      /* fuzz/corpus/<name>/, build/fuzz/fuzz_<name> */
    int (*init)(void);     /* once before the first input, or NULL */
    int (*run)(const uint8_t *data, size_t size);
};
extern const struct fuzz_target fuzz_targets[];
extern const size_t fuzz_ntargets;
const struct fuzz_target *fuzz_target_find(const char *name);

/* ---- helpers (fuzz/fuzz_util.c) ---------------------------------------- */

/* The input as a file the loaders can open by name: one memfd (or, where
 * there is none, one unlinked-at-exit temporary file) per slot, rewritten
 * on each call.  Returns its path, valid until the next call for that
 * slot, or NULL.  FUZZ_FILE_IN_DIR is a file alone in a private temporary
 * directory (removed at exit), for loaders that resolve names relative to
 * the file's directory: next to a memfd those would be /proc/self/fd/N,
 * the process's own descriptors. */
enum { FUZZ_FILE_INPUT, FUZZ_FILE_AUX, FUZZ_FILE_IN_DIR, FUZZ_FILE_SLOTS };
const char *fuzz_file(int slot, const void *data, size_t size);

/* Print "fuzz: <harness>: <message>" to stderr and abort: a harness found
 * an invariant broken. */
__attribute__((noreturn, format(printf, 2, 3)))
void fuzz_fail(const char *harness, const char *fmt, ...);

/* Whether FLASHLAB_FUZZ_VERBOSE is set: print what the code under test said. */
int fuzz_verbose(void);
/* Whether FLASHLAB_FUZZ_SKIP_KNOWN is set: the targets step around the
 * open bugs of fuzz/regressions/ that they would otherwise hit at once, so
 * that fuzzing gets past them (README.md says which). */
int fuzz_skip_known(void);

#endif
