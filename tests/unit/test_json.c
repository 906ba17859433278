/* Unit tests of the streaming JSON writer (psk_json.c): exact compact
 * output, escaping, and that pretty output parses (with jansson) to the
 * same document. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "psk_json.h"

static void write_doc(FILE *f, int pretty)
{
    psk_json j;
    psk_json_init(&j, f, pretty);
    psk_json_obj(&j, NULL);
    psk_json_str(&j, "name", "a \"quoted\"\\ line\n\ttab\x01");
    psk_json_int(&j, "neg", -42);
    psk_json_uint(&j, "big", UINT64_MAX);
    psk_json_num(&j, "half", 0.5);
    psk_json_num(&j, "nan", NAN);
    psk_json_bool(&j, "yes", 1);
    psk_json_null(&j, "nothing");
    psk_json_arr(&j, "list");
    psk_json_int(&j, NULL, 1);
    psk_json_obj(&j, NULL);
    psk_json_end(&j);
    psk_json_arr(&j, NULL);
    psk_json_end(&j);
    psk_json_str(&j, NULL, "x");
    psk_json_end(&j);
    psk_json_obj(&j, "ranks");
    psk_json_int(&j, "MPI_Send", 1600);
    psk_json_end(&j);
    psk_json_end(&j);
}

static char *render(int pretty)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    write_doc(f, pretty);
    fclose(f);
    return buf;
}

static void test_compact_exact(void **state)
{
    (void)state;
    char *s = render(0);
    assert_string_equal(s,
        "{\"name\":\"a \\\"quoted\\\"\\\\ line\\n\\ttab\\u0001\",\"neg\":-42,"
        "\"big\":18446744073709551615,\"half\":0.5,\"nan\":null,\"yes\":true,"
        "\"nothing\":null,\"list\":[1,{},[],\"x\"],\"ranks\":{\"MPI_Send\":1600}}");
    free(s);
}

/* the spaced layout, with the caller's line breaks, a key before a line
 * break, numbers in a given format, and a string made safe for HTML: the
 * exact bytes sim's report and its page are made of */
static void test_spaced_exact(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    psk_json j;
    psk_json_init(&j, f, PSK_JSON_SPACED);
    psk_json_obj(&j, NULL);
    psk_json_break(&j, 2);
    psk_json_numf(&j, "t", "%.9g", 1.0 / 3);
    psk_json_break(&j, 2);
    psk_json_obj(&j, "m");
    psk_json_numf(&j, "a", "%.1f", 2.25);
    psk_json_int(&j, "b", 3);
    psk_json_end(&j);
    psk_json_break(&j, 2);
    psk_json_key(&j, "tree");
    psk_json_newline(&j, 2);
    psk_json_arr(&j, NULL);
    psk_json_break(&j, 4);
    psk_json_str(&j, NULL, "x");
    psk_json_break(&j, 4);
    psk_json_numf(&j, NULL, "%.9g", INFINITY);
    psk_json_newline(&j, 2);
    psk_json_end(&j);
    j.html = 1;
    psk_json_str(&j, "h", "</script>&");
    psk_json_newline(&j, 0);
    psk_json_end(&j);
    fclose(f);
    assert_string_equal(buf, "{\n  \"t\": 0.333333333,\n  \"m\": {\"a\": 2.2, \"b\": 3},\n  \"tree\":\n  [\n"
                             "    \"x\",\n    null\n  ], \"h\": \"\\u003c/script\\u003e\\u0026\"\n}");
    free(buf);
}

static void test_pretty_parses_same(void **state)
{
    (void)state;
    char *a = render(0), *b = render(1);
    json_error_t e;
    json_t *ja = json_loads(a, JSON_DECODE_INT_AS_REAL, &e), *jb = json_loads(b, JSON_DECODE_INT_AS_REAL, &e);
    assert_non_null(ja);
    assert_non_null(jb);
    assert_true(json_equal(ja, jb));
    assert_string_equal(json_string_value(json_object_get(jb, "name")), "a \"quoted\"\\ line\n\ttab\x01");
    assert_non_null(strchr(b, '\n'));
    json_decref(ja);
    json_decref(jb);
    free(a);
    free(b);
}

static void test_doubles_roundtrip(void **state)
{
    (void)state;
    const double vals[] = {0.0, 1e-9, 123.456789012345, -2.5e300, 3.0};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        psk_json j;
        psk_json_init(&j, f, 0);
        psk_json_arr(&j, NULL);
        psk_json_num(&j, NULL, vals[i]);
        psk_json_end(&j);
        fclose(f);
        json_error_t e;
        json_t *v = json_loads(buf, 0, &e);
        assert_non_null(v);
        assert_true(json_number_value(json_array_get(v, 0)) == vals[i]);
        json_decref(v);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_exact),
        cmocka_unit_test(test_pretty_parses_same),
        cmocka_unit_test(test_spaced_exact),
        cmocka_unit_test(test_doubles_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
