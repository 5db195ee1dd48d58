/*
 * test_layout.c -- api/layout.h: the table the library reports of its
 * structs and constants agrees with what this compiler sees in the headers,
 * and its look-ups find what they should (and nothing else).
 */
#include <fcntl.h>
#include <string.h>

#include "fsapi.h"
#include "layout.h"
#include "logfs/logfs.h"
#include "nand.h"
#include "results.h"
#include "fixture.h"

TEST(version)
{
    CHECK_EQ_INT(flashlab_layout_version(), FLASHLAB_LAYOUT_VERSION);
}

TEST(struct_sizes)
{
    const struct flashlab_struct *s = flashlab_layout_find("nand_config");
    REQUIRE(s != NULL);
    CHECK_EQ_INT(s->size, sizeof(struct nand_config));
    CHECK_EQ_INT(s->align, _Alignof(struct nand_config));
    CHECK_EQ_INT(s->nfields, 17);
    REQUIRE((s = flashlab_layout_find("nand_stats")) != NULL);
    CHECK_EQ_INT(s->size, sizeof(struct nand_stats));
    CHECK_EQ_INT(s->nfields, sizeof(struct nand_stats) / sizeof(uint64_t));
    REQUIRE((s = flashlab_layout_find("fs_stat")) != NULL);
    CHECK_EQ_INT(s->size, sizeof(struct fs_stat));
    REQUIRE((s = flashlab_layout_find("results_mount")) != NULL);
    CHECK_EQ_INT(s->size, sizeof(struct results_mount));
    /* fsapi: every member, to the last (every_entry_is_consistent finds a
     * pointer member left out of api/layout.c by the hole it leaves) */
    REQUIRE((s = flashlab_layout_find("fsapi")) != NULL);
    CHECK_EQ_INT(s->size, sizeof(struct fsapi));
    REQUIRE(flashlab_layout_field(s, "readdir") != NULL);
    CHECK_EQ_INT(flashlab_layout_field(s, "readdir")->offset, offsetof(struct fsapi, readdir));
    REQUIRE(flashlab_layout_field(s, "stats") != NULL);
    CHECK_EQ_INT(flashlab_layout_field(s, "stats")->offset, offsetof(struct fsapi, stats));
    CHECK(!strcmp(s->fields[s->nfields - 1].name, "allocate"));
    CHECK_EQ_INT(s->fields[s->nfields - 1].offset, offsetof(struct fsapi, allocate));
    CHECK(flashlab_layout_find("no_such_struct") == NULL);
    CHECK(flashlab_layout_find(NULL) == NULL);
}

TEST(field_offsets_sizes_kinds)
{
    const struct flashlab_struct *s = flashlab_layout_find("nand_config");
    REQUIRE(s != NULL);
    const struct flashlab_field *f = flashlab_layout_field(s, "rber");
    REQUIRE(f != NULL);
    CHECK_EQ_INT(f->offset, offsetof(struct nand_config, rber));
    CHECK_EQ_INT(f->size, sizeof(struct nand_rber_model));
    CHECK_EQ_INT(f->kind, FLASHLAB_KIND_OTHER);
    REQUIRE((f = flashlab_layout_field(s, "name")) != NULL);
    CHECK_EQ_INT(f->offset, 0);
    CHECK_EQ_INT(f->size, 64);
    CHECK_EQ_INT(f->kind, FLASHLAB_KIND_OTHER);
    REQUIRE((f = flashlab_layout_field(s, "cell")) != NULL); /* an enum */
    CHECK_EQ_INT(f->kind, FLASHLAB_KIND_INT);
    CHECK_EQ_INT(f->size, sizeof(enum nand_cell));
    REQUIRE((f = flashlab_layout_field(s, "endurance_sigma")) != NULL);
    CHECK_EQ_INT(f->kind, FLASHLAB_KIND_FLOAT);
    CHECK(flashlab_layout_field(s, "no_such_field") == NULL);
    REQUIRE((s = flashlab_layout_find("logfs_options")) != NULL);
    REQUIRE((f = flashlab_layout_field(s, "gc_policy")) != NULL);
    CHECK_EQ_INT(f->offset, offsetof(struct logfs_options, gc_policy));
    CHECK_EQ_INT(f->size, sizeof(const char *));
    CHECK_EQ_INT(f->kind, FLASHLAB_KIND_OTHER);
}

/* what a binding builds a member from: the exact type, an array's count,
 * the tag of a nested struct or of the struct a pointer points to */
