/*
 * tmpdir.h: a unit test suite's scratch directory, made by the suite's
 * setup (tmpdir_make) and removed with all it holds by its teardown
 * (tmpdir_remove).
 */
#ifndef LK_TEST_TMPDIR_H
#define LK_TEST_TMPDIR_H

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

static char tmpdir[64];

static int tmpdir_rm_entry(const char *path, const struct stat *st, int flag,
			   struct FTW *ftw)
{
	return remove(path);
}

/* tmpdir becomes a new /tmp/lk-test-NAME-XXXXXX. */
static void tmpdir_make(const char *name)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lk-test-%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void tmpdir_remove(void)
{
	nftw(tmpdir, tmpdir_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
