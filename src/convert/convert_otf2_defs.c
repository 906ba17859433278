/* The global definitions of an OTF2 archive read for perfskel import
 * --otf2: strings, the clock, the system tree (hosts and their cores),
 * location groups and locations, regions (which name an MPI function
 * perfskel records), groups and communicators. Untrusted: ids are bounded
 * (MAXREF), each defined once, and every reference is checked before the
 * events are read (psk_otf2in_check_defs), which also finds the ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_otf2_read.h"
#include "psk_mem.h"


/* the slot of ref in *a (grown), or NULL after saying what is wrong */
static void *slot(defs *d, void **a, int64_t *n, uint64_t ref, size_t size, const char *what)
{
    if (ref >= MAXREF) {
        snprintf(d->err, sizeof d->err, "%s id %llu is too large", what, (unsigned long long)ref);
        return NULL;
    }
    if (psk_grow(a, n, (int64_t)ref, size)) {
        snprintf(d->err, sizeof d->err, "out of memory");
        return NULL;
    }
    return (char *)*a + ref * size;
}

#define TWICE(what, ref)                                                                                     \
    do {                                                                                                     \
        snprintf(d->err, sizeof d->err, "%s %llu is defined twice", what, (unsigned long long)(ref));        \
        return OTF2_CALLBACK_INTERRUPT;                                                                      \
    } while (0)

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    defs *d = ud;
    char **p = slot(d, (void **)&d->str, &d->nstr, self, sizeof *d->str, "string");
    if (!p)
        return OTF2_CALLBACK_INTERRUPT;
    if (*p)
        TWICE("string", self);
    if (!(*p = strdup(s ? s : ""))) {
        snprintf(d->err, sizeof d->err, "out of memory");
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    defs *d = ud;
    (void)len;
    if (d->have_clock) {
        snprintf(d->err, sizeof d->err, "the clock properties are defined twice");
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->have_clock = 1, d->res = res, d->goff = off, d->realtime = rt;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                 OTF2_SystemTreeNodeRef parent)
{
    defs *d = ud;
    (void)cls, (void)parent;
    gstn *s = slot(d, (void **)&d->stn, &d->nstn, self, sizeof *d->stn, "system tree node");
    if (!s)
        return OTF2_CALLBACK_INTERRUPT;
    if (s->defined)
        TWICE("system tree node", self);
    s->defined = 1, s->name = name;
    return OTF2_CALLBACK_SUCCESS;
}

/* a host's cores, as export writes them (CORES_PROPERTY); other
 * properties are not read */
static OTF2_CallbackCode def_stn_prop(void *ud, OTF2_SystemTreeNodeRef node, OTF2_StringRef name, OTF2_Type type,
                                      OTF2_AttributeValue value)
{
    defs *d = ud;
    const char *n = name < (uint64_t)d->nstr ? d->str[name] : NULL;
    if (n && !strcmp(n, MPI_PROPERTY)) {
        const char *v = type == OTF2_TYPE_STRING && value.stringRef < (uint64_t)d->nstr ? d->str[value.stringRef] : "";
        d->flavour = v && !strcmp(v, "openmpi") ? PSK_MPI_OPENMPI : v && !strcmp(v, "mpich") ? PSK_MPI_MPICH
                                                                                            : PSK_MPI_UNKNOWN;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!n || strcmp(n, CORES_PROPERTY))
        return OTF2_CALLBACK_SUCCESS;
    if (type != OTF2_TYPE_UINT32 || value.uint32 < 1 || value.uint32 > (1u << 20)) {
        snprintf(d->err, sizeof d->err, "system tree node %llu: property %s is not a number of cores",
                 (unsigned long long)node, CORES_PROPERTY);
        return OTF2_CALLBACK_INTERRUPT;
    }
    gstn *s = slot(d, (void **)&d->stn, &d->nstn, node, sizeof *d->stn, "system tree node");
    if (!s)
        return OTF2_CALLBACK_INTERRUPT;
    s->cores = (int)value.uint32;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lg(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name, OTF2_LocationGroupType t,
                                OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef creator)
{
    defs *d = ud;
    (void)name, (void)t, (void)creator;
    glg *g = slot(d, (void **)&d->lg, &d->nlg, self, sizeof *d->lg, "location group");
    if (!g)
        return OTF2_CALLBACK_INTERRUPT;
    if (g->defined)
        TWICE("location group", self);
    g->defined = 1, g->parent = parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_loc(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                 uint64_t nev, OTF2_LocationGroupRef group)
{
    defs *d = ud;
    (void)name, (void)t, (void)nev;
    for (int64_t i = 0; i < d->nloc; i++)
        if (d->loc[i].ref == self)
            TWICE("location", self);
    if (d->nloc >= MAXREF) {
        snprintf(d->err, sizeof d->err, "more than %d locations", MAXREF);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (d->nloc == d->caploc) {
        int64_t cap = d->caploc ? 2 * d->caploc : 64;
        gloc *n = realloc(d->loc, (size_t)cap * sizeof *n);
        if (!n) {
            snprintf(d->err, sizeof d->err, "out of memory");
            return OTF2_CALLBACK_INTERRUPT;
        }
        d->loc = n, d->caploc = cap;
    }
    d->loc[d->nloc++] = (gloc){.ref = self, .group = group};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef cname,
                                    OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm par, OTF2_RegionFlag fl,
                                    OTF2_StringRef file, uint32_t b, uint32_t e)
{
    defs *d = ud;
    (void)cname, (void)desc, (void)role, (void)par, (void)fl, (void)file, (void)b, (void)e;
    greg *r = slot(d, (void **)&d->reg, &d->nreg, self, sizeof *d->reg, "region");
    if (!r)
        return OTF2_CALLBACK_INTERRUPT;
    if (r->defined)
        TWICE("region", self);
    r->defined = 1, r->name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType t,
                                   OTF2_Paradigm par, OTF2_GroupFlag fl, uint32_t n, const uint64_t *mem)
{
    defs *d = ud;
    (void)name, (void)fl;
    ggrp *g = slot(d, (void **)&d->grp, &d->ngrp, self, sizeof *d->grp, "group");
    if (!g)
        return OTF2_CALLBACK_INTERRUPT;
    if (g->defined)
        TWICE("group", self);
    g->defined = 1, g->type = t, g->n = n;
    /* only the MPI groups matter; others (regions, metrics) are kept empty */
    if (par != OTF2_PARADIGM_MPI && t != OTF2_GROUP_TYPE_COMM_LOCATIONS)
        g->type = -1, g->n = 0;
    if (g->n && !(g->mem = malloc(g->n * sizeof *g->mem))) {
        snprintf(d->err, sizeof d->err, "out of memory");
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (g->n)
        memcpy(g->mem, mem, g->n * sizeof *g->mem);
    if (par != OTF2_PARADIGM_MPI && t == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        g->type = -2; /* another paradigm's locations (OpenMP, CUDA) */
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag fl)
{
    defs *d = ud;
    (void)name, (void)fl;
    gcom *c = slot(d, (void **)&d->com, &d->ncom, self, sizeof *d->com, "communicator");
    if (!c)
        return OTF2_CALLBACK_INTERRUPT;
    if (c->defined)
        TWICE("communicator", self);
    c->defined = 1, c->group = group, c->parent = parent;
    return OTF2_CALLBACK_SUCCESS;
}

const char *psk_otf2in_string(const defs *d, uint32_t ref)
{
    return ref < d->nstr && d->str[ref] ? d->str[ref] : NULL;
}

void psk_otf2in_defs_callbacks(OTF2_GlobalDefReaderCallbacks *gcb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gcb, def_stn);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback(gcb, def_stn_prop);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, def_lg);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_loc);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
}

int psk_otf2in_check_defs(defs *d, const char *anchor, uint64_t **rank_loc, int *P, int64_t *other, uint32_t *world,
                      uint32_t *self)
{
    (void)anchor;
    if (!d->have_clock || !d->res) {
        snprintf(d->err, sizeof d->err, "no clock properties (or a timer resolution of 0)");
        return -1;
    }
    for (int64_t i = 0; i < d->nreg; i++) {
        greg *r = &d->reg[i];
        if (!r->defined)
            continue;
        const char *n = psk_otf2in_string(d, r->name);
        if (!n) {
            snprintf(d->err, sizeof d->err, "region %lld: its name is string %u, which is not defined", (long long)i,
                     r->name);
            return -1;
        }
        r->mpi = !strncmp(n, "MPI_", 4);
        r->fn = psk_fn_lookup(n);
        if (r->fn && psk_fn_polled(r->fn))
            r->fn = 0; /* perfskel's own poll functions are not MPI's */
    }
    /* the ranks: the MPI COMM_LOCATIONS group, else every location */
    const ggrp *cl = NULL;
    for (int64_t i = 0; i < d->ngrp; i++)
        if (d->grp[i].defined && d->grp[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            if (cl) {
                snprintf(d->err, sizeof d->err, "two MPI location groups (COMM_LOCATIONS)");
                return -1;
            }
            cl = &d->grp[i];
        }
    int64_t n = cl ? cl->n : d->nloc;
    if (n < 1 || n > MAXREF) {
        snprintf(d->err, sizeof d->err, "%s", n < 1 ? "no locations: no ranks" : "too many ranks");
        return -1;
    }
    *P = (int)n;
    if (!(*rank_loc = malloc((size_t)n * sizeof **rank_loc))) {
        snprintf(d->err, sizeof d->err, "out of memory");
        return -1;
    }
    for (int64_t r = 0; r < n; r++) {
        uint64_t ref = cl ? cl->mem[r] : d->loc[r].ref;
        int64_t i = 0;
        while (i < d->nloc && d->loc[i].ref != ref)
            i++;
        if (i == d->nloc) {
            snprintf(d->err, sizeof d->err, "rank %lld is location %llu, which is not defined", (long long)r,
                     (unsigned long long)ref);
            return -1;
        }
        for (int64_t q = 0; q < r; q++)
            if ((*rank_loc)[q] == ref) {
                snprintf(d->err, sizeof d->err, "location %llu is both rank %lld and rank %lld",
                         (unsigned long long)ref, (long long)q, (long long)r);
                return -1;
            }
        (*rank_loc)[r] = ref;
    }
    *other = d->nloc - n;
    /* communicators: groups of world ranks */
    *world = *self = OTF2_UNDEFINED_UINT32;
    for (int64_t i = 0; i < d->ncom; i++) {
        gcom *c = &d->com[i];
        if (!c->defined)
            continue;
        if (c->group >= d->ngrp || !d->grp[c->group].defined ||
            (d->grp[c->group].type != OTF2_GROUP_TYPE_COMM_GROUP && d->grp[c->group].type != OTF2_GROUP_TYPE_COMM_SELF)) {
            snprintf(d->err, sizeof d->err, "communicator %lld: its group %u is not a defined MPI communicator group",
                     (long long)i, c->group);
            return -1;
        }
        if (c->parent != OTF2_UNDEFINED_COMM && (c->parent >= d->ncom || !d->com[c->parent].defined)) {
            snprintf(d->err, sizeof d->err, "communicator %lld: its parent %u is not defined", (long long)i, c->parent);
            return -1;
        }
        const ggrp *g = &d->grp[c->group];
        int all = g->type == OTF2_GROUP_TYPE_COMM_GROUP && g->n == (uint32_t)n;
        for (uint32_t k = 0; k < g->n; k++) {
            if (g->mem[k] >= (uint64_t)n) {
                snprintf(d->err, sizeof d->err, "communicator %lld: member %llu is not a rank (%d ranks)", (long long)i,
                         (unsigned long long)g->mem[k], *P);
                return -1;
            }
            all &= g->mem[k] == k;
        }
        if (all && c->parent == OTF2_UNDEFINED_COMM && *world == OTF2_UNDEFINED_UINT32)
            *world = (uint32_t)i;
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF && c->parent == OTF2_UNDEFINED_COMM && *self == OTF2_UNDEFINED_UINT32)
            *self = (uint32_t)i;
    }
    return 0;
}

void psk_otf2in_free_defs(defs *d)
{
    for (int64_t i = 0; i < d->nstr; i++)
        free(d->str[i]);
    for (int64_t i = 0; i < d->ngrp; i++)
        free(d->grp[i].mem);
    free(d->str), free(d->reg), free(d->grp), free(d->com), free(d->lg), free(d->stn), free(d->loc);
}
