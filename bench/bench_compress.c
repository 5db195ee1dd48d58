/*
 * bench_compress.c -- the CPU cost of LogFS's data-block compression
 * (docs/compression.md): 16 MiB of the workloads' payloads with 0, 50
 * and 90% compressible (wl_exec_payload, as an experiment writes them),
 * compressed 4 KiB block by block with zlib and lzo as a commit does
 * (lfs_compress), and the compressed blocks decompressed as a read does
 * (lfs_decompress).  Prints the ratio and the CPU milliseconds per MiB of
 * data each way; rows to results/bench.csv.
 */
#include "bench_util.h"
#include "logfs/format.h"
#include "fsapi.h"
#include "workload.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL (16u << 20)
#define BS 4096u

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    struct fsapi_fs none = {&fsapi_logfs, NULL}; /* payloads only: no fs */
    struct wl_exec *x;
    uint8_t *data = malloc(TOTAL), *packed = malloc((size_t)TOTAL / BS * LFS_COMPR_BOUND(BS));
    uint32_t *len = malloc(TOTAL / BS * sizeof *len);
    uint8_t back[BS];
    if (!data || !packed || !len || wl_exec_create(&none, &x))
        return 1;
    static const double shares[] = {0, 0.5, 0.9};
    static const unsigned methods[] = {LFS_COMPR_ZLIB, LFS_COMPR_LZO};
    printf("%-6s %-6s %8s %14s %14s\n", "method", "share", "ratio", "compress ms/MiB",
           "decompress ms/MiB");
    for (unsigned s = 0; s < 3; s++) {
        wl_exec_set_compressible(x, shares[s]);
        for (uint64_t off = 0; off < TOTAL; off += 1u << 20)
            wl_exec_payload(x, 1 + off / BS, off, data + off, 1u << 20);
        for (unsigned m = 0; m < 2; m++) {
            uint64_t stored = 0;
            struct lfs_packer *pk = lfs_packer_new(methods[m]);
            if (!pk)
                return 1;
            double t0 = cpu();
            for (uint32_t b = 0; b < TOTAL / BS; b++) {
                uint8_t *out = packed + (size_t)b * LFS_COMPR_BOUND(BS);
                len[b] = lfs_compress(pk, data + (size_t)b * BS, BS, out,
                                      LFS_COMPR_BOUND(BS));
                stored += len[b] ? len[b] : BS;
            }
            double t1 = cpu();
            lfs_packer_free(pk);
            int bad = 0;
            for (uint32_t b = 0; b < TOTAL / BS; b++)
                if (len[b])
                    bad |= lfs_decompress(methods[m], packed + (size_t)b * LFS_COMPR_BOUND(BS),
                                          len[b], back, BS) ||
                           memcmp(back, data + (size_t)b * BS, BS);
            double t2 = cpu(), mib = TOTAL / 1048576.0;
            const char *name = lfs_compr_name(methods[m]);
            printf("%-6s %-6.1f %8.3f %14.2f %14.2f%s\n", name, shares[s],
                   (double)stored / TOTAL, (t1 - t0) * 1e3 / mib, (t2 - t1) * 1e3 / mib,
                   bad ? "  MISMATCH" : "");
            char key[64];
            snprintf(key, sizeof key, "compress_%s_%.0f_ms_per_mib", name, shares[s] * 100);
            record(key, (t1 - t0) * 1e3 / mib, "ms/MiB");
            snprintf(key, sizeof key, "decompress_%s_%.0f_ms_per_mib", name, shares[s] * 100);
            record(key, (t2 - t1) * 1e3 / mib, "ms/MiB");
            if (bad)
                return 1;
        }
    }
    wl_exec_free(x);
    free(data);
    free(packed);
    free(len);
    return 0;
}
