/*
 * yaml_config.c -- load a device description (configs/devices/, schema in
 * docs/devices.md) into a struct nand_config.
 *
 * The file is read whole (at most MAX_FILE_BYTES) and pulled through
 * libyaml's event parser: one document whose root is a mapping.  Keys are
 * looked up in tables of descriptors (name, type, offset into struct
 * nand_config); a nested mapping has its own table.  Values fill a private
 * copy that starts from nand_config_init and goes through
 * nand_config_finish, so the caller's struct changes only on success.
 *
 * Errors are "PATH:LINE:COL: message" (1-based, from libyaml's marks) for
 * anything found in the text, "PATH: message" for the file itself and for
 * what nand_config_finish rejects.  The schema is two levels deep, so a
 * value nested deeper is an error the moment it starts: neither memory nor
 * recursion grows with the input.
 */
#include "nand.h"
#include "suggest.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_FILE_BYTES (1u << 20) /* a device file is a few KiB */
#define MAX_KEYS 20               /* entries of the largest table */
#define SHOW_MAX 40               /* bytes of an offending value shown */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ---- the schema -------------------------------------------------------- */

enum ktype { K_U32, K_U64, K_F64, K_BOOL, K_CELL, K_NAME, K_MAP };

struct key {
    const char *name;
    enum ktype type;
    size_t off;            /* of the field in struct nand_config */
    const struct key *sub; /* K_MAP: the nested table */
};

/* offsetof(struct nand_config, f); does not compile unless f has type T. */
#define OFF(f, T)                                                            \
    (offsetof(struct nand_config, f) +                                      \
     0 * sizeof(char[_Generic(((struct nand_config *)0)->f, T: 1, default: -1)]))

#define U32(n, f) { n, K_U32, OFF(f, uint32_t), NULL }
#define U64(n, f) { n, K_U64, OFF(f, uint64_t), NULL }
#define F64(n, f) { n, K_F64, OFF(f, double), NULL }
#define MAP(n, t) { n, K_MAP, 0, t }
#define END { NULL, K_MAP, 0, NULL }

static const struct key geometry_keys[] = {
    U32("channels", geo.channels),
    U32("dies_per_channel", geo.dies_per_channel),
    U32("planes_per_die", geo.planes_per_die),
    U32("blocks_per_plane", geo.blocks_per_plane),
    U32("pages_per_block", geo.pages_per_block),
    U32("page_size", geo.page_size),
    U32("oob_size", geo.oob_size),
    END,
};

static const struct key timing_keys[] = {
    U64("t_r_ns", timing.t_r_ns),
    U64("t_r_upper_ns", timing.t_r_upper_ns),
    U64("t_prog_ns", timing.t_prog_ns),
    U64("t_prog_upper_ns", timing.t_prog_upper_ns),
    U64("t_bers_ns", timing.t_bers_ns),
    U64("t_cycle_ns", timing.t_cycle_ns),
    U32("bus_bytes", timing.bus_bytes),
    U32("addr_cycles", timing.addr_cycles),
    { "whole_page_reads", K_BOOL, OFF(timing.whole_page_reads, int), NULL },
    END,
};

static const struct key rber_keys[] = {
    F64("eps", rber.eps),     F64("alpha", rber.alpha), F64("k", rber.k),
    F64("beta", rber.beta),   F64("m", rber.m),         F64("n", rber.n),
    F64("gamma", rber.gamma), F64("p", rber.p),         F64("q", rber.q),
    END,
};

static const struct key ecc_keys[] = {
    U32("codeword_bytes", ecc.codeword_bytes),
    U32("correct_bits", ecc.correct_bits),
    END,
};

static const struct key top_keys[] = {
    { "name", K_NAME, offsetof(struct nand_config, name), NULL },
    { "source", K_NAME, offsetof(struct nand_config, source), NULL },
    { "cell", K_CELL, OFF(cell, enum nand_cell), NULL },
    MAP("geometry", geometry_keys),
    U32("nop", nop),
    U32("pair_distance", pair_distance),
    MAP("timing", timing_keys),
    U64("endurance", endurance),
    F64("endurance_sigma", endurance_sigma),
    F64("endurance_scale", endurance_scale),
    U64("initial_pe", initial_pe),
    F64("factory_bad_fraction", factory_bad_fraction),
    MAP("rber", rber_keys),
    MAP("ecc", ecc_keys),
    U64("seed", seed),
    { "dedup", K_BOOL, OFF(dedup, int), NULL },
    { "compress", K_BOOL, OFF(compress, int), NULL },
    END,
};

