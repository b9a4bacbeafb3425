/*
 * libFuzzer target: lk_svg_inline, which rewrites the SVG gnuplot
 * writes (external text) for inlining into the report's page. Whatever
 * the bytes, it must not crash, and it only ever inserts: the output is
 * never shorter than the input from its first "<svg" on.
 *
 * src/plot is not among the sources tests/fuzz/run.sh links, so the
 * one file under test is included here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/plot/svg.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct lk_buf out = LK_BUF_INIT;
	const char *svg;

	memcpy(text, data, size);
	text[size] = '\0';
	lk_svg_inline(&out, text, "p-");
	svg = strstr(text, "<svg");
	if (!svg && out.len)
		abort();
	if (svg && out.len < strlen(svg))
		abort();
	lk_buf_release(&out);
	free(text);
	return 0;
}
