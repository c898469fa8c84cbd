/* Test support: whole files and folder listings (see files.h). */
#define _POSIX_C_SOURCE 200809L /* opendir, readdir, mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *mn_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    assert_true(n >= 0);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    data[n] = '\0';
    fclose(f);
    if (size)
        *size = (size_t)n;
    return data;
}

void mn_test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

void mn_test_list_dir(const char *dir, char *out, size_t size)
{
    char names[32][256];
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 32)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], compare_names);
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "", names[i]);
}

void mn_test_make_temp_dir(char *out, size_t size, const char *name)
{
    int n = snprintf(out, size, "/tmp/mn_test_%s_XXXXXX", name);
    assert_true(n > 0 && (size_t)n < size);
    assert_non_null(mkdtemp(out));
}

void mn_test_remove_tree(const char *dir)
{
    char cmd[600];
    int n = snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    assert_int_equal(system(cmd), 0);
}
