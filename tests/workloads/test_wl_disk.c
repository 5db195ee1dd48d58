/*
 * test_wl_disk.c -- workloads on a block device (the FTL's one file,
 * /disk: FSAPI_F_ONE_FILE): block kinds address the first working_set of
 * the logical space, fill is sequential preconditioning (none at 0), and
 * a block trace's disk N lands at N x trace_disk_bytes, a disk past the
 * end being an error that names it.
 */
#include "fsapi.h"
#include "fixture.h"
#include "workload.h"

#include <errno.h>

static nand_dev *ftl_dev(struct fsapi_fs *m)
{
    nand_dev *n = FX_DEVICE(.blocks = 128, .pages = 16, .page_size = 4096, .quiet = 1, .seed = 1);
    m->api = fsapi_find("ftl");
    if (!n || m->api->mkfs(n, "op=0.2") || m->api->mount(n, NULL, &m->fs)) {
        nand_close(n);
        return NULL;
    }
    return n;
}

static uint64_t disk_size(const struct fsapi_fs *m)
{
    struct fs_stat st;
    return m->api->stat(m->fs, "/disk", &st) ? 0 : st.size;
}

TEST(uniform_working_set_and_fill)
{
    struct fsapi_fs m;
    nand_dev *n = ftl_dev(&m);
    REQUIRE(n);
    uint64_t size = disk_size(&m);
    double fills[] = {0, 0.25};
    for (int k = 0; k < 2; k++) {
        struct wl_spec s;
        REQUIRE(wl_spec_init(&s, "uniform") == 0);
        s.working_set = 0.5;
        s.fill = fills[k];
        struct workload *w;
        char err[256];
        REQUIRE(workload_create(&s, 3, &m, &w, err, sizeof err) == 0);
        struct trace_rec op;
        uint64_t setup_end = 0, max_end = 0, setup_ops = 0;
        int wrong_path = 0;
        for (int i = 0; i < 3000; i++) {
            REQUIRE(workload_next(w, &op, err, sizeof err) == 1);
            wrong_path += op.path && strcmp(op.path, "/disk") != 0;
            if (workload_in_setup(w)) {
                setup_ops++;
                if (op.op == TRACE_WRITE) {
                    CHECK_EQ_INT(op.offset, setup_end); /* sequential */
                    setup_end = op.offset + op.length;
                }
            } else if (op.op == TRACE_WRITE) {
                max_end = op.offset + op.length > max_end ? op.offset + op.length : max_end;
            }
        }
        CHECK_EQ_INT(wrong_path, 0);
        if (k == 0)
            CHECK_EQ_INT(setup_ops, 0);
        else
            CHECK_EQ_INT(setup_end, (uint64_t)(0.25 * (double)size) / 4096 * 4096);
        CHECK(max_end <= size / 2);
        CHECK(max_end > size / 2 - size / 50);
        workload_free(w);
    }
    struct wl_spec s;
    REQUIRE(wl_spec_init(&s, "uniform") == 0);
    s.files = 2;
    struct workload *w;
    char err[256];
    CHECK_EQ_INT(workload_create(&s, 3, &m, &w, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "/disk") != NULL);
    m.api->unmount(m.fs);
    nand_close(n);
}

TEST(msr_disks_at_their_offsets)
{
    REQUIRE(tmp_dir_make("wldisk") == 0);
    const char *path = tmp_write("t.csv",
        "128166372000085890,web,0,Write,8192,4096,1\n"
        "128166372000085891,web,1,Write,4096,4096,1\n"
        "128166372000085892,web,1,Read,4096,4096,1\n"
        "128166372000085893,web,9,Write,0,4096,1\n");
    REQUIRE(path);
    struct fsapi_fs m;
    nand_dev *n = ftl_dev(&m);
    REQUIRE(n);
    struct wl_spec s;
    REQUIRE(wl_spec_init(&s, "trace") == 0);
    snprintf(s.trace_path, sizeof s.trace_path, "%s", path);
    s.trace_format = TRACE_MSR;
    s.trace_disk_bytes = 1 << 20;
    s.fill = 0;
    struct workload *w;
    char err[256];
    REQUIRE(workload_create(&s, 1, &m, &w, err, sizeof err) == 0);
    struct trace_rec op;
    uint64_t want[] = {8192, (1 << 20) + 4096, (1 << 20) + 4096};
    for (int i = 0; i < 3; i++) {
        REQUIRE(workload_next(w, &op, err, sizeof err) == 1);
        CHECK(!workload_in_setup(w));
        CHECK(op.path && !strcmp(op.path, "/disk"));
        CHECK_EQ_INT(op.offset, want[i]);
    }
    CHECK(disk_size(&m) < 10u << 20); /* so disk 9 ends past /disk */
    CHECK_EQ_INT(workload_next(w, &op, err, sizeof err), -ENOSPC);
    CHECK(strstr(err, "disk 9") != NULL);
    workload_free(w);
    m.api->unmount(m.fs);
    nand_close(n);
    tmp_dir_remove();
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(uniform_working_set_and_fill);
    RUN(msr_disks_at_their_offsets);
    return test_summary(argv[0]);
}
