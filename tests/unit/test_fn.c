/* Unit tests of the recorded-function table (trace_fn.c, generated from
 * src/record/mpi_functions.def): names and ids agree, every function
 * docs/trace-format.md lists as recorded is there, the fields each function
 * carries, and the bytes profiles count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perfskel/trace.h"

#define BIT(f) (1u << (f))

static void test_names_and_ids(void **state)
{
    (void)state;
    unsigned named = 0;
    assert_null(psk_fn_name(0));
    assert_null(psk_fn_name(psk_fn_count()));
    for (unsigned fn = 1; fn < psk_fn_count(); fn++) {
        const char *n = psk_fn_name(fn);
        if (!n)
            continue;
        named++;
        if (psk_fn_polled(fn)) { /* a run of polls, made by merging: "poll:" and the call it polls with */
            assert_true(strncmp(n, "poll:MPI_", 9) == 0);
            assert_string_equal(n + 5, psk_fn_name(psk_fn_polled(fn)));
            assert_int_equal(psk_fn_poll(psk_fn_polled(fn)), fn);
            assert_int_equal(psk_fn_fields(fn) & psk_fn_fields(psk_fn_polled(fn)), psk_fn_fields(psk_fn_polled(fn)));
        } else {
            assert_true(strncmp(n, "MPI_", 4) == 0);
        }
        assert_int_equal(psk_fn_lookup(n), fn);
        assert_in_range(psk_fn_class(fn), 0, PSK_CLASS_COUNT - 1);
        assert_string_not_equal(psk_class_name(psk_fn_class(fn)), "?");
    }
    assert_true(named >= 90); /* the table has 94 functions */
    assert_int_not_equal(psk_fn_poll(psk_fn_lookup("MPI_Testall")), 0); /* polls of every test and Iprobe */
    assert_int_not_equal(psk_fn_poll(psk_fn_lookup("MPI_Iprobe")), 0);
    assert_int_equal(psk_fn_poll(psk_fn_lookup("MPI_Wait")), 0);
    assert_int_equal(psk_fn_polled(psk_fn_lookup("MPI_Testall")), 0);
    /* what ends a run of polls by waiting: the call of the blocking op */
    assert_int_equal(psk_fn_poll_wait(psk_fn_lookup("MPI_Test")), psk_fn_lookup("MPI_Wait"));
    assert_int_equal(psk_fn_poll_wait(psk_fn_lookup("MPI_Testsome")), psk_fn_lookup("MPI_Waitsome"));
    assert_int_equal(psk_fn_poll_wait(psk_fn_lookup("MPI_Iprobe")), psk_fn_lookup("MPI_Probe"));
    assert_int_equal(psk_fn_poll_wait(psk_fn_lookup("MPI_Improbe")), 0); /* never polled */
    assert_int_equal(psk_fn_poll_wait(psk_fn_lookup("MPI_Wait")), 0);
    assert_true(psk_fn_sync(psk_fn_lookup("MPI_Issend")) && !psk_fn_sync(psk_fn_lookup("MPI_Ibsend")));
    assert_true(psk_fn_frees(psk_fn_lookup("MPI_Group_free")) && !psk_fn_frees(psk_fn_lookup("MPI_Request_free")));
    assert_int_equal(psk_fn_of_op(PSK_FNOP_IRECV), psk_fn_lookup("MPI_Irecv"));
    assert_int_equal(psk_fn_of_op(PSK_FNOP_TEST), psk_fn_lookup("MPI_Test")); /* not its run of polls */
    assert_int_equal(psk_fn_lookup("MPI_Wtime"), 0);     /* passes through, not recorded */
    assert_int_equal(psk_fn_lookup("MPI_Comm_rank"), 0);
    assert_int_equal(psk_fn_lookup("mpi_send"), 0);      /* exact names only */
    assert_int_equal(psk_fn_class(0), -1);
    assert_int_equal(psk_fn_fields(0), 0);
}

static void test_required_functions_present(void **state)
{
    (void)state;
    /* what docs/trace-format.md, Recorded functions, says is recorded */
    static const char *const need[] = {
        "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort", "MPI_Pcontrol",
        "MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Recv", "MPI_Isend",
        "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Probe", "MPI_Iprobe",
        "MPI_Send_init", "MPI_Recv_init", "MPI_Start", "MPI_Startall",
        "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test",
        "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Request_free",
        "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather",
        "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv",
        "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter",
        "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",
        "MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Ialltoallw",
        "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create", "MPI_Comm_free",
        "MPI_Comm_group", "MPI_Group_incl", "MPI_Group_free"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        if (!psk_fn_lookup(need[i]))
            fail_msg("%s is not recorded", need[i]);
    }
    unsigned send = psk_fn_lookup("MPI_Send");
    assert_int_equal(psk_fn_fields(send),
                     BIT(PSK_F_COMM) | BIT(PSK_F_PEER) | BIT(PSK_F_TAG) | BIT(PSK_F_COUNT) | BIT(PSK_F_DTSIZE));
    assert_int_equal(psk_fn_class(send), PSK_CLASS_P2P);
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Isend")) & BIT(PSK_F_REQ));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Waitany")) & BIT(PSK_F_INDEX));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Waitall")) & BIT(PSK_F_REQS));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Waitsome")) & BIT(PSK_F_INDICES));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Recv")) & BIT(PSK_F_ASRC));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Alltoallv")) & BIT(PSK_F_COUNTS));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Comm_split")) & BIT(PSK_F_MEMBERS));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Reduce")) & BIT(PSK_F_ROOT));
    assert_true(psk_fn_fields(psk_fn_lookup("MPI_Reduce")) & BIT(PSK_F_OP));
}

