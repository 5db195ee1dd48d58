/*
 * timing.c -- ONFI-style timing on the simulated clock.
 *
 * Block b lives on die b / blocks_per_die; die d on channel
 * d / dies_per_channel.  A die does one operation at a time; a channel's bus
 * carries one transfer at a time, and is free for other dies while a die is
 * busy with tR/tPROG/tBERS.  Operations are scheduled in the order they are
 * issued, each starting no earlier than the current time:
 *   read:    command+address on the bus, tR in the die, data out on the bus
 *   program: command+address+data in on the bus, tPROG in the die
 *   erase:   command+row address on the bus, tBERS in the die
 */
#include "nand_internal.h"

#include <stdlib.h>

/* Drop reservations that ended before the current time. */
static void bus_prune(struct bus *bus, nand_time_t now)
{
    uint32_t k = 0;
    while (k < bus->n && bus->end[k] <= now)
        k++;
    if (!k)
        return;
    for (uint32_t i = k; i < bus->n; i++) {
        bus->start[i - k] = bus->start[i];
        bus->end[i - k] = bus->end[i];
    }
    bus->n -= k;
}

/* Reserve the earliest free window of len ns starting at or after t. */
static int bus_reserve(struct bus *bus, nand_time_t t, nand_time_t len,
                       nand_time_t *at)
{
    uint32_t i = 0;
    while (i < bus->n && bus->end[i] <= t)
        i++;
    for (; i < bus->n; i++) {
        if (t + len <= bus->start[i])
            break;
        if (bus->end[i] > t)
            t = bus->end[i];
    }
    if (bus->n == bus->cap) {
        uint32_t cap = bus->cap ? bus->cap * 2 : 16;
        nand_time_t *s = realloc(bus->start, cap * sizeof *s);
        if (!s)
            return NAND_E_NOMEM;
        bus->start = s;
        nand_time_t *e = realloc(bus->end, cap * sizeof *e);
        if (!e)
            return NAND_E_NOMEM;
        bus->end = e;
        bus->cap = cap;
    }
    for (uint32_t j = bus->n; j > i; j--) {
        bus->start[j] = bus->start[j - 1];
        bus->end[j] = bus->end[j - 1];
    }
    bus->start[i] = t;
    bus->end[i] = t + len;
    bus->n++;
    *at = t;
    return NAND_OK;
}

void sim_bus_reset(nand_dev *dev)
{
    for (uint32_t c = 0; c < dev->cfg.geo.channels; c++)
        dev->bus[c].n = 0;
}

void sim_bus_free_all(nand_dev *dev)
{
    if (!dev->bus)
        return;
    for (uint32_t c = 0; c < dev->cfg.geo.channels; c++) {
        free(dev->bus[c].start);
        free(dev->bus[c].end);
    }
    free(dev->bus);
}

int sim_sched_op(nand_dev *dev, enum nand_op_kind kind, nand_block_t b,
             nand_page_t p, uint32_t bytes, struct sched *s)
{
    const struct nand_timing *t = &dev->cfg.timing;
    const struct nand_geometry *g = &dev->cfg.geo;
    uint64_t blocks_per_die = (uint64_t)g->planes_per_die * g->blocks_per_plane;
    uint64_t die = b / blocks_per_die;
    struct bus *bus = &dev->bus[die / g->dies_per_channel];
    nand_time_t cyc = t->t_cycle_ns;
    if (kind == NAND_OP_READ && t->whole_page_reads)
        bytes = g->page_size + g->oob_size;
    nand_time_t data_ns = (nand_time_t)((bytes + t->bus_bytes - 1) / t->bus_bytes) * cyc;
    nand_time_t ready = dev->now > dev->die_free[die] ? dev->now : dev->die_free[die];
    int upper = 0, rc;
    sim_page_pair_lower(dev, p, &upper);
    bus_prune(bus, dev->now);

    switch (kind) {
    case NAND_OP_READ: {
        nand_time_t cmd = (2 + t->addr_cycles) * cyc, out;
        if ((rc = bus_reserve(bus, ready, cmd, &s->start)))
            return rc;
        s->array_start = s->start + cmd;
        s->array_end = s->array_start + (upper ? t->t_r_upper_ns : t->t_r_ns);
        if ((rc = bus_reserve(bus, s->array_end, data_ns, &out)))
            return rc;
        s->done = out + data_ns;
        break;
    }
    case NAND_OP_PROGRAM: {
        nand_time_t in = (2 + t->addr_cycles) * cyc + data_ns;
        if ((rc = bus_reserve(bus, ready, in, &s->start)))
            return rc;
        s->array_start = s->start + in;
        s->array_end = s->array_start + (upper ? t->t_prog_upper_ns : t->t_prog_ns);
        s->done = s->array_end;
        break;
    }
    case NAND_OP_ERASE:
    default: {
        /* erase setup, row address (addr_cycles - 2 cycles), confirm */
        nand_time_t cmd = t->addr_cycles * cyc;
        if ((rc = bus_reserve(bus, ready, cmd, &s->start)))
            return rc;
        s->array_start = s->start + cmd;
        s->array_end = s->array_start + t->t_bers_ns;
        s->done = s->array_end;
        break;
    }
    }
    dev->die_free[die] = s->done;
    dev->st.busy_ns += s->done - s->start;
    return NAND_OK;
}
