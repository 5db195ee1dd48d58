/*
 * layout.c -- the table of api/layout.h, filled by the compiler: sizeof,
 * _Alignof, offsetof and the kind and type of each member (_Generic), so it
 * cannot drift from the headers.  A struct added to a binding gets an entry
 * here; a member added to a struct listed here gets a line.
 */
#include "layout.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fsapi.h"
#include "fstypes.h"
#include "logfs/logfs.h"
#include "nand.h"
#include "results.h"

/* an lvalue of member m of struct T, never evaluated */
#define MEMBER(T, m) (((struct T *)0)->m)

#define KIND(e)                                                              \
    _Generic((e),                                                            \
        _Bool: FLASHLAB_KIND_INT, char: FLASHLAB_KIND_INT,                   \
        signed char: FLASHLAB_KIND_INT, unsigned char: FLASHLAB_KIND_INT,    \
        short: FLASHLAB_KIND_INT, unsigned short: FLASHLAB_KIND_INT,         \
        int: FLASHLAB_KIND_INT, unsigned: FLASHLAB_KIND_INT,                 \
        long: FLASHLAB_KIND_INT, unsigned long: FLASHLAB_KIND_INT,           \
        long long: FLASHLAB_KIND_INT, unsigned long long: FLASHLAB_KIND_INT, \
        float: FLASHLAB_KIND_FLOAT, double: FLASHLAB_KIND_FLOAT,             \
        long double: FLASHLAB_KIND_FLOAT,                                    \
        default: FLASHLAB_KIND_OTHER)

/* the exact type (layout.h's FLASHLAB_TYPE_*) of a scalar or pointer */
#define TYPE(e)                                                                \
    _Generic(&(e),                                                             \
        _Bool *: FLASHLAB_TYPE_BOOL, char *: FLASHLAB_TYPE_CHAR,               \
        signed char *: FLASHLAB_TYPE_SIGNED, unsigned char *: FLASHLAB_TYPE_UNSIGNED, \
        short *: FLASHLAB_TYPE_SIGNED, unsigned short *: FLASHLAB_TYPE_UNSIGNED, \
        int *: FLASHLAB_TYPE_SIGNED, unsigned *: FLASHLAB_TYPE_UNSIGNED,       \
        long *: FLASHLAB_TYPE_SIGNED, unsigned long *: FLASHLAB_TYPE_UNSIGNED, \
        long long *: FLASHLAB_TYPE_SIGNED,                                     \
        unsigned long long *: FLASHLAB_TYPE_UNSIGNED,                          \
        float *: FLASHLAB_TYPE_FLOAT, double *: FLASHLAB_TYPE_FLOAT,           \
        long double *: FLASHLAB_TYPE_FLOAT,                                    \
        char **: FLASHLAB_TYPE_STRING, const char **: FLASHLAB_TYPE_STRING,    \
        default: FLASHLAB_TYPE_POINTER)

#define FIELD(T, m, type, count, tag)                                            \
    { #m, (uint32_t)offsetof(struct T, m), (uint32_t)sizeof MEMBER(T, m),        \
      KIND(MEMBER(T, m)), (char)(type), (uint32_t)(count), tag }

/* A scalar or pointer member.  One that is a struct or an array does not
 * compile here (no `== 0` of a struct, no `=` of an array): it takes S()
 * or A(), which say what it is made of. */
#define F(T, m) \
    FIELD(T, m, TYPE(MEMBER(T, m)) + 0 * sizeof((MEMBER(T, m) = MEMBER(T, m)) == 0), 0, NULL)
