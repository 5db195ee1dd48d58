/*
 * libfuzzer_main.c -- the libFuzzer entry points for one fuzz target,
 * chosen at compile time: clang -fsanitize=fuzzer -DFUZZ_TARGET='"trace"'
 * (the names are those of fuzz_targets[] in fuzz/fuzz_util.c; `make fuzz`
 * builds build/fuzz/fuzz_<name> for each).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_TARGET
#error "define FUZZ_TARGET as the target's name, e.g. -DFUZZ_TARGET='\"trace\"'"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct fuzz_target *target;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    target = fuzz_target_find(FUZZ_TARGET);
    if (!target) {
        fprintf(stderr, "fuzz: no target named %s\n", FUZZ_TARGET);
        exit(2);
    }
    if (target->init && target->init()) {
        fprintf(stderr, "fuzz: %s: initialization failed\n", FUZZ_TARGET);
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    target->run(data, size);
    return 0;
}
