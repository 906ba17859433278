/* The skeletons' replay from data (src/gen): gen_data.c writes calls of
 * every function gen_replayable() accepts (by its op), and replay_ in
 * skel_runtime.c, copied into each skeleton as text, replays them by
 * function id. Every such function must have its case there, or a skeleton
 * stops at it ("not replayable"): a function added to
 * src/record/mpi_functions.def with an op gen replays needs one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gen_internal.h"

extern const char psk_skel_runtime_text[];

static void test_replay_cases(void **state)
{
    (void)state;
    int replayable = 0;
    for (unsigned fn = 1; fn < psk_fn_count(); fn++) {
        const char *name = psk_fn_name(fn);
        if (!name || !gen_replayable(fn))
            continue;
        char label[96]; /* "MPI_Send" -> "case PSK_FN_Send:", "poll:MPI_Test" -> "case PSK_FN_Test_poll:" */
        int poll = strncmp(name, "poll:", 5) == 0;
        snprintf(label, sizeof label, "case PSK_FN_%s%s:", name + (poll ? 9 : 4), poll ? "_poll" : "");
        if (!strstr(psk_skel_runtime_text, label))
            fail_msg("%s is replayed from data (gen_replayable) but skel_runtime.c's replay_ has no `%s`", name,
                     label);
        replayable++;
    }
    assert_true(replayable > 50);
    assert_false(gen_replayable(psk_fn_lookup("MPI_Init")));
    assert_false(gen_replayable(psk_fn_lookup("MPI_Comm_split")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replay_cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