/* A member of type struct tag (a distinct pointer type does not compile). */
#define S(T, m, tag) \
    FIELD(T, m, FLASHLAB_TYPE_STRUCT + 0 * sizeof(&MEMBER(T, m) == (struct tag *)0), 0, #tag)
/* A pointer to struct tag. */
#define SP(T, m, tag) \
    FIELD(T, m, FLASHLAB_TYPE_STRUCT_PTR + 0 * sizeof(MEMBER(T, m) == (const struct tag *)0), \
          0, #tag)
/* An array of scalars. */
#define A(T, m)                                                                 \
    FIELD(T, m, TYPE(MEMBER(T, m)[0]),                                          \
          sizeof MEMBER(T, m) / sizeof MEMBER(T, m)[0], NULL)

#define NFIELDS(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))
#define ENTRY(T) \
    { #T, (uint32_t)sizeof(struct T), (uint32_t)_Alignof(struct T), NFIELDS(fields_##T), fields_##T }

/* ---- sim/nand.h ---------------------------------------------------------- */

static const struct flashlab_field fields_nand_geometry[] = {
    F(nand_geometry, channels), F(nand_geometry, dies_per_channel),
    F(nand_geometry, planes_per_die), F(nand_geometry, blocks_per_plane),
    F(nand_geometry, pages_per_block), F(nand_geometry, page_size),
    F(nand_geometry, oob_size),
};

static const struct flashlab_field fields_nand_timing[] = {
    F(nand_timing, t_r_ns), F(nand_timing, t_r_upper_ns), F(nand_timing, t_prog_ns),
    F(nand_timing, t_prog_upper_ns), F(nand_timing, t_bers_ns), F(nand_timing, t_cycle_ns),
    F(nand_timing, bus_bytes), F(nand_timing, addr_cycles), F(nand_timing, whole_page_reads),
};

static const struct flashlab_field fields_nand_rber_model[] = {
    F(nand_rber_model, eps), F(nand_rber_model, alpha), F(nand_rber_model, k),
    F(nand_rber_model, beta), F(nand_rber_model, m), F(nand_rber_model, n),
    F(nand_rber_model, gamma), F(nand_rber_model, p), F(nand_rber_model, q),
};

static const struct flashlab_field fields_nand_ecc[] = {
    F(nand_ecc, codeword_bytes), F(nand_ecc, correct_bits),
};

static const struct flashlab_field fields_nand_config[] = {
    A(nand_config, name), S(nand_config, geo, nand_geometry), F(nand_config, cell),
    F(nand_config, nop), F(nand_config, pair_distance), S(nand_config, timing, nand_timing),
    F(nand_config, endurance), F(nand_config, endurance_sigma),
    F(nand_config, endurance_scale), F(nand_config, initial_pe),
    F(nand_config, factory_bad_fraction), S(nand_config, rber, nand_rber_model),
    S(nand_config, ecc, nand_ecc),
    F(nand_config, seed), F(nand_config, dedup), F(nand_config, compress),
    A(nand_config, source),
};

static const struct flashlab_field fields_nand_result[] = {
    F(nand_result, start), F(nand_result, done), F(nand_result, corrected_bits),
    F(nand_result, raw_bit_errors), F(nand_result, max_cw_bits),
};

static const struct flashlab_field fields_nand_op[] = {
    F(nand_op, kind), F(nand_op, block), F(nand_op, page), F(nand_op, data),
    F(nand_op, oob), F(nand_op, status), S(nand_op, res, nand_result),
};

static const struct flashlab_field fields_nand_block_info[] = {
    F(nand_block_info, pe_cycles), F(nand_block_info, endurance),
    F(nand_block_info, reads_since_erase), F(nand_block_info, pages_programmed),
    F(nand_block_info, factory_bad), F(nand_block_info, grown_bad),
    F(nand_block_info, marked_bad), F(nand_block_info, erase_torn),
};

static const struct flashlab_field fields_nand_corrupt[] = {
    F(nand_corrupt, mode), F(nand_corrupt, block), F(nand_corrupt, page),
    F(nand_corrupt, bits), F(nand_corrupt, offset), F(nand_corrupt, length),
    F(nand_corrupt, frac), F(nand_corrupt, age_ns), F(nand_corrupt, reads),
    F(nand_corrupt, all_blocks), F(nand_corrupt, seed),
};

static const struct flashlab_field fields_nand_stats[] = {
    F(nand_stats, reads), F(nand_stats, programs), F(nand_stats, erases),
    F(nand_stats, bytes_read), F(nand_stats, bytes_written),
    F(nand_stats, bits_corrected), F(nand_stats, ecc_failures),
    F(nand_stats, uncorrectable_reads), F(nand_stats, program_fails),
    F(nand_stats, erase_fails), F(nand_stats, violations_not_erased),
    F(nand_stats, violations_order), F(nand_stats, violations_nop),
    F(nand_stats, violations_addr), F(nand_stats, power_cuts),
    F(nand_stats, torn_programs), F(nand_stats, torn_erases),
    F(nand_stats, paired_corruptions), F(nand_stats, state_ops),
    F(nand_stats, pages_stored), F(nand_stats, bytes_stored), F(nand_stats, busy_ns),
};

/* ---- fs/fstypes.h, fs/fsapi.h, fs/logfs/logfs.h -------------------------- */

static const struct flashlab_field fields_fs_stat[] = {
    F(fs_stat, ino), F(fs_stat, mode), F(fs_stat, nlink), F(fs_stat, uid),
    F(fs_stat, gid), F(fs_stat, size), F(fs_stat, atime), F(fs_stat, mtime),
    F(fs_stat, ctime), F(fs_stat, rdev), F(fs_stat, blocks),
};

static const struct flashlab_field fields_fs_statfs[] = {
    F(fs_statfs, block_size), F(fs_statfs, total_bytes), F(fs_statfs, free_bytes),
    F(fs_statfs, files),
};

/* every member: a binding calls the entry points by name */
static const struct flashlab_field fields_fsapi[] = {
    F(fsapi, name), F(fsapi, summary), F(fsapi, features), F(fsapi, check_options),
    F(fsapi, option_help), F(fsapi, mkfs), F(fsapi, probe), F(fsapi, mount),
    F(fsapi, unmount), F(fsapi, sync), F(fsapi, open), F(fsapi, close), F(fsapi, pread),
    F(fsapi, pwrite), F(fsapi, ftruncate), F(fsapi, punch), F(fsapi, fsync), F(fsapi, stat),
    F(fsapi, lstat), F(fsapi, fstat), F(fsapi, mkdir), F(fsapi, mknod), F(fsapi, getxattr),
    F(fsapi, setxattr), F(fsapi, listxattr), F(fsapi, removexattr), F(fsapi, rmdir),
    F(fsapi, unlink), F(fsapi, rename), F(fsapi, link), F(fsapi, symlink),
    F(fsapi, readlink), F(fsapi, readdir), F(fsapi, statfs), F(fsapi, mem_bytes),
    F(fsapi, mount_work), F(fsapi, page_map), F(fsapi, page_classes), F(fsapi, stats),
    F(fsapi, latency), F(fsapi, reset_latency), F(fsapi, set_gc_observer), F(fsapi, idle),
    F(fsapi, scrub), F(fsapi, block_role), F(fsapi, chmod), F(fsapi, chown),
    F(fsapi, lchown), F(fsapi, utimens), F(fsapi, lutimens), F(fsapi, truncate),
    F(fsapi, getflags), F(fsapi, setflags),
    F(fsapi, format_check), F(fsapi, check_device), F(fsapi, rename2),
    F(fsapi, allocate),
};

static const struct flashlab_field fields_fsapi_counter[] = {
    F(fsapi_counter, name), F(fsapi_counter, value),
};

static const struct flashlab_field fields_logfs_options[] = {
    F(logfs_options, block_size), F(logfs_options, anchor_blocks),
    F(logfs_options, reserve_segments), F(logfs_options, cache_bytes),
    F(logfs_options, dirty_bytes), F(logfs_options, readonly),
    F(logfs_options, gc_policy), F(logfs_options, gc_window),
    F(logfs_options, gc_choices), F(logfs_options, gc_seed),
    F(logfs_options, gc_free_min), F(logfs_options, gc_separate),
    F(logfs_options, wear_leveling), F(logfs_options, wl_threshold),
    F(logfs_options, gc_idle_free), F(logfs_options, clock),
    F(logfs_options, clock_ctx), F(logfs_options, epoch_ns), F(logfs_options, scrub_threshold),
    F(logfs_options, compress),
    F(logfs_options, parallel), F(logfs_options, max_utilisation),
};

static const struct flashlab_field fields_logfs_stats[] = {
    F(logfs_stats, commits), F(logfs_stats, live_bytes), F(logfs_stats, mem_bytes),
    F(logfs_stats, cache_hits), F(logfs_stats, cache_misses), F(logfs_stats, next_ino),
    F(logfs_stats, relocations), F(logfs_stats, host_bytes), F(logfs_stats, pages_data),
    F(logfs_stats, pages_meta), F(logfs_stats, pages_anchor), F(logfs_stats, pages_gc),
    F(logfs_stats, erases), F(logfs_stats, gc_rounds), F(logfs_stats, gc_objects),
    F(logfs_stats, gc_bytes), F(logfs_stats, gc_time_ns), F(logfs_stats, wl_moves),
    F(logfs_stats, gc_fallbacks), F(logfs_stats, free_segments),
    F(logfs_stats, anchor_seq), F(logfs_stats, anchor_fallback), F(logfs_stats, gc_unreadable),
    F(logfs_stats, segfile_unreadable), F(logfs_stats, scrub_flagged),
    F(logfs_stats, scrub_reads), F(logfs_stats, scrub_segments), F(logfs_stats, scrub_pages),
    F(logfs_stats, data_raw_bytes),
    F(logfs_stats, data_stored_bytes), F(logfs_stats, compress),
    F(logfs_stats, scrub_super), F(logfs_stats, scrub_anchor),
    F(logfs_stats, anchor_bad), F(logfs_stats, anchor_left), F(logfs_stats, cleanable_bytes),
    F(logfs_stats, cleanable_segments), F(logfs_stats, data_overhead_ppm),
};

static const struct flashlab_field fields_fs_latency[] = {
    F(fs_latency, count), F(fs_latency, p50_ns), F(fs_latency, p99_ns),
    F(fs_latency, p999_ns), F(fs_latency, max_ns), F(fs_latency, mean_ns),
};

/* ---- analysis/results.h ------------------------------------------------- */

static const struct flashlab_field fields_results_sample[] = {
    F(results_sample, seq), F(results_sample, sim_time_ns), F(results_sample, host_bytes),
    F(results_sample, flash_bytes_programmed), F(results_sample, data_pages),
    F(results_sample, meta_pages), F(results_sample, anchor_pages),
    F(results_sample, gc_pages), F(results_sample, erases), F(results_sample, wa),
    F(results_sample, free_segments), F(results_sample, gc_time_ns),
    F(results_sample, gc_invocations), F(results_sample, wa_interval),
    F(results_sample, wa_total_interval), F(results_sample, utilisation),
};

static const struct flashlab_field fields_results_mount[] = {
    F(results_mount, fs_kind), F(results_mount, device_bytes),
    F(results_mount, fill_fraction), F(results_mount, clean),
    F(results_mount, sim_latency_ns), F(results_mount, flash_time_ns),
    F(results_mount, cpu_time_ns), F(results_mount, pages_read),
    F(results_mount, bytes_read), F(results_mount, ram_bytes), F(results_mount, wall_ns),
};

static const struct flashlab_field fields_results_latency[] = {
    F(results_latency, op), F(results_latency, count), F(results_latency, p50_ns),
    F(results_latency, p99_ns), F(results_latency, p999_ns), F(results_latency, max_ns),
    F(results_latency, mean_ns),
};

static const struct flashlab_field fields_results_fault[] = {
    F(results_fault, point), F(results_fault, fault), F(results_fault, class_name),
    F(results_fault, block), F(results_fault, page), F(results_fault, outcome),
    F(results_fault, mounted), F(results_fault, state), F(results_fault, rolled_back),
    F(results_fault, flagged), F(results_fault, files), F(results_fault, files_eio),
    F(results_fault, files_wrong), F(results_fault, files_missing), F(results_fault, crashed),
    F(results_fault, fsck), F(results_fault, after_write), F(results_fault, detail),
};

/* ---- this table itself (a binding reads it through these) --------------- */

static const struct flashlab_field fields_flashlab_field[] = {
    F(flashlab_field, name), F(flashlab_field, offset), F(flashlab_field, size),
    F(flashlab_field, kind), F(flashlab_field, type), F(flashlab_field, count),
    F(flashlab_field, tag),
};

static const struct flashlab_field fields_flashlab_struct[] = {
    F(flashlab_struct, name), F(flashlab_struct, size), F(flashlab_struct, align),
    F(flashlab_struct, nfields), SP(flashlab_struct, fields, flashlab_field),
};

static const struct flashlab_field fields_flashlab_enum[] = {
    F(flashlab_enum, name), F(flashlab_enum, value),
};

static const struct flashlab_struct structs[] = {
    ENTRY(nand_geometry), ENTRY(nand_timing), ENTRY(nand_rber_model), ENTRY(nand_ecc),
    ENTRY(nand_config), ENTRY(nand_result), ENTRY(nand_op), ENTRY(nand_block_info),
    ENTRY(nand_stats), ENTRY(nand_corrupt),
    ENTRY(fs_stat), ENTRY(fs_statfs), ENTRY(fsapi), ENTRY(fsapi_counter),
    ENTRY(logfs_options), ENTRY(logfs_stats), ENTRY(fs_latency),
    ENTRY(results_sample), ENTRY(results_mount), ENTRY(results_latency),
    ENTRY(results_fault),
    ENTRY(flashlab_field), ENTRY(flashlab_struct), ENTRY(flashlab_enum),
};

/* ---- constants ------------------------------------------------------------ */

#define E(name) { #name, (int64_t)(name) }

static const struct flashlab_enum enums[] = {
    /* sim/nand.h */
    E(NAND_OK), E(NAND_E_INVAL), E(NAND_E_ADDR), E(NAND_E_NOT_ERASED), E(NAND_E_ORDER),
    E(NAND_E_NOP), E(NAND_E_PROGRAM_FAIL), E(NAND_E_ERASE_FAIL), E(NAND_E_ECC),
    E(NAND_E_POWER), E(NAND_E_NOMEM), E(NAND_E_IO), E(NAND_E_CORRUPT), E(NAND_E_BUSY),
    E(NAND_E_LOCKED),
    E(NAND_SLC), E(NAND_MLC), E(NAND_TLC),
    E(NAND_OP_READ), E(NAND_OP_PROGRAM), E(NAND_OP_ERASE),
    E(NAND_CORRUPT_FLIP), E(NAND_CORRUPT_BEYOND), E(NAND_CORRUPT_UNCORRECTABLE),
    E(NAND_CORRUPT_WIPE), E(NAND_CORRUPT_TEAR), E(NAND_CORRUPT_BAD),
    E(NAND_CORRUPT_AGE), E(NAND_CORRUPT_SILENT),
    /* fs/logfs/logfs.h */
    E(LOGFS_WL_DYNAMIC), E(LOGFS_WL_NONE), E(LOGFS_WL_STATIC),
    E(LOGFS_COMPRESS_NONE), E(LOGFS_COMPRESS_ZLIB), E(LOGFS_COMPRESS_LZO),
    E(LOGFS_OP_READ), E(LOGFS_OP_WRITE), E(LOGFS_OP_SYNC), E(LOGFS_OP_META),
    E(LOGFS_OP_KINDS), E(LOGFS_TIME_NOW), E(LOGFS_TIME_OMIT),
    /* fs/fstypes.h, fs/fsapi.h */
    E(FS_OP_READ), E(FS_OP_WRITE), E(FS_OP_SYNC), E(FS_OP_META), E(FS_OP_KINDS),
    E(FS_TIME_NOW), E(FS_TIME_OMIT), E(FSAPI_COUNTERS_MAX),
    E(FS_FL_SYNC), E(FS_FL_IMMUTABLE), E(FS_FL_APPEND), E(FS_FL_NODUMP), E(FS_FL_NOATIME),
    E(FSAPI_F_SPECIAL_FILES), E(FSAPI_F_XATTR), E(FSAPI_F_COMPRESS), E(FSAPI_F_FSCK),
    E(FSAPI_F_ATTRS), E(FSAPI_F_FAULT_SAFE),
    /* analysis/results.h */
    E(RESULTS_RUNNING), E(RESULTS_COMPLETE), E(RESULTS_FAILED), E(RESULTS_INCOMPLETE),
    E(RESULTS_SCHEMA_VERSION),
    /* the host's values, which the file systems take as they are */
    E(O_RDONLY), E(O_WRONLY), E(O_RDWR), E(O_ACCMODE), E(O_CREAT), E(O_EXCL),
    E(O_TRUNC), E(O_APPEND), E(O_NOFOLLOW), E(O_DIRECTORY),
    E(SEEK_SET), E(SEEK_CUR), E(SEEK_END),
    E(S_IFMT), E(S_IFREG), E(S_IFDIR), E(S_IFLNK),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int flashlab_layout_version(void)
{
    return FLASHLAB_LAYOUT_VERSION;
}

const struct flashlab_struct *flashlab_layout(size_t i)
{
    return i < COUNT(structs) ? &structs[i] : NULL;
}

const struct flashlab_struct *flashlab_layout_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT(structs); i++)
        if (!strcmp(structs[i].name, name))
            return &structs[i];
    return NULL;
}

const struct flashlab_field *flashlab_layout_field(const struct flashlab_struct *s,
                                                   const char *name)
{
    for (uint32_t i = 0; s && name && i < s->nfields; i++)
        if (!strcmp(s->fields[i].name, name))
            return &s->fields[i];
    return NULL;
}

const struct flashlab_enum *flashlab_enum_at(size_t i)
{
    return i < COUNT(enums) ? &enums[i] : NULL;
}

const struct flashlab_enum *flashlab_enum_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT(enums); i++)
        if (!strcmp(enums[i].name, name))
            return &enums[i];
    return NULL;
}
