/* json_flat FILE: a JSON document as one "path=value" line per scalar
 * (objects' keys joined with '.', arrays' indices as numbers; strings
 * unquoted), so that shell tests can grep the tuning report. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void flat(const char *path, json_t *v)
{
    char sub[1024];
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", k);
            flat(sub, x);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            snprintf(sub, sizeof sub, "%s%s%zu", path, *path ? "." : "", i);
            flat(sub, x);
        }
    } else if (json_is_string(v))
        printf("%s=%s\n", path, json_string_value(v));
    else if (json_is_integer(v))
        printf("%s=%lld\n", path, (long long)json_integer_value(v));
    else if (json_is_real(v))
        printf("%s=%.17g\n", path, json_real_value(v));
    else if (json_is_boolean(v))
        printf("%s=%s\n", path, json_is_true(v) ? "true" : "false");
    else
        printf("%s=null\n", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: json_flat FILE\n");
        return 2;
    }
    json_error_t err;
    json_t *doc = json_load_file(argv[1], 0, &err);
    if (!doc) {
        fprintf(stderr, "json_flat: %s:%d: %s\n", argv[1], err.line, err.text);
        return 1;
    }
    flat("", doc);
    json_decref(doc);
    return 0;
}
