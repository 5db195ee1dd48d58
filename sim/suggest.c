/* suggest.c -- the closest known key to a mistyped one (suggest.h). */
#include "suggest.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define WORD_MAX 40 /* longer words are not worth comparing */

/* Levenshtein distance; SIZE_MAX for strings too long to bother with. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
    size_t row[WORD_MAX + 1];
    if (na > WORD_MAX || nb > WORD_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

void sim_suggest_hint(const char *word, size_t len, suggest_at_fn at, const void *ctx,
                  char *out, size_t outlen)
{
    sim_suggest_among(word, len, at, ctx, "keys", out, outlen);
}

void sim_suggest_among(const char *word, size_t len, suggest_at_fn at, const void *ctx,
                       const char *what, char *out, size_t outlen)
{
    const char *best = NULL, *name;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; (name = at(i, ctx)); i++) {
        size_t d = edit_distance(word, len, name, strlen(name));
        if (d < best_d)
            best = name, best_d = d;
    }
    size_t limit = best ? strlen(best) / 3 : 0;
    if (best && best_d <= (limit > 1 ? limit : 1)) {
        snprintf(out, outlen, " (did you mean '%s'?)", best);
        return;
    }
    size_t n = (size_t)snprintf(out, outlen, " (valid %s:", what);
    for (size_t i = 0; (name = at(i, ctx)) && n < outlen; i++)
        n += (size_t)snprintf(out + n, outlen - n, "%s %s", i ? "," : "", name);
    if (n < outlen)
        snprintf(out + n, outlen - n, ")");
}

const char *sim_suggest_at_list(size_t i, const void *ctx)
{
    return ((const char *const *)ctx)[i];
}