#define NKEYS(t) (sizeof(t) / sizeof((t)[0]) - 1)
_Static_assert(NKEYS(top_keys) <= MAX_KEYS, "raise MAX_KEYS");
_Static_assert(NKEYS(geometry_keys) <= MAX_KEYS, "raise MAX_KEYS");
_Static_assert(NKEYS(timing_keys) <= MAX_KEYS, "raise MAX_KEYS");
_Static_assert(NKEYS(rber_keys) <= MAX_KEYS, "raise MAX_KEYS");
_Static_assert(NKEYS(ecc_keys) <= MAX_KEYS, "raise MAX_KEYS");

/* ---- load state and error reporting ------------------------------------ */

struct ctx {
    const char *path;
    char *err;
    size_t errlen;
    unsigned char *buf; /* the whole file */
    size_t len;
    yaml_parser_t parser;
    yaml_event_t ev;    /* the current event, owned while have_ev */
    int have_ev;
    struct nand_config cfg;
};

/* "PATH:LINE:COL: " (m given) or "PATH: ", then the message. */
static void put_error(struct ctx *c, const yaml_mark_t *m, const char *fmt,
                      va_list ap)
{
    if (!c->err || !c->errlen)
        return;
    int n = m ? snprintf(c->err, c->errlen, "%s:%zu:%zu: ", c->path,
                         m->line + 1, m->column + 1)
              : snprintf(c->err, c->errlen, "%s: ", c->path);
    if (n >= 0 && (size_t)n < c->errlen)
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
}

PRINTF_LIKE(3, 4)
static int fail_at(struct ctx *c, yaml_mark_t m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_error(c, &m, fmt, ap);
    va_end(ap);
    return NAND_E_INVAL;
}

