/* Arms in traces (format version 2): which recorded functions carry the
 * arm libperfskel-tune ran them with, the arms' names, and which values an
 * event of a function may carry (the reader's check). The numbering is
 * include/perfskel/coll.h's, shifted by one so that 0 is "not known". */
#include <stddef.h>

#include "perfskel/coll.h"
#include "psk_fn_ids.h"
#include "trace_format.h"

/* the collective of each arm (-1: native, every collective's) */
static const signed char arm_coll[PSK_TUNE_NARMS] = {
#define COLL(name, pow2, coll, ...) coll,
    PSK_TUNE_ARM_LIST(COLL)
#undef COLL
};

static const char *const arm_names[PSK_TUNE_NARMS] = {
#define NAME(name, ...) #name,
    PSK_TUNE_ARM_LIST(NAME)
#undef NAME
};

int psk_fn_tuned(unsigned fn) { return fn < psk_fn_count_ && psk_fn_table[fn].tuned; }

int psk_arm_count(void) { return PSK_TUNE_NARMS + 1; }

const char *psk_arm_name(int arm)
{
    if (arm == 0)
        return "unknown";
    return arm > 0 && arm <= PSK_TUNE_NARMS ? arm_names[arm - 1] : NULL;
}

/* the tuning library's collective of a recorded function, or -1 */
static int fn_coll(unsigned fn)
{
    switch (fn) {
    case PSK_FN_Alltoall: return PSK_TUNE_C_alltoall;
    case PSK_FN_Bcast: return PSK_TUNE_C_bcast;
    case PSK_FN_Allreduce: return PSK_TUNE_C_allreduce;
    case PSK_FN_Allgather: return PSK_TUNE_C_allgather;
    }
    return -1;
}

int psk_arm_valid(unsigned fn, int64_t arm)
{
    if (arm == 0)
        return 1;
    int c = fn_coll(fn);
    if (c < 0 || arm < 0 || arm > PSK_TUNE_NARMS)
        return 0;
    return arm_coll[arm - 1] < 0 || arm_coll[arm - 1] == c;
}