TEST(field_types)
{
    const struct flashlab_struct *s = flashlab_layout_find("nand_config");
    REQUIRE(s != NULL);
    const struct flashlab_field *f = flashlab_layout_field(s, "name");
    REQUIRE(f != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_CHAR);
    CHECK_EQ_INT(f->count, sizeof(((struct nand_config *)0)->name));
    CHECK(f->tag == NULL);
    REQUIRE((f = flashlab_layout_field(s, "geo")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_STRUCT);
    CHECK_EQ_INT(f->count, 0);
    REQUIRE(f->tag != NULL);
    CHECK(!strcmp(f->tag, "nand_geometry"));
    REQUIRE((f = flashlab_layout_field(s, "cell")) != NULL); /* an enum: either */
    CHECK(f->type == FLASHLAB_TYPE_SIGNED || f->type == FLASHLAB_TYPE_UNSIGNED);
    REQUIRE((f = flashlab_layout_field(s, "endurance_sigma")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_FLOAT);
    REQUIRE((f = flashlab_layout_field(s, "seed")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_UNSIGNED);
    REQUIRE((s = flashlab_layout_find("fs_stat")) != NULL);
    REQUIRE((f = flashlab_layout_field(s, "mtime")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_SIGNED);
    REQUIRE((s = flashlab_layout_find("logfs_options")) != NULL);
    REQUIRE((f = flashlab_layout_field(s, "gc_policy")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_STRING);
    REQUIRE((f = flashlab_layout_field(s, "clock")) != NULL); /* a function pointer */
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_POINTER);
    REQUIRE((s = flashlab_layout_find("flashlab_struct")) != NULL);
    REQUIRE((f = flashlab_layout_field(s, "fields")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_STRUCT_PTR);
    REQUIRE(f->tag != NULL);
    CHECK(!strcmp(f->tag, "flashlab_field"));
    REQUIRE((s = flashlab_layout_find("fsapi")) != NULL);
    REQUIRE((f = flashlab_layout_field(s, "page_classes")) != NULL);
    CHECK_EQ_INT(f->type, FLASHLAB_TYPE_POINTER);
}

/* every entry: fields in increasing order of offset, inside the struct,
 * not overlapping, with no hole padding cannot explain (a member left out
 * of the table); the size a multiple of the alignment */
TEST(every_entry_is_consistent)
{
    size_t n = 0;
    for (const struct flashlab_struct *s; (s = flashlab_layout(n)) != NULL; n++) {
        CHECK(s->name && *s->name);
        CHECK(s->nfields > 0 && s->fields != NULL);
        CHECK(s->align > 0 && s->size % s->align == 0);
        CHECK(flashlab_layout_find(s->name) == s);
        uint32_t end = 0;
        for (uint32_t i = 0; i < s->nfields; i++) {
            const struct flashlab_field *f = &s->fields[i];
            if (f->offset < end || f->offset + f->size > s->size || !f->size)
                fprintf(stderr, "  %s.%s: offset %u size %u\n", s->name, f->name,
                        (unsigned)f->offset, (unsigned)f->size);
            CHECK(f->offset >= end && f->offset + f->size <= s->size && f->size > 0);
            if (f->offset - end >= s->align)
                fprintf(stderr, "  %s: a hole of %u bytes before %s\n", s->name,
                        (unsigned)(f->offset - end), f->name);
            CHECK(f->offset - end < s->align);
            CHECK(f->kind == FLASHLAB_KIND_INT || f->kind == FLASHLAB_KIND_FLOAT ||
                  f->kind == FLASHLAB_KIND_OTHER);
            /* the type agrees with the kind, the size and the tag */
            uint32_t cnt = f->count ? f->count : 1, elem = f->size / cnt;
            CHECK(f->size % cnt == 0);
            int scalar = 0;
            const struct flashlab_struct *t = NULL;
            switch (f->type) {
            case FLASHLAB_TYPE_SIGNED: case FLASHLAB_TYPE_UNSIGNED:
            case FLASHLAB_TYPE_BOOL: case FLASHLAB_TYPE_CHAR:
                CHECK(elem == 1 || elem == 2 || elem == 4 || elem == 8);
                scalar = FLASHLAB_KIND_INT;
                break;
            case FLASHLAB_TYPE_FLOAT:
                CHECK(elem == sizeof(float) || elem == sizeof(double) ||
                      elem == sizeof(long double));
                scalar = FLASHLAB_KIND_FLOAT;
                break;
            case FLASHLAB_TYPE_STRING: case FLASHLAB_TYPE_POINTER:
                CHECK_EQ_INT(elem, sizeof(void *));
                break;
            case FLASHLAB_TYPE_STRUCT: case FLASHLAB_TYPE_STRUCT_PTR:
                REQUIRE(f->tag != NULL);
                t = flashlab_layout_find(f->tag);
                CHECK(t != NULL);
                if (t && f->type == FLASHLAB_TYPE_STRUCT)
                    CHECK_EQ_INT(elem, t->size);
                else
                    CHECK_EQ_INT(elem, sizeof(void *));
                break;
            default:
                fprintf(stderr, "  %s.%s: type %d\n", s->name, f->name, f->type);
                CHECK(0);
            }
            CHECK((f->tag != NULL) ==
                  (f->type == FLASHLAB_TYPE_STRUCT || f->type == FLASHLAB_TYPE_STRUCT_PTR));
            CHECK_EQ_INT(f->kind, scalar && !f->count ? scalar : FLASHLAB_KIND_OTHER);
            end = f->offset + f->size;
        }
        CHECK(s->size - end < s->align);
    }
    CHECK(n >= 18);
}

TEST(constants)
{
    const struct flashlab_enum *e = flashlab_enum_find("NAND_E_ECC");
    REQUIRE(e != NULL);
    CHECK_EQ_INT(e->value, NAND_E_ECC);
    REQUIRE((e = flashlab_enum_find("LOGFS_OP_KINDS")) != NULL);
    CHECK_EQ_INT(e->value, LOGFS_OP_KINDS);
    REQUIRE((e = flashlab_enum_find("RESULTS_INCOMPLETE")) != NULL);
    CHECK_EQ_INT(e->value, RESULTS_INCOMPLETE);
    REQUIRE((e = flashlab_enum_find("O_CREAT")) != NULL);
    CHECK_EQ_INT(e->value, O_CREAT);
    CHECK(flashlab_enum_find("NO_SUCH_CONSTANT") == NULL);
    size_t n = 0;
    for (; flashlab_enum_at(n); n++)
        CHECK(flashlab_enum_find(flashlab_enum_at(n)->name) == flashlab_enum_at(n));
    CHECK(n > 30);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(version);
    RUN(struct_sizes);
    RUN(field_offsets_sizes_kinds);
    RUN(field_types);
    RUN(every_entry_is_consistent);
    RUN(constants);
    return test_summary(argv[0]);
}
