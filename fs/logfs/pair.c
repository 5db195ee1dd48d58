/*
 * pair.c -- paired pages on MLC/TLC parts.
 *
 * A torn or failed program of an upper page also damages its lower page,
 * which may hold data a commit already made durable.  So a commit leaves
 * no lower page of its own whose upper page is still to be programmed: the
 * area moves its write position past those upper pages, which then stay
 * erased (area.c).  The pairing comes from the device's public config
 * (nand_page_is_upper); on a part without pairing the span is 0 and every
 * function here returns `next` at once.
 */
#include "format.h"

uint32_t lfs_pair_span(const struct nand_config *c)
{
    uint32_t span = 0;
    for (uint32_t p = 0; p < c->geo.pages_per_block; p++) {
        nand_page_t lower;
        if (nand_page_is_upper(c, p, &lower) && p - lower > span)
            span = p - lower;
    }
    return span;
}

/* Every upper page whose lower page is below `next` lies in
 * [next, next + span): the only pages a program could hurt them from. */
uint32_t lfs_pair_safe_page(const struct nand_config *c, uint32_t span, uint32_t next)
{
    uint32_t safe = next;
    for (uint32_t u = next; u < next + span && u < c->geo.pages_per_block; u++) {
        nand_page_t lower;
        if (nand_page_is_upper(c, u, &lower) && lower < next)
            safe = u + 1;
    }
    return safe;
}

uint32_t lfs_pair_exposed_page(const struct nand_config *c, uint32_t span, uint32_t next)
{
    uint32_t exposed = next;
    for (uint32_t u = next; u < next + span && u < c->geo.pages_per_block; u++) {
        nand_page_t lower;
        if (nand_page_is_upper(c, u, &lower) && lower < exposed)
            exposed = lower;
    }
    return exposed;
}
