/*
 * testlib.h - what the C tests share: finding the tree and reading fixtures.
 * The test programs are built into build/tests, so the top of the tree is
 * two levels above the source directory ATF tells each test.
 */
#ifndef UBC_TESTLIB_H
#define UBC_TESTLIB_H

#include <atf-c.h>

/* The path of rel under the top of the tree; a static buffer. */
const char *tl_path(const atf_tc_t *tc, const char *rel);

/* The whole text of the fixture at rel (under the top); fails the test. */
char *tl_read(const atf_tc_t *tc, const char *rel);

#endif
