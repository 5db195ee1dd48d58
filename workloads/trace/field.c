/*
 * field.c -- helpers every format parser uses: error messages that
 * name the line and the field, splitting, checked numbers, and the table
 * that gives disk names dense numbers.
 */
#include "trace_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int trace_fail(struct trace_reader *r, struct trace_error *err, const char *fmt, ...)
{
    va_list ap;
    memcpy(err->file, r->file, sizeof err->file);
    err->line = r->lineno;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

void trace_quote(char *out, size_t size, const char *s)
{
    size_t o = 0, i;
    /* 40 bytes at up to 4 characters each, quotes, "..." and NUL */
    if (size < 4 * 40 + 8) {
        snprintf(out, size, "\"...\"");
        return;
    }
    out[o++] = '"';
    for (i = 0; s[i] && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
            o += (size_t)sprintf(out + o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    if (s[i])
        o += (size_t)sprintf(out + o, "...");
    out[o++] = '"';
    out[o] = '\0';
}

int trace_split(char *s, char sep, char **field, int max)
{
    int n = 0;
    if (sep) {
        for (;;) {
            if (n < max)
                field[n] = s;
            n++;
            char *e = strchr(s, sep);
            if (!e)
                return n;
            *e = '\0';
            s = e + 1;
        }
    }
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (!*s)
            return n;
        if (n < max)
            field[n] = s;
        n++;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

int trace_parse_u64(const char *s, int base, uint64_t *v)
{
    uint64_t x = 0;
    int big = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d >= (unsigned)base) /* also every non-digit */
            return -1;
        if (x > (UINT64_MAX - d) / (unsigned)base)
            big = 1; /* keep going: "99999999999999999999x" is not a number */
        x = x * (unsigned)base + d;
    }
    if (big)
        return -2;
    *v = x;
    return 0;
}

int trace_field_u64(struct trace_reader *r, struct trace_error *err,
                    const char *s, int idx, const char *name, uint64_t *v)
{
    char q[192];
    if (!s)
        return trace_fail(r, err, "field %d (%s): missing", idx, name);
    int rc = trace_parse_u64(s, 10, v);
    if (rc == 0)
        return 0;
    trace_quote(q, sizeof q, s);
    return trace_fail(r, err, "field %d (%s): %s: %s", idx, name,
                      rc == -2 ? "out of range" : "not a number", q);
}

int trace_check_range(struct trace_reader *r, struct trace_error *err,
                      uint64_t offset, uint64_t length)
{
    if (length > UINT64_MAX - offset)
        return trace_fail(r, err, "offset %" PRIu64 " + length %" PRIu64
                          " overflows 64 bits", offset, length);
    return 0;
}

/* FNV-1a: simple, and good enough for file and device names. */
static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static uint32_t *find(const struct trace_disks *d, const char *name)
{
    for (uint32_t i = hash(name) & (d->nslot - 1);; i = (i + 1) & (d->nslot - 1))
        if (!d->slot[i] || !strcmp(d->names[d->slot[i] - 1], name))
            return &d->slot[i];
}

static int grow(struct trace_disks *d)
{
    uint32_t nslot = d->nslot ? 2 * d->nslot : 16;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    char **names = realloc(d->names, (size_t)nslot / 2 * sizeof *names);
    if (!slot || !names) {
        free(slot);
        if (names)
            d->names = names;
        return -ENOMEM;
    }
    d->names = names;
    d->cap = nslot / 2;
    free(d->slot);
    d->slot = slot;
    d->nslot = nslot;
    for (uint32_t i = 0; i < d->n; i++)
        *find(d, d->names[i]) = i + 1;
    return 0;
}

int trace_disk_id(struct trace_disks *d, const char *name, int add, uint32_t *id)
{
    uint32_t *s = d->nslot ? find(d, name) : NULL;
    if (s && *s) {
        *id = *s - 1;
        return 1;
    }
    if (!add)
        return 0;
    if (d->n >= d->cap) { /* keeps the table at most half full */
        if (d->n == UINT32_MAX / 2 || grow(d))
            return -ENOMEM;
        s = find(d, name);
    }
    char *copy = strdup(name);
    if (!copy)
        return -ENOMEM;
    d->names[d->n] = copy;
    *s = ++d->n;
    *id = d->n - 1;
    return 1;
}

void trace_disks_free(struct trace_disks *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        free(d->names[i]);
    free(d->names);
    free(d->slot);
    memset(d, 0, sizeof *d);
}
