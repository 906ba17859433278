/* The arms and collectives of the tuning library by name, from the one
 * table of include/perfskel/coll.h (PSK_TUNE_ARM_LIST, PSK_TUNE_COLL_LIST):
 * which collective an arm belongs to and the names the decision file, the
 * report and the CLI use. No MPI: the CLI links it (tune_dbline.h). */
#include <string.h>

#include "tune_dbline.h"

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

static const char *const coll_names[PSK_TUNE_NCOLL] = {
#define NAME(name, ...) #name,
    PSK_TUNE_COLL_LIST(NAME)
#undef NAME
};

int psk_tune_arm_coll(int arm) { return arm >= 0 && arm < PSK_TUNE_NARMS ? arm_coll[arm] : -2; }

const char *psk_tune_coll_name(int coll) { return coll >= 0 && coll < PSK_TUNE_NCOLL ? coll_names[coll] : "?"; }

const char *psk_tune_coll_mpi_name(int coll)
{
    static const char *const mpi[PSK_TUNE_NCOLL] = {
#define MPI(name, id, fn) #fn,
        PSK_TUNE_COLL_LIST(MPI)
#undef MPI
    };
    return coll >= 0 && coll < PSK_TUNE_NCOLL ? mpi[coll] : "?";
}

const char *psk_tune_arm_name(int arm) { return arm >= 0 && arm < PSK_TUNE_NARMS ? arm_names[arm] : "?"; }

int psk_tune_arm_parse(const char *name)
{
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (!strcmp(name, arm_names[a]))
            return a;
    return -1;
}
