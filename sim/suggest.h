/*
 * suggest.h -- "did you mean" for a mistyped key: the known word closest
 * by edit distance, when it is close enough to be the one meant.  Shared
 * by every YAML reader (device files in sim/, experiments in workloads/)
 * and the command line (flashlab plot --kind).
 */
#ifndef FLASHLAB_SUGGEST_H
#define FLASHLAB_SUGGEST_H

#include <stddef.h>

/* The i-th candidate word, NULL past the end. */
typedef const char *(*suggest_at_fn)(size_t i, const void *ctx);

/* Write " (did you mean 'x'?)" into out when a candidate is within a third
 * of its length of word (at least one edit), else " (valid keys: a, b)". */
void sim_suggest_hint(const char *word, size_t len, suggest_at_fn at, const void *ctx,
                  char *out, size_t outlen);

/* The same for any word: " (valid WHAT: a, b)" when none is close
 * (what: "keys", "kinds", ...). */
void sim_suggest_among(const char *word, size_t len, suggest_at_fn at, const void *ctx,
                       const char *what, char *out, size_t outlen);

/* suggest_at_fn over a NULL-terminated array of strings (ctx). */
const char *sim_suggest_at_list(size_t i, const void *ctx);

#endif
