/*
 * libFuzzer target: llvm-mca's report and error parsers on arbitrary
 * text. They must never crash, leak or hit undefined behaviour; every
 * region they return must have a name and a section that is part of the
 * input, and every error line a number above 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/predict/predict-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

/* run.sh builds with recoverable UBSan checks: make any report fatal. */
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

static void check_regions(const char *text)
{
	struct lk_mca_region *r;
	size_t n, i;

	lk_mca_parse(text, &r, &n);
	for (i = 0; i < n; i++) {
		if (!r[i].name || !r[i].section || !strstr(text, r[i].section))
			abort();
		if (r[i].iterations < -1 || r[i].total_cycles < -1)
			abort();
		lk_mca_difference(r[i].iterations, r[i].total_cycles,
				  r[i].iterations + 1, r[i].total_cycles);
	}
	lk_mca_regions_free(r, n);
}

static void check_errors(const char *text)
{
	struct lk_strv insns = LK_STRV_INIT;
	long *lines;
	size_t n, i;

	lk_mca_errors(text, &lines, &n, &insns);
	for (i = 0; i < n; i++) {
		char *msg = lk_mca_error_at(text, lines[i]);

		if (lines[i] <= 0 || !msg)
			abort();
		free(msg);
	}
	free(lines);
	lk_strv_release(&insns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct lk_buf line = LK_BUF_INIT;

	memcpy(text, data, size);
	text[size] = '\0';
	check_regions(text);
	check_errors(text);
	lk_buf_adds(&line, text);
	lk_asm_fix_line(&line);
	lk_buf_release(&line);
	free(text);
	return 0;
}
