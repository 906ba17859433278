/* The names of the collectives and algorithms of perfskel/coll.h, and
 * which algorithms each collective has, read off its one list
 * (PSK_COLL_LIST, PSK_ALG_LIST). Every collective has the default
 * algorithm; an id out of range is named "?" and has none. */
#include "perfskel/coll.h"

static const char *const coll_names[PSK_COLL_N] = {
#define NAME(e, name, algs) name,
    PSK_COLL_LIST(NAME)
#undef NAME
};

static const unsigned coll_algs[PSK_COLL_N] = {
#define ALGS(e, name, algs) (algs) | 1u << PSK_ALG_DEFAULT,
    PSK_COLL_LIST(ALGS)
#undef ALGS
};

static const char *const alg_names[PSK_ALG_N] = {
#define NAME(e, name) name,
    PSK_ALG_LIST(NAME)
#undef NAME
};

const char *psk_coll_name(int coll) { return coll >= 0 && coll < PSK_COLL_N ? coll_names[coll] : "?"; }
const char *psk_alg_name(int alg) { return alg >= 0 && alg < PSK_ALG_N ? alg_names[alg] : "?"; }

int psk_coll_has_alg(int coll, int alg)
{
    return coll >= 0 && coll < PSK_COLL_N && alg >= 0 && alg < PSK_ALG_N && (coll_algs[coll] >> alg & 1u);
}
