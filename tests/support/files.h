/*
 * Test support: whole files in and out, and what a folder holds.  Each
 * helper fails the test (cmocka) when the file system says no, so tests read
 * as the steps they take.  Include after <cmocka.h>.
 */
#ifndef MN_TEST_FILES_H
#define MN_TEST_FILES_H

#include <stddef.h>

/* The bytes of `path` in a malloc'd block with a NUL after them (free it); *size, when
   size is not NULL, receives their count (the NUL not counted). */
void *mn_test_read_file(const char *path, size_t *size);

/* Write `size` bytes to `path`, replacing what was there. */
void mn_test_write_file(const char *path, const void *data, size_t size);

/* The names in folder `dir` other than "." and ".." (the first 32 read), sorted and
   joined with ' ' into out. */
void mn_test_list_dir(const char *dir, char *out, size_t size);

/* A new empty folder /tmp/mn_test_<name>_XXXXXX (mkdtemp), its path into out. */
void mn_test_make_temp_dir(char *out, size_t size, const char *name);

/* Remove folder `dir` and everything under it. */
void mn_test_remove_tree(const char *dir);

#endif /* MN_TEST_FILES_H */