static psk_event make(const char *name)
{
    psk_event ev;
    memset(&ev, 0, sizeof ev);
    ev.fn = psk_fn_lookup(name);
    assert_int_not_equal(ev.fn, 0);
    ev.fields = psk_fn_fields(ev.fn);
    return ev;
}

static void test_event_bytes(void **state)
{
    (void)state;
    psk_event ev = make("MPI_Send");
    ev.v[PSK_F_PEER] = 1;
    ev.v[PSK_F_COUNT] = 10;
    ev.v[PSK_F_DTSIZE] = 8;
    assert_int_equal(psk_event_bytes(&ev), 80);
    ev.v[PSK_F_PEER] = PSK_PROC_NULL;
    assert_int_equal(psk_event_bytes(&ev), 0);

    ev = make("MPI_Irecv");
    ev.v[PSK_F_PEER] = PSK_ANY_SOURCE;
    ev.v[PSK_F_COUNT] = 3;
    ev.v[PSK_F_DTSIZE] = 4;
    assert_int_equal(psk_event_bytes(&ev), 12);

    ev = make("MPI_Allreduce");
    ev.v[PSK_F_COUNT] = 5;
    ev.v[PSK_F_DTSIZE] = 8;
    assert_int_equal(psk_event_bytes(&ev), 40);

    int64_t counts[] = {1, 2, 3}, sizes[] = {4, 8, 1};
    ev = make("MPI_Alltoallv");
    PSK_ARR(&ev, PSK_F_COUNTS) = counts;
    PSK_ARRN(&ev, PSK_F_COUNTS) = 3;
    ev.v[PSK_F_DTSIZE] = 4;
    assert_int_equal(psk_event_bytes(&ev), 24);

    ev = make("MPI_Alltoallw");
    PSK_ARR(&ev, PSK_F_COUNTS) = counts;
    PSK_ARRN(&ev, PSK_F_COUNTS) = 3;
    PSK_ARR(&ev, PSK_F_DTSIZES) = sizes;
    PSK_ARRN(&ev, PSK_F_DTSIZES) = 3;
    assert_int_equal(psk_event_bytes(&ev), 1 * 4 + 2 * 8 + 3 * 1);

    ev = make("MPI_Reduce_scatter");
    PSK_ARR(&ev, PSK_F_RCOUNTS) = counts;
    PSK_ARRN(&ev, PSK_F_RCOUNTS) = 3;
    ev.v[PSK_F_DTSIZE] = 2;
    assert_int_equal(psk_event_bytes(&ev), 12);

    ev = make("MPI_Wait");
    assert_int_equal(psk_event_bytes(&ev), 0);
    assert_false(psk_event_in_place(&ev));
    ev.fn = 0;
    assert_int_equal(psk_event_bytes(&ev), 0);
}

/* MPI_IN_PLACE as recorded: a 0-byte send side with a receive side that is
 * not (a scatter's root: the reverse); what an allgather or alltoall made
 * in place counts as sent, a gather's root nothing */
static void test_in_place(void **state)
{
    (void)state;
    static const char *const ag[] = {"MPI_Allgather", "MPI_Ialltoall", "MPI_Gather", "MPI_Scatter"};
    for (int k = 0; k < 4; k++) {
        psk_event ev = make(ag[k]);
        int scat = k == 3;
        ev.v[PSK_F_COUNT] = 6, ev.v[PSK_F_DTSIZE] = 4, ev.v[PSK_F_RCOUNT] = 3, ev.v[PSK_F_RDTSIZE] = 8;
        assert_false(psk_event_in_place(&ev));
        assert_int_equal(psk_event_bytes(&ev), 24);
        ev.v[scat ? PSK_F_RCOUNT : PSK_F_COUNT] = 0;
        assert_true(psk_event_in_place(&ev));
        assert_int_equal(psk_event_bytes(&ev), k < 2 ? 24 : scat ? 24 : 0);
        ev.v[scat ? PSK_F_COUNT : PSK_F_RCOUNT] = 0; /* nothing either way */
        assert_false(psk_event_in_place(&ev));
    }
    psk_event ev = make("MPI_Allreduce"); /* no receive count recorded: never */
    ev.v[PSK_F_COUNT] = 0, ev.v[PSK_F_DTSIZE] = 8;
    assert_false(psk_event_in_place(&ev));
    ev = make("MPI_Recv");
    ev.v[PSK_F_COUNT] = 0, ev.v[PSK_F_DTSIZE] = 8;
    assert_false(psk_event_in_place(&ev));
}

static void test_names_of_constants(void **state)
{
    (void)state;
    assert_string_equal(psk_op_name(PSK_OP_SUM), "MPI_SUM");
    assert_string_equal(psk_op_name(PSK_OP_COUNT), "?");
    assert_string_equal(psk_field_name(PSK_F_PEER), "peer");
    assert_string_equal(psk_field_name(PSK_F_NFIELDS), "?");
    assert_string_equal(psk_flavour_name(PSK_MPI_OPENMPI), "openmpi");
    assert_string_equal(psk_flavour_name(PSK_MPI_MPICH), "mpich");
    for (int s = PSK_EOF; s <= PSK_OK; s++)
        assert_non_null(psk_strstatus(s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_ids),
        cmocka_unit_test(test_required_functions_present),
        cmocka_unit_test(test_event_bytes),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_names_of_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
