/* Unit tests of the fixed-size file and block headers (trace_pack.c):
 * round trips, the byte layout docs/trace-format.md documents, and
 * detection of damage (every flipped bit: magic or checksum) and of
 * versions it does not read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace_format.h"
#include "trace_pack.h"

static psk_file_header sample_file(void)
{
    psk_file_header h = {.version = PSK_FORMAT_VERSION, .flavour = PSK_MPI_MPICH, .flags = 5,
                         .job_id = 0x0123456789abcdefull, .rank = 3, .nranks = 17,
                         .clock_offset_ns = -123456789, .mono_start_ns = 987654321012ull,
                         .real_start_ns = 1795000000000000000ull, .clock_cost_ns = 15};
    return h;
}

static void test_file_header_roundtrip(void **state)
{
    (void)state;
    psk_file_header h = sample_file(), g;
    uint8_t b[PSK_FILE_HEADER_SIZE];
    psk_pack_file_header(b, &h);
    assert_memory_equal(b, "PSKTRACE", 8);
    /* little-endian at the documented offsets */
    assert_int_equal(b[8], PSK_FORMAT_VERSION);
    assert_int_equal(b[16], 0xef);
    assert_int_equal(b[23], 0x01);
    assert_int_equal(b[24], 3);
    assert_int_equal(b[28], 17);
    memset(&g, 0, sizeof g);
    assert_int_equal(psk_unpack_file_header(b, &g), 0);
    assert_int_equal(g.version, h.version);
    assert_int_equal(g.flavour, h.flavour);
    assert_int_equal(g.flags, h.flags);
    assert_true(g.job_id == h.job_id);
    assert_int_equal(g.rank, h.rank);
    assert_int_equal(g.nranks, h.nranks);
    assert_true(g.clock_offset_ns == h.clock_offset_ns);
    assert_true(g.mono_start_ns == h.mono_start_ns);
    assert_true(g.real_start_ns == h.real_start_ns);
    assert_int_equal(g.clock_cost_ns, h.clock_cost_ns);
}

static void test_file_header_damage(void **state)
{
    (void)state;
    psk_file_header h = sample_file(), g;
    uint8_t b[PSK_FILE_HEADER_SIZE];
    psk_pack_file_header(b, &h);
    /* any flipped bit is caught: bad magic in the first 8 bytes, else the CRC */
    for (int i = 0; i < PSK_FILE_HEADER_SIZE; i++)
        for (int bit = 0; bit < 8; bit++) {
            uint8_t c[PSK_FILE_HEADER_SIZE];
            memcpy(c, b, sizeof c);
            c[i] ^= (uint8_t)(1u << bit);
            assert_int_equal(psk_unpack_file_header(c, &g), i < 8 ? -1 : -2);
        }
    /* versions 2 (arms) and 3 (Cartesian grids) are read; a well-formed
     * header of another version not */
    for (int v = PSK_FORMAT_VERSION_ARMS; v <= PSK_FORMAT_VERSION_CART; v++) {
        h.version = (uint16_t)v;
        psk_pack_file_header(b, &h);
        assert_int_equal(psk_unpack_file_header(b, &g), 0);
        assert_int_equal(g.version, v);
    }
    for (int v = 0; v <= PSK_FORMAT_VERSION_LATEST + 1; v += PSK_FORMAT_VERSION_LATEST + 1) {
        h.version = (uint16_t)v;
        psk_pack_file_header(b, &h);
        assert_int_equal(psk_unpack_file_header(b, &g), -3);
        assert_int_equal(g.version, v);
    }
}

static void test_block_header(void **state)
{
    (void)state;
    uint8_t payload[300];
    for (int i = 0; i < 300; i++)
        payload[i] = (uint8_t)(i * 7);
    psk_block_header h = {.kind = PSK_BLOCK_EVENTS, .payload_len = 300, .n_events = 42,
                          .base_ns = 0x1122334455667788ull, .seq = 9}, g;
    uint8_t b[PSK_BLOCK_HEADER_SIZE];
    psk_pack_block_header(b, &h, payload);
    assert_int_equal(b[0], 0x50); /* "PSKB" little-endian */
    assert_int_equal(psk_unpack_block_header(b, &g), 0);
    assert_int_equal(g.kind, PSK_BLOCK_EVENTS);
    assert_int_equal(g.payload_len, 300);
    assert_int_equal(g.n_events, 42);
    assert_true(g.base_ns == h.base_ns);
    assert_int_equal(g.seq, 9);
    assert_int_equal(g.crc, h.crc);
    assert_true(psk_block_crc_ok(b, payload, 300));
    for (int i = 0; i < 300; i++) {
        payload[i] ^= 0x10;
        assert_false(psk_block_crc_ok(b, payload, 300));
        payload[i] ^= 0x10;
    }
    for (int i = 4; i < 28; i++) {
        b[i] ^= 1;
        assert_false(psk_block_crc_ok(b, payload, 300));
        b[i] ^= 1;
    }
    b[1] ^= 0xff;
    assert_int_equal(psk_unpack_block_header(b, &g), -1);
    /* empty payloads are fine */
    psk_block_header e = {.kind = PSK_BLOCK_END, .payload_len = 0, .seq = 1};
    psk_pack_block_header(b, &e, NULL);
    assert_true(psk_block_crc_ok(b, NULL, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_header_roundtrip),
        cmocka_unit_test(test_file_header_damage),
        cmocka_unit_test(test_block_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