PRINTF_LIKE(3, 4)
static int fail_file(struct ctx *c, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_error(c, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

/* The position of byte offset off of the file (for reader errors, which
 * libyaml reports as an offset only). */
static yaml_mark_t mark_at(const struct ctx *c, size_t off)
{
    yaml_mark_t m = { off, 0, 0 };
    if (off > c->len)
        off = c->len;
    for (size_t i = 0; i < off; i++) {
        if (c->buf[i] == '\n') {
            m.line++;
            m.column = 0;
        } else if ((c->buf[i] & 0xC0) != 0x80) { /* count characters */
            m.column++;
        }
    }
    return m;
}

static int parse_error(struct ctx *c)
{
    const yaml_parser_t *p = &c->parser;
    const char *problem = p->problem ? p->problem : "syntax error";

    if (p->error == YAML_MEMORY_ERROR)
        return fail_file(c, NAND_E_NOMEM, "out of memory while parsing");
    if (p->error == YAML_READER_ERROR) {
        yaml_mark_t m = mark_at(c, p->problem_offset);
        if (p->problem_value >= 0)
            return fail_at(c, m, "%s (character 0x%X)", problem,
                           (unsigned)p->problem_value);
        return fail_at(c, m, "%s", problem);
    }
    if (p->context)
        return fail_at(c, p->problem_mark,
                       "%s (%s started at line %zu, column %zu)", problem,
                       p->context, p->context_mark.line + 1,
                       p->context_mark.column + 1);
    return fail_at(c, p->problem_mark, "%s", problem);
}

/* Make the next event current. */
static int next(struct ctx *c)
{
    if (c->have_ev) {
        yaml_event_delete(&c->ev);
        c->have_ev = 0;
    }
    if (!yaml_parser_parse(&c->parser, &c->ev))
        return parse_error(c);
    c->have_ev = 1;
    return 0;
}

/* ---- describing what was found ----------------------------------------- */

static const char *scalar(const struct ctx *c)
{
    return (const char *)c->ev.data.scalar.value;
}

static size_t scalar_len(const struct ctx *c)
{
    return c->ev.data.scalar.length;
}

static int is_plain(const struct ctx *c)
{
    return c->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* The current scalar, shortened and with unprintable bytes as '?'. */
static const char *show(const struct ctx *c, char *out, size_t outlen)
{
    size_t n = scalar_len(c), i;
    const char *s = scalar(c);
    for (i = 0; i < n && i < SHOW_MAX && i + 4 < outlen; i++)
        out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (i < n && i + 4 <= outlen) {
        memcpy(out + i, "...", 3);
        i += 3;
    }
    out[i] = '\0';
    return out;
}

/* What the current event holds, for "expected X, got Y". */
static const char *describe(const struct ctx *c, char *out, size_t outlen)
{
    char v[SHOW_MAX + 4];
    switch (c->ev.type) {
    case YAML_MAPPING_START_EVENT: return "a mapping";
    case YAML_SEQUENCE_START_EVENT: return "a sequence";
    case YAML_ALIAS_EVENT: return "an alias (aliases are not supported)";
    case YAML_SCALAR_EVENT: break;
    default: return "the end of the mapping";
    }
    if (!scalar_len(c) && is_plain(c))
        return "an empty value";
    snprintf(out, outlen, "%s'%s'", is_plain(c) ? "" : "the quoted string ",
             show(c, v, sizeof v));
    return out;
}

/* "section.key" or "key" as three %s arguments. */
#define KEYPATH(sec, name) (sec), (*(sec) ? "." : ""), (name)

static int type_error(struct ctx *c, const struct key *k, const char *sec,
                      const char *want)
{
    char got[SHOW_MAX + 32];
    return fail_at(c, c->ev.start_mark, "%s%s%s: expected %s, got %s",
                   KEYPATH(sec, k->name), want, describe(c, got, sizeof got));
}

/* ---- unknown keys ------------------------------------------------------- */

static const char *key_at(size_t i, const void *ctx)
{
    return ((const struct key *)ctx)[i].name;
}

/* " (did you mean 'x'?)" for a close key, else " (valid keys: ...)". */
static void suggest(const struct ctx *c, const struct key *keys, char *out,
                    size_t outlen)
{
    sim_suggest_hint(scalar(c), scalar_len(c), key_at, keys, out, outlen);
}

static int unknown_key(struct ctx *c, const struct key *keys, const char *sec)
{
    char shown[SHOW_MAX + 4], hint[320];
    show(c, shown, sizeof shown);
    suggest(c, keys, hint, sizeof hint);
    return fail_at(c, c->ev.start_mark, "unknown key '%s'%s%s%s", shown,
                   *sec ? " in " : "", sec, hint);
}

/* ---- values ------------------------------------------------------------- */

static void *field(struct ctx *c, const struct key *k)
{
    return (char *)&c->cfg + k->off;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

enum { NUM_OK, NUM_SYNTAX, NUM_NEGATIVE, NUM_RANGE };

/* Decimal digits only, an optional '+', no leading zeros (YAML 1.1 would
 * read them as octal). */
static int parse_uint(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    size_t i = 0;
    int over = 0, neg = n && s[0] == '-';
    uint64_t v = 0;
    if (n && (s[0] == '+' || s[0] == '-'))
        i++;
    if (i == n || (s[i] == '0' && i + 1 < n))
        return NUM_SYNTAX;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            return NUM_SYNTAX;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (max - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    if (neg)
        return NUM_NEGATIVE;
    *out = v;
    return over ? NUM_RANGE : NUM_OK;
}

static int set_uint(struct ctx *c, const struct key *k, const char *sec)
{
    uint64_t max = k->type == K_U32 ? UINT32_MAX : UINT64_MAX, v = 0;
    char shown[SHOW_MAX + 4];
    int r = is_plain(c) ? parse_uint(scalar(c), scalar_len(c), max, &v)
                        : NUM_SYNTAX;
    if (r == NUM_NEGATIVE)
        return fail_at(c, c->ev.start_mark, "%s%s%s: must not be negative, got '%s'",
                       KEYPATH(sec, k->name), show(c, shown, sizeof shown));
    if (r == NUM_RANGE)
        return fail_at(c, c->ev.start_mark,
                       "%s%s%s: '%s' is out of range (at most %" PRIu64 ")",
                       KEYPATH(sec, k->name), show(c, shown, sizeof shown), max);
    if (r != NUM_OK)
        return type_error(c, k, sec, "an unsigned integer");
    if (k->type == K_U32) {
        uint32_t v32 = (uint32_t)v;
        memcpy(field(c, k), &v32, sizeof v32);
    } else {
        memcpy(field(c, k), &v, sizeof v);
    }
    return 0;
}

/* [+-] digits [. digits] [e [+-] digits], at least one mantissa digit. */
static int is_decimal_number(const char *s, size_t n)
{
    size_t i = 0, digits = 0, exp = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n && is_digit(s[i]); i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit(s[i]); i++)
            digits++;
    if (!digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (; i < n && is_digit(s[i]); i++)
            exp++;
        if (!exp)
            return 0;
    }
    return i == n;
}

static int set_double(struct ctx *c, const struct key *k, const char *sec)
{
    char shown[SHOW_MAX + 4], *end;
    if (!is_plain(c) || !is_decimal_number(scalar(c), scalar_len(c)))
        return type_error(c, k, sec, "a number");
    double v = strtod(scalar(c), &end);
    if (end != scalar(c) + scalar_len(c)) /* a locale without '.' */
        return type_error(c, k, sec, "a number");
    if (!isfinite(v))
        return fail_at(c, c->ev.start_mark, "%s%s%s: '%s' is out of range",
                       KEYPATH(sec, k->name), show(c, shown, sizeof shown));
    memcpy(field(c, k), &v, sizeof v);
    return 0;
}

static int is_word(const struct ctx *c, const char *w)
{
    return scalar_len(c) == strlen(w) && !memcmp(scalar(c), w, scalar_len(c));
}

static int set_bool(struct ctx *c, const struct key *k, const char *sec)
{
    int v;
    if (is_plain(c) && (is_word(c, "true") || is_word(c, "yes")))
        v = 1;
    else if (is_plain(c) && (is_word(c, "false") || is_word(c, "no")))
        v = 0;
    else
        return type_error(c, k, sec, "true, false, yes or no");
    memcpy(field(c, k), &v, sizeof v);
    return 0;
}

static int set_cell(struct ctx *c, const struct key *k, const char *sec)
{
    static const char *const names[] = { "slc", "mlc", "tlc" };
    for (int i = 0; i < 3; i++) {
        if (is_word(c, names[i])) {
            enum nand_cell v = (enum nand_cell)(NAND_SLC + i);
            memcpy(field(c, k), &v, sizeof v);
            return 0;
        }
    }
    return type_error(c, k, sec, "slc, mlc or tlc");
}

/* name and source: a string of one line that fits its field */
static int set_name(struct ctx *c, const struct key *k, const char *sec)
{
    size_t n = scalar_len(c);
    size_t cap = k->off == offsetof(struct nand_config, source)
                     ? sizeof c->cfg.source : sizeof c->cfg.name;
    const char *s = scalar(c);
    if (!n)
        return type_error(c, k, sec, "a non-empty string");
    if (n >= cap)
        return fail_at(c, c->ev.start_mark,
                       "%s%s%s: too long (%zu bytes, at most %zu)",
                       KEYPATH(sec, k->name), n, cap - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return fail_at(c, c->ev.start_mark,
                           "%s%s%s: must not contain control characters",
                           KEYPATH(sec, k->name));
    memcpy(field(c, k), s, n);
    ((char *)field(c, k))[n] = '\0';
    return 0;
}

/* ---- mappings ----------------------------------------------------------- */

static int load_mapping(struct ctx *c, const struct key *keys, const char *sec);

/* The current event starts the value of key k. */
static int load_value(struct ctx *c, const struct key *k, const char *sec)
{
    static const char *const want[] = {
        [K_U32] = "an unsigned integer", [K_U64] = "an unsigned integer",
        [K_F64] = "a number", [K_BOOL] = "true, false, yes or no",
        [K_CELL] = "slc, mlc or tlc", [K_NAME] = "a string",
        [K_MAP] = "a mapping",
    };
    yaml_event_type_t want_ev =
        k->type == K_MAP ? YAML_MAPPING_START_EVENT : YAML_SCALAR_EVENT;
    if (c->ev.type != want_ev)
        return type_error(c, k, sec, want[k->type]);
    switch (k->type) {
    case K_U32:
    case K_U64: return set_uint(c, k, sec);
    case K_F64: return set_double(c, k, sec);
    case K_BOOL: return set_bool(c, k, sec);
    case K_CELL: return set_cell(c, k, sec);
    case K_NAME: return set_name(c, k, sec);
    case K_MAP: return load_mapping(c, k->sub, k->name);
    }
    return type_error(c, k, sec, "a known type");
}

static const struct key *find_key(const struct ctx *c, const struct key *keys)
{
    for (const struct key *k = keys; k->name; k++)
        if (is_word(c, k->name))
            return k;
    return NULL;
}

/* The current event starts a mapping; consume it through its end.  sec
 * names the mapping in messages ("" at the top). */
static int load_mapping(struct ctx *c, const struct key *keys, const char *sec)
{
    yaml_mark_t first[MAX_KEYS];        /* where each key was seen ... */
    unsigned char seen[MAX_KEYS] = { 0 }; /* ... if it was */
    for (;;) {
        char got[SHOW_MAX + 32];
        int rc = next(c);
        if (rc)
            return rc;
        if (c->ev.type == YAML_MAPPING_END_EVENT)
            return 0;
        if (c->ev.type != YAML_SCALAR_EVENT)
            return fail_at(c, c->ev.start_mark, "expected a key name, got %s",
                           describe(c, got, sizeof got));
        const struct key *k = find_key(c, keys);
        if (!k)
            return unknown_key(c, keys, sec);
        size_t i = (size_t)(k - keys);
        if (seen[i])
            return fail_at(c, c->ev.start_mark,
                           "duplicate key '%s%s%s' (first given at line %zu, "
                           "column %zu)", KEYPATH(sec, k->name),
                           first[i].line + 1, first[i].column + 1);
        seen[i] = 1;
        first[i] = c->ev.start_mark;
        if ((rc = next(c)) || (rc = load_value(c, k, sec)))
            return rc;
    }
}

/* A stream of exactly one document whose root is a mapping. */
static int load_stream(struct ctx *c)
{
    char got[SHOW_MAX + 32];
    int rc;
    if ((rc = next(c)) || (rc = next(c))) /* stream start, then ... */
        return rc;
    if (c->ev.type == YAML_STREAM_END_EVENT)
        return fail_at(c, c->ev.start_mark,
                       "empty file: expected a mapping of device keys");
    if ((rc = next(c)))                   /* ... document start */
        return rc;
    if (c->ev.type != YAML_MAPPING_START_EVENT)
        return fail_at(c, c->ev.start_mark,
                       "the top level must be a mapping of device keys, got %s",
                       describe(c, got, sizeof got));
    if ((rc = load_mapping(c, top_keys, "")))
        return rc;
    if ((rc = next(c)) || (rc = next(c))) /* document end, stream end */
        return rc;
    if (c->ev.type != YAML_STREAM_END_EVENT)
        return fail_at(c, c->ev.start_mark,
                       "only one YAML document is allowed in a device file");
    return 0;
}

/* ---- the file ----------------------------------------------------------- */

static int read_file(struct ctx *c)
{
    FILE *f = fopen(c->path, "rb");
    if (!f)
        return fail_file(c, NAND_E_INVAL, "cannot open: %s", strerror(errno));
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        if (c->len == cap) {
            if (cap > MAX_FILE_BYTES)
                break;
            size_t ncap = cap ? 2 * cap : 4096;
            if (ncap > MAX_FILE_BYTES + 1)
                ncap = MAX_FILE_BYTES + 1;
            unsigned char *nbuf = realloc(c->buf, ncap);
            if (!nbuf) {
                rc = fail_file(c, NAND_E_NOMEM, "out of memory");
                break;
            }
            c->buf = nbuf;
            cap = ncap;
        }
        size_t n = fread(c->buf + c->len, 1, cap - c->len, f);
        if (!n) {
            if (ferror(f))
                rc = fail_file(c, NAND_E_INVAL, "cannot read: %s",
                               strerror(errno));
            break;
        }
        c->len += n;
    }
    fclose(f);
    if (!rc && c->len > MAX_FILE_BYTES)
        rc = fail_file(c, NAND_E_INVAL, "larger than %u bytes: not a device file",
                       MAX_FILE_BYTES);
    return rc;
}

static int parse_file(struct ctx *c)
{
    if (!yaml_parser_initialize(&c->parser))
        return fail_file(c, NAND_E_NOMEM, "out of memory");
    yaml_parser_set_input_string(&c->parser, c->buf, c->len);
    int rc = load_stream(c);
    if (c->have_ev)
        yaml_event_delete(&c->ev);
    c->have_ev = 0;
    yaml_parser_delete(&c->parser);
    return rc;
}

int nand_config_load(const char *path, struct nand_config *cfg, char *err,
                     size_t errlen)
{
    struct ctx c = { .path = path ? path : "(null)", .err = err,
                     .errlen = errlen };
    char msg[256] = "";
    if (err && errlen)
        err[0] = '\0';
    if (!path || !cfg)
        return fail_file(&c, NAND_E_INVAL, "no file or no configuration given");
    nand_config_init(&c.cfg);
    /* the defaults' source names the built-in part, not this file's */
    memset(c.cfg.source, 0, sizeof c.cfg.source);
    int rc = read_file(&c);
    if (!rc)
        rc = parse_file(&c);
    free(c.buf);
    if (rc)
        return rc;
    if (nand_config_finish(&c.cfg, msg, sizeof msg))
        return fail_file(&c, NAND_E_INVAL, "%s", msg);
    memcpy(cfg, &c.cfg, sizeof *cfg);
    return NAND_OK;
}
