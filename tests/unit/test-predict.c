/*
 * predict: the llvm-mca batch file, the report parser on captured
 * outputs, differencing, the error attribution that keeps one bad block
 * from sinking a batch (with a stand-in llvm-mca, and with the real one
 * when installed), block text fixes, adapters, the predict: section and
 * the predictions table.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/config.h"
#include "loopkit/predict.h"
#include "loopkit/store.h"
#include "../../src/predict/predict-int.h"
#include "tmpdir.h"

static struct lk_ctx ctx;
static void setup(void)
{
	tmpdir_make("predict");
	lk_ctx_init(&ctx);
}

static void teardown(void)
{
	tmpdir_remove();
}

TestSuite(predict, .init = setup, .fini = teardown);

static char *data(const char *name)
{
	const char *dir = getenv("LOOPKIT_TEST_DATA");

	return lk_asprintf("%s/predict/%s", dir ? dir : "tests/data", name);
}

static char *read_data(const char *name)
{
	char *path = data(name), *text;
	size_t len;

	cr_assert_eq(lk_file_read(&ctx, path, &text, &len), 0, "%s", ctx.msg);
	free(path);
	return text;
}

/* ---- The batch file. ---- */

Test(predict, batch_text_regions_and_lines)
{
	const char *texts[] = {"addq %rax, %rbx\nimulq %rbx, %rbx\n",
			       "jne 1f\n1:\n", "nop"};
	struct lk_buf out = LK_BUF_INIT;
	long first[3], last[3];

	lk_mca_batch_text(texts, 3, &out, first, last);
	cr_assert_str_eq(lk_buf_str(&out),
			 "# LLVM-MCA-BEGIN b0\n"
			 "addq %rax, %rbx\n"
			 "imulq %rbx, %rbx\n"
			 "# LLVM-MCA-END b0\n"
			 "# LLVM-MCA-BEGIN b1\n"
			 "jne 1f\n"
			 "1:\n"
			 "# LLVM-MCA-END b1\n"
			 "# LLVM-MCA-BEGIN b2\n"
			 "nop\n"
			 "# LLVM-MCA-END b2\n");
	cr_assert_eq(first[0], 2);
	cr_assert_eq(last[0], 3);
	cr_assert_eq(first[1], 6);
	cr_assert_eq(last[1], 7);
	cr_assert_eq(first[2], 10);
	cr_assert_eq(last[2], 10);
	lk_buf_release(&out);
}

/* ---- Differencing. ---- */

Test(predict, difference_removes_fill_and_drain)
{
	/* 4 cycles/iter plus a constant 37-cycle start-up. */
	cr_assert_float_eq(lk_mca_difference(100, 437, 200, 837), 4.0, 1e-12);
	/* Total/iterations would have said 4.37: the bias is gone. */
	cr_assert_float_eq(lk_mca_difference(10, 25, 30, 55), 1.5, 1e-12);
	cr_assert_eq(lk_mca_difference(200, 837, 100, 437), -1);
	cr_assert_eq(lk_mca_difference(100, 437, 100, 437), -1);
	cr_assert_eq(lk_mca_difference(100, -1, 200, 837), -1);
	cr_assert_eq(lk_mca_difference(0, 0, 200, 837), -1);
}

/* ---- The report parser on captured outputs. ---- */

Test(predict, parse_captured_llvm_mca_19)
{
	char *r1 = read_data("mca19-two-100.txt");
	char *r2 = read_data("mca19-two-200.txt");
	struct lk_mca_region *a, *b;
	size_t na, nb;

	lk_mca_parse(r1, &a, &na);
	lk_mca_parse(r2, &b, &nb);
	cr_assert_eq(na, 2);
	cr_assert_eq(nb, 2);
	cr_assert_str_eq(a[0].name, "b0");
	cr_assert_str_eq(a[1].name, "b1");
	cr_assert_eq(a[0].iterations, 100);
	cr_assert_float_eq(a[0].total_cycles, 403, 1e-9);
	cr_assert_float_eq(a[1].total_cycles, 55, 1e-9);
	cr_assert_eq(b[1].iterations, 200);
	cr_assert_float_eq(b[1].total_cycles, 105, 1e-9);
	/* add then a 3-cycle imul on one register: 4 cycles a round. */
	cr_assert_float_eq(lk_mca_difference(a[0].iterations,
					     a[0].total_cycles,
					     b[0].iterations,
					     b[0].total_cycles), 4.0, 1e-12);
	cr_assert_float_eq(lk_mca_difference(a[1].iterations,
					     a[1].total_cycles,
					     b[1].iterations,
					     b[1].total_cycles), 0.5, 1e-12);
	/* Each section is its own region's, up to the next header. */
	cr_assert(!strncmp(a[0].section, "[0] Code Region - b0", 20));
	cr_assert_null(strstr(a[0].section, "Code Region - b1"));
	cr_assert_not_null(strstr(a[0].section, "imulq"));
	cr_assert_null(strstr(a[0].section, "vaddpd"));
	cr_assert_not_null(strstr(a[1].section, "vaddpd"));
	lk_mca_regions_free(a, na);
	lk_mca_regions_free(b, nb);
	free(r1);
	free(r2);
}

Test(predict, parse_captured_llvm_mca_14)
{
	char *r = read_data("mca14-two-100.txt");
	struct lk_mca_region *a;
	size_t n;

	lk_mca_parse(r, &a, &n);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(a[1].name, "b1");
	cr_assert_float_eq(a[1].total_cycles, 73, 1e-9);
	lk_mca_regions_free(a, n);
	free(r);
}

Test(predict, parse_without_regions_and_garbage)
{
	struct lk_mca_region *a;
	size_t n;

	lk_mca_parse("Iterations:        10\nInstructions: 20\n"
		     "Total Cycles:      25\n", &a, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(a[0].name, "");
	cr_assert_eq(a[0].iterations, 10);
	cr_assert_float_eq(a[0].total_cycles, 25, 1e-9);
	lk_mca_regions_free(a, n);
	lk_mca_parse("[0] Code Region - x\nTotal Cycles: many\n[zz] Code\n"
		     "Iterations: -5\n", &a, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(a[0].iterations, -1);
	cr_assert_eq(a[0].total_cycles, -1);
	lk_mca_regions_free(a, n);
	lk_mca_parse("", &a, &n);
	cr_assert_eq(n, 0);
	lk_mca_regions_free(a, n);
}

Test(predict, errors_name_lines_and_instructions)
{
	char *e19 = read_data("mca19-parse.err");
	char *e14 = read_data("mca14-unsupported.err");
	struct lk_strv insns = LK_STRV_INIT;
	long *lines;
	size_t n;
	char *msg;

	lk_mca_errors(e19, &lines, &n, &insns);
	cr_assert_eq(n, 1);
	cr_assert_eq(lines[0], 5);
	cr_assert_eq(insns.n, 0);
	msg = lk_mca_error_at(e19, 5);
	cr_assert_str_eq(msg, "invalid instruction mnemonic 'bogus': "
			      "bogus %rax");
	free(msg);
	cr_assert_null(lk_mca_error_at(e19, 4));
	free(lines);
	lk_mca_errors(e14, &lines, &n, &insns);
	cr_assert_eq(n, 0);
	cr_assert_eq(insns.n, 1);
	cr_assert_str_eq(insns.v[0], "vaddpd %zmm0, %zmm1, %zmm2");
	free(lines);
	lk_strv_release(&insns);
	free(e19);
	free(e14);
}

/* ---- Block text. ---- */

static void check_fix(const char *in, int kind, const char *out)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_adds(&b, in);
	cr_assert_eq(lk_asm_fix_line(&b), kind, "%s", in);
	cr_assert_str_eq(lk_buf_str(&b), out, "%s", in);
	lk_buf_release(&b);
}

Test(predict, branch_targets_become_a_label)
{
	check_fix("\tjne\t-33", 1, "jne 1f");
	check_fix("jnz 0x2590", 1, "jnz 1f");
	check_fix("jmp 0x49", 1, "jmp 1f");
	check_fix("jrcxz -16", 1, "jrcxz 1f");
	check_fix("loop 0x10", 1, "loop 1f");
	check_fix("notrack jmpq *%rax", 0, "notrack jmpq *%rax");
	check_fix("jmpq *0x10(%rip)", 0, "jmpq *0x10(%rip)");
	check_fix("\tcallq\t0", 2, "callq 0");
	check_fix("callq *%rax", 2, "callq *%rax");
	check_fix("call 0x72", 2, "call 0x72");
	check_fix("rep\t\tretq", 0, "rep retq");
	check_fix("vmovupd\t16(%rip), %ymm0", 0, "vmovupd 16(%rip), %ymm0");
	check_fix("jne .Lfoo", 0, "jne .Lfoo");
}

Test(predict, zydis_text_calls_dropped)
{
	struct lk_pblock b[3] = {
		{.hash = "a", .att = "add $0x08, %rbx\ncmp %rbx, %r12\n"
				      "jz 0x8f\n"},
		{.hash = "b", .att = "mov %rbp, %rdi\ncall 0x72\n"},
		{.hash = "c", .att = "call 0x72\n"},
	};
	struct lk_asm out[3] = {{0}};
	size_t i;

	cr_assert_eq(lk_asm_blocks(&ctx, NULL, b, 3, 10, out), 0);
	cr_assert_str_eq(out[0].text, "add $0x08, %rbx\ncmp %rbx, %r12\n"
				      "jz 1f\n1:\n");
	cr_assert_not_null(strstr(out[1].text, "mov %rbp, %rdi\n"));
	cr_assert_not_null(strstr(out[1].text, "# dropped: call 0x72"));
	cr_assert_null(out[2].text);
	cr_assert(out[2].unsupported);
	cr_assert_not_null(strstr(out[2].reason, "only a call"));
	for (i = 0; i < 3; i++)
		lk_asm_release(&out[i]);
}

static char *llvm_mc(void)
{
	char *mc = lk_which("llvm-mc-19");

	return mc ? mc : lk_which("llvm-mc");
}

Test(predict, llvm_mc_text_of_bytes)
{
	/* vmovupd (%rdx,%rax),%zmm0 ; jne -0x21 ; then 0xff 0xff. */
	static const uint8_t z[] = {0x62, 0xf1, 0xfd, 0x48, 0x10, 0x04, 0x02,
				    0x75, 0xdf};
	static const uint8_t rip[] = {0xc5, 0xfd, 0x10, 0x05, 0x10, 0x00,
				      0x00, 0x00};
	static const uint8_t bad[] = {0x31, 0xc0, 0xff, 0xff};
	struct lk_pblock b[3] = {{.hash = "z", .bytes = z, .len = sizeof(z)},
				 {.hash = "r", .bytes = rip,
				  .len = sizeof(rip)},
				 {.hash = "x", .bytes = bad,
				  .len = sizeof(bad)}};
	struct lk_asm out[3] = {{0}};
	char *mc = llvm_mc();
	size_t i;

	if (!mc)
		cr_skip_test("llvm-mc is not installed");
	cr_assert_eq(lk_asm_blocks(&ctx, mc, b, 3, 30, out), 0, "%s",
		     ctx.msg);
	cr_assert_str_eq(out[0].text, "vmovupd (%rdx,%rax), %zmm0\n"
				      "jne 1f\n1:\n");
	cr_assert_str_eq(out[1].text, "vmovupd 16(%rip), %ymm0\n");
	cr_assert_null(out[2].text);
	cr_assert_not_null(strstr(out[2].reason, "cannot decode"), "%s",
			   out[2].reason);
	for (i = 0; i < 3; i++)
		lk_asm_release(&out[i]);
	free(mc);
}

/* ---- The batch with a stand-in llvm-mca. ---- */

static struct lk_predictor *fake_mca(size_t max_batch, double timeout)
{
	struct lk_mca_install m = {0};
	struct lk_mca_opts o = {"fakecpu", {100, 300}, timeout, max_batch,
				1};
	struct lk_predictor *p;

	m.path = data("fake-mca.sh");
	m.name = "llvm-mca-fake";
	m.version = "0.0";
	m.cpus_loaded = 1;
	lk_strv_push(&m.cpus, "fakecpu");
	cr_assert_eq(lk_mca_predictor(&ctx, &m, &o, &p), 0);
	free(m.path);
	lk_strv_release(&m.cpus);
	return p;
}

static void run_blocks(struct lk_predictor *p, const char *const *att,
		       size_t n, struct lk_pred *out)
{
	struct lk_pblock *b = lk_calloc(n, sizeof(*b));
	size_t i;

	for (i = 0; i < n; i++) {
		b[i].hash = att[i];
		b[i].att = att[i];
	}
	cr_assert_eq(p->predict(&ctx, p, b, n, out), 0, "%s", ctx.msg);
	free(b);
}

Test(predict, one_bad_block_does_not_sink_the_batch)
{
	const char *att[] = {"add %rax, %rbx\n",
			     "add %rax, %rbx\nbogus %rax\nsub %rax, %rbx\n",
			     "mov %rax, %rbx\nsub %rcx, %rdx\njnz 0x10\n",
			     "bogus\n", "nop\nnop\nnop\nnop\n"};
	struct lk_predictor *p = fake_mca(0, 10);
	struct lk_pred out[5] = {{0}};
	size_t i;

	cr_assert_str_eq(p->params, "-mcpu=fakecpu -iterations=100,300 "
				    "text=zydis");
	run_blocks(p, att, 5, out);
	cr_assert_str_eq(out[0].status, "ok");
	cr_assert_float_eq(out[0].value, 1, 1e-12);
	cr_assert_str_eq(out[1].status, "failed");
	cr_assert_not_null(strstr(out[1].reason, "bogus"), "%s",
			   out[1].reason);
	cr_assert_str_eq(out[2].status, "ok");
	cr_assert_float_eq(out[2].value, 3, 1e-12);
	cr_assert_str_eq(out[3].status, "failed");
	cr_assert_str_eq(out[4].status, "ok");
	cr_assert_float_eq(out[4].value, 4, 1e-12);
	cr_assert_str_eq(out[4].unit, "cycles/iter");
	cr_assert_not_null(strstr(out[4].raw, "-iterations=300"));
	cr_assert_not_null(strstr(out[4].raw, "Total Cycles:      1207"));
	cr_assert_str_eq(out[4].input, "nop\nnop\nnop\nnop\n");
	for (i = 0; i < 5; i++)
		lk_pred_release(&out[i]);
	lk_predictor_free(p);
}

Test(predict, a_crash_naming_nothing_is_bisected)
{
	const char *att[] = {"add %rax, %rbx\n", "vcrash\n",
			     "nop\nnop\n", "inc %rax\n", "dec %rax\n"};
	struct lk_predictor *p = fake_mca(4, 10);
	struct lk_pred out[5] = {{0}};
	size_t i;

	run_blocks(p, att, 5, out);
	for (i = 0; i < 5; i++) {
		cr_assert_str_eq(out[i].status, i == 1 ? "failed" : "ok",
				 "block %zu: %s", i, out[i].reason);
		if (i != 1)
			cr_assert_gt(out[i].value, 0);
	}
	cr_assert_not_null(strstr(out[1].reason, "SIGSEGV"), "%s",
			   out[1].reason);
	cr_assert_float_eq(out[2].value, 2, 1e-12);
	for (i = 0; i < 5; i++)
		lk_pred_release(&out[i]);
	lk_predictor_free(p);
}

Test(predict, a_block_past_the_timeout_is_timed_out)
{
	const char *att[] = {"add %rax, %rbx\n", "vslow\n"};
	struct lk_predictor *p = fake_mca(0, 0.5);
	struct lk_pred out[2] = {{0}};

	run_blocks(p, att, 2, out);
	cr_assert_str_eq(out[0].status, "ok");
	cr_assert_str_eq(out[1].status, "timed-out", "%s", out[1].reason);
	lk_pred_release(&out[0]);
	lk_pred_release(&out[1]);
	lk_predictor_free(p);
}

Test(predict, a_missing_llvm_mca_is_an_error)
{
	struct lk_mca_install m = {0};
	struct lk_mca_opts o = {"x", {0, 0}, 5, 0, 1};
	struct lk_predictor *p;
	const char *att[] = {"nop\n"};
	struct lk_pblock b = {.hash = "h", .att = att[0]};
	struct lk_pred out = {0};

	m.path = "/nonexistent/llvm-mca";
	m.name = "llvm-mca-0";
	m.version = "0";
	cr_assert_eq(lk_mca_predictor(&ctx, &m, &o, &p), 0);
	cr_assert_str_eq(p->params, "-mcpu=generic -iterations=100,200 "
				    "text=zydis");
	cr_assert_not_null(strstr(p->note, "does not know -mcpu=x"));
	cr_assert_lt(p->predict(&ctx, p, &b, 1, &out), 0);
	cr_assert_not_null(strstr(ctx.msg, "/nonexistent/llvm-mca"), "%s",
			   ctx.msg);
	lk_pred_release(&out);
	lk_predictor_free(p);
}

/* ---- The real llvm-mca, when there is one. ---- */

Test(predict, real_llvm_mca_rejected_block_and_the_rest)
{
	struct lk_mca_install *m;
	struct lk_mca_opts o = {NULL, {100, 200}, 60, 0, 2};
	const char *att[] = {"add %rax, %rbx\nimul %rbx, %rbx\n",
			     "bogus %rax\n",
			     "add %rcx, %rcx\njnz 0x10\n"};
	struct lk_predictor *p;
	struct lk_pred out[3] = {{0}};
	char *cpu;
	size_t n, i;

	cr_assert_eq(lk_mca_find(&ctx, &m, &n), 0);
	if (!n)
		cr_skip_test("no llvm-mca installed");
	cpu = lk_mca_host_cpu(m, n);
	o.mcpu = cpu;
	lk_mca_load_cpus(&m[0]);
	cr_assert_gt(m[0].cpus.n, 10);
	free(m[0].llvm_mc); /* the Zydis-text path: att as written */
	m[0].llvm_mc = NULL;
	cr_assert_eq(lk_mca_predictor(&ctx, &m[0], &o, &p), 0);
	cr_assert_null(strstr(p->params, "native"));
	run_blocks(p, att, 3, out);
	cr_assert_str_eq(out[0].status, "ok", "%s", out[0].reason);
	/* add (1) then imul (3) on one chain: 4 cycles a round anywhere. */
	cr_assert_float_eq(out[0].value, 4, 0.05);
	cr_assert_str_eq(out[1].status, "failed");
	cr_assert_not_null(strstr(out[1].reason, "bogus"));
	cr_assert_str_eq(out[2].status, "ok", "%s", out[2].reason);
	cr_assert_gt(out[2].value, 0);
	for (i = 0; i < 3; i++)
		lk_pred_release(&out[i]);
	lk_predictor_free(p);
	free(cpu);
	lk_mca_installs_free(m, n);
}

Test(predict, cpu_fallback_to_an_older_relative)
{
	struct lk_mca_install m = {0};
	char *note, *cpu;

	m.name = "llvm-mca-14";
	lk_strv_push(&m.cpus, "znver2");
	lk_strv_push(&m.cpus, "znver3");
	lk_strv_push(&m.cpus, "skylake");
	cpu = lk_mca_pick_cpu(&m, "znver5", &note);
	cr_assert_str_eq(cpu, "znver3");
	cr_assert_not_null(strstr(note, "does not know -mcpu=znver5"));
	free(cpu);
	free(note);
	cpu = lk_mca_pick_cpu(&m, "skylake", &note);
	cr_assert_str_eq(cpu, "skylake");
	cr_assert_str_eq(note, "");
	free(cpu);
	free(note);
	cpu = lk_mca_pick_cpu(&m, "icelake-client", &note);
	cr_assert_str_eq(cpu, "skylake");
	free(cpu);
	free(note);
	cpu = lk_mca_pick_cpu(&m, "", &note);
	cr_assert_str_eq(cpu, "generic");
	cr_assert_neq(*note, '\0');
	free(cpu);
	free(note);
	lk_strv_release(&m.cpus);
}

/* ---- Adapters. ---- */

static struct lk_adapter_config *adapter(const char *prog, const char *re,
					 int iaca, const char *arch)
{
	struct lk_adapter_config *a = lk_calloc(1, sizeof(*a));

	a->name = lk_strdup("fake");
	lk_strv_push_take(&a->command, prog[0] == '/' ? lk_strdup(prog)
						      : data(prog));
	lk_strv_push(&a->command, "{asm}");
	lk_strv_push(&a->command, "{arch}");
	a->parse = lk_strdup(re);
	a->iaca_markers = iaca;
	a->arch = arch ? lk_strdup(arch) : NULL;
	a->line = 12;
	return a;
}

static void adapter_free(struct lk_adapter_config *a)
{
	free(a->name);
	lk_strv_release(&a->command);
	free(a->parse);
	free(a->arch);
	lk_strv_release(&a->version);
	free(a);
}

Test(predict, adapter_one_process_per_block)
{
	struct lk_adapter_config *a = adapter("fake-tool.sh",
					      "Throughput: ([0-9.]+)", 1,
					      NULL);
	const char *att[] = {"add %rax, %rbx\n", "nop\nnop\njnz 0x2\n",
			     "call 0x10\n"};
	struct lk_predictor *p;
	struct lk_pred out[3] = {{0}};
	size_t i;

	cr_assert_eq(lk_adapter_predictor(&ctx, a, "skylake", NULL, 200, 10,
					  "c.yaml", &p), 0, "%s", ctx.msg);
	cr_assert_str_eq(p->version, "unknown");
	cr_assert_not_null(strstr(p->params, "arch=SKL"));
	cr_assert_not_null(strstr(p->params, "markers=iaca"));
	run_blocks(p, att, 3, out);
	cr_assert_str_eq(out[0].status, "ok", "%s", out[0].reason);
	cr_assert_float_eq(out[0].value, 1, 1e-12);
	cr_assert_float_eq(out[1].value, 3, 1e-12);
	cr_assert_not_null(strstr(out[1].raw, "markers: yes"));
	cr_assert_not_null(strstr(out[1].raw, "arch: SKL"));
	cr_assert_not_null(strstr(out[1].input, "movl $111, %ebx\n"
						".byte 0x64, 0x67, 0x90\n"));
	cr_assert_not_null(strstr(out[1].input, "movl $222, %ebx\n"
						".byte 0x64, 0x67, 0x90\n"));
	cr_assert_str_eq(out[2].status, "unsupported");
	for (i = 0; i < 3; i++)
		lk_pred_release(&out[i]);
	lk_predictor_free(p);
	adapter_free(a);
}

Test(predict, adapter_rule_matching_nothing_fails_the_block)
{
	struct lk_adapter_config *a = adapter("fake-tool.sh",
					      "Cycles: ([0-9]+)", 0, "ZEN4");
	const char *att[] = {"add %rax, %rbx\n"};
	struct lk_predictor *p;
	struct lk_pred out = {0};

	cr_assert_eq(lk_adapter_predictor(&ctx, a, "znver5", NULL, 200, 10,
					  NULL, &p), 0, "%s", ctx.msg);
	run_blocks(p, att, 1, &out);
	cr_assert_str_eq(out.status, "failed");
	cr_assert_not_null(strstr(out.reason, "matches nothing"));
	cr_assert_not_null(strstr(out.raw, "arch: ZEN4"));
	cr_assert_not_null(strstr(out.raw, "markers: no"));
	lk_pred_release(&out);
	lk_predictor_free(p);
	adapter_free(a);
}

Test(predict, adapter_tool_failing_fails_the_block)
{
	struct lk_adapter_config *a = adapter("fake-tool.sh",
					      "Throughput: ([0-9]+)", 0,
					      "FAIL");
	const char *att[] = {"add %rax, %rbx\n"};
	struct lk_predictor *p;
	struct lk_pred out = {0};

	cr_assert_eq(lk_adapter_predictor(&ctx, a, "znver5", NULL, 200, 10,
					  NULL, &p), 0, "%s", ctx.msg);
	run_blocks(p, att, 1, &out);
	cr_assert_str_eq(out.status, "failed");
	cr_assert_not_null(strstr(out.reason, "exit 3"), "%s", out.reason);
	lk_pred_release(&out);
	lk_predictor_free(p);
	adapter_free(a);
}

Test(predict, adapter_tool_missing_is_a_clear_error)
{
	struct lk_adapter_config *a = adapter("/nonexistent/uiCA.py",
					      "([0-9]+)", 0, NULL);
	struct lk_predictor *p = NULL;

	cr_assert_eq(lk_adapter_predictor(&ctx, a, "skylake", NULL, 200, 10,
					  "c.yaml", &p), LK_ENOTFOUND);
	cr_assert_null(p);
	cr_assert_str_eq(ctx.msg, "c.yaml:12: adapter 'fake': cannot run "
				  "'/nonexistent/uiCA.py': no such "
				  "executable");
	adapter_free(a);
}

Test(predict, adapter_arch_codes)
{
	char *s = lk_adapter_arch("skylake");

	cr_assert_str_eq(s, "SKL");
	free(s);
	s = lk_adapter_arch("znver4");
	cr_assert_str_eq(s, "ZEN4");
	free(s);
	s = lk_adapter_arch("newcpu-x");
	cr_assert_str_eq(s, "NEWCPU-X");
	free(s);
}

/* ---- The predict: section. ---- */

static int parse_cfg(const char *predict, struct lk_sweep **sw)
{
	char *src = lk_asprintf("%s/k.c", tmpdir);
	char *name = lk_asprintf("%s/c.yaml", tmpdir);
	char *text = lk_asprintf("sources: [k.c]\n%s", predict);
	int ret;

	cr_assert_eq(lk_file_write_atomic(&ctx, src, "int x;\n", 7), 0);
	ret = lk_sweep_parse(&ctx, name, text, strlen(text), sw);
	free(src);
	free(name);
	free(text);
	return ret;
}

Test(predict, config_section_loads)
{
	struct lk_sweep *sw;
	const struct lk_predict_config *c;

	cr_assert_eq(parse_cfg("predict:\n"
			       "  tools: [llvm-mca-19, uica]\n"
			       "  mcpu: skylake\n"
			       "  iterations: [50, 150]\n"
			       "  timeout: 5\n"
			       "  adapters:\n"
			       "    - name: uica\n"
			       "      command: [uiCA.py, \"{asm}\", -arch, "
			       "\"{arch}\"]\n"
			       "      parse: 'Throughput: ([0-9.]+)'\n"
			       "      version: [uiCA.py, --version]\n"
			       "      markers: iaca\n"
			       "      arch: SKL\n", &sw), 0, "%s", ctx.msg);
	c = &sw->predict;
	cr_assert_eq(c->tools.n, 2);
	cr_assert_eq(c->tool_lines[1], 3);
	cr_assert_str_eq(c->mcpu, "skylake");
	cr_assert_eq(c->iterations[0], 50);
	cr_assert_eq(c->iterations[1], 150);
	cr_assert_float_eq(c->timeout, 5, 1e-12);
	cr_assert_eq(c->nadapters, 1);
	cr_assert_str_eq(c->adapters[0].command.v[1], "{asm}");
	cr_assert_eq(c->adapters[0].version.n, 2);
	cr_assert(c->adapters[0].iaca_markers);
	cr_assert_str_eq(c->adapters[0].arch, "SKL");
	cr_assert_eq(c->adapters[0].line, 8);
	lk_sweep_free(sw);
	cr_assert_eq(parse_cfg("", &sw), 0);
	cr_assert_eq(sw->predict.iterations[0], 100);
	cr_assert_eq(sw->predict.iterations[1], 200);
	cr_assert_null(sw->predict.mcpu);
	lk_sweep_free(sw);
	cr_assert_eq(parse_cfg("predict:\n  mcpu: native\n", &sw), 0);
	cr_assert_null(sw->predict.mcpu);
	lk_sweep_free(sw);
}

static void bad_cfg(const char *predict, const char *msg)
{
	struct lk_sweep *sw = NULL;

	cr_assert_eq(parse_cfg(predict, &sw), LK_EINPUT, "%s", predict);
	cr_assert_null(sw);
	cr_assert_not_null(strstr(ctx.msg, msg), "%s\ngot: %s", predict,
			   ctx.msg);
	lk_ctx_clear(&ctx);
}

Test(predict, config_section_errors)
{
	bad_cfg("predict:\n  tool: [x]\n", "c.yaml:3: unknown key 'tool'");
	bad_cfg("predict:\n  tool: [x]\n", "did you mean 'tools'");
	bad_cfg("predict:\n  iterations: [200, 100]\n",
		"c.yaml:3: predict.iterations: the first count");
	bad_cfg("predict:\n  iterations: [100]\n", "expected two counts");
	bad_cfg("predict:\n  iterations: [0, 100]\n", "not a count");
	bad_cfg("predict:\n  timeout: -1\n", "c.yaml:3: predict.timeout");
	bad_cfg("predict:\n  tools: [a, a]\n", "'a' is listed twice");
	bad_cfg("predict:\n  mcpu: 'sky lake'\n", "not a CPU name");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, {asm}]\n      parse: '(x)'\n",
		"c.yaml:5: adapter 'u': command: a map in the command; "
		"quote placeholders");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, x]\n      parse: '(x)'\n", "no {asm}");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, '{asm}', '{arc}']\n      parse: '(x)'\n",
		"unknown placeholder '{arc}' (did you mean '{arch}'?)");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, '{asm}']\n      parse: 'x'\n", "parse: no group");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, '{asm}']\n      parse: '(x'\n",
		"parse: bad regular expression");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, '{asm}']\n", "c.yaml:4: adapter 'u': missing 'parse'");
	bad_cfg("predict:\n  adapters:\n    - name: llvm-mca-19\n"
		"      command: [u, '{asm}']\n      parse: '(x)'\n",
		"loopkit's own");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      command: "
		"[u, '{asm}']\n      parse: '(x)'\n      markers: osaca\n",
		"markers: 'osaca' (allowed: iaca, none)");
	bad_cfg("predict:\n  adapters:\n    - name: u\n      comand: "
		"[u, '{asm}']\n", "did you mean 'command'");
}

/* ---- Which tools. ---- */

Test(predict, unknown_tool_names_file_line_and_what_there_is)
{
	struct lk_sweep *sw;
	struct lk_predictor **p;
	size_t n;
	char *tool = data("fake-tool.sh");
	char *yaml = lk_asprintf("predict:\n  tools: [fake, bprf]\n"
				 "  adapters:\n    - name: fake\n"
				 "      command: [%s, '{asm}']\n"
				 "      parse: 'Throughput: ([0-9]+)'\n",
				 tool);
	struct lk_predict_setup st = {0};

	setenv("PATH", "/nonexistent", 1);
	setenv("LOOPKIT_LLVM_DIRS", "/nonexistent", 1);
	cr_assert_eq(parse_cfg(yaml, &sw), 0, "%s", ctx.msg);
	st.cfg = &sw->predict;
	st.config_path = sw->path;
	cr_assert_eq(lk_predictors_make(&ctx, &st, &p, &n), LK_EINPUT);
	cr_assert_not_null(strstr(ctx.msg, "c.yaml:3: unknown tool 'bprf' "
					   "(available here: bprof, fake)"),
			   "%s", ctx.msg);
	lk_sweep_free(sw);
	free(yaml);
	free(tool);
}

Test(predict, default_tools_are_every_llvm_mca_and_adapter)
{
	struct lk_mca_install *m;
	struct lk_predictor **p;
	struct lk_predict_setup st = {0};
	size_t n, nm, i;

	cr_assert_eq(lk_mca_find(&ctx, &m, &nm), 0);
	if (!nm)
		cr_skip_test("no llvm-mca installed");
	cr_assert_eq(lk_predictors_make(&ctx, &st, &p, &n), 0, "%s", ctx.msg);
	/* Every llvm-mca first, newest first; registered tools after. */
	cr_assert_geq(n, nm);
	for (i = 0; i < nm; i++) {
		cr_assert_str_eq(p[i]->name, m[i].name);
		cr_assert_str_eq(p[i]->version, m[i].version);
		/* A name is recorded, never "native". */
		cr_assert_null(strstr(p[i]->params, "native"));
	}
	for (i = 1; i < nm; i++)
		cr_assert_gt(strverscmp(m[i - 1].version, m[i].version), 0);
	lk_predictors_free(p, n);
	lk_mca_installs_free(m, nm);
}

/* ---- The store. ---- */

Test(predict, store_put_get_and_skip)
{
	struct lk_store *s;
	struct lk_prediction_key k = {"llvm-mca-19", "19.1.7",
				      "-mcpu=znver5 -iterations=100,200"};
	struct lk_prediction_key k2 = {"llvm-mca-19", "19.1.7",
				       "-mcpu=znver4 -iterations=100,200"};
	struct lk_prediction_rec r[2] = {
		{"h1", "ok", 1, 1.5, "cycles/iter", "", "raw1", 0.01},
		{"h2", "failed", 0, 0, "cycles/iter", "bogus", "raw2", 0.02}};
	struct lk_prediction_row row;
	long n;

	cr_assert_eq(lk_store_open(&ctx, tmpdir, 1, &s), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_prediction_has(&ctx, s, &k, "h1"), 0);
	cr_assert_eq(lk_store_predictions_put(&ctx, s, &k, r, 2), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_prediction_has(&ctx, s, &k, "h1"), 1);
	cr_assert_eq(lk_store_prediction_has(&ctx, s, &k2, "h1"), 0);
	cr_assert_eq(lk_store_prediction_get(&ctx, s, &k, "h2", &row), 0);
	cr_assert_str_eq(row.status, "failed");
	cr_assert_eq(row.has_value, 0);
	cr_assert_str_eq(row.reason, "bogus");
	cr_assert_str_eq(row.raw, "raw2");
	lk_prediction_row_release(&row);
	cr_assert_eq(lk_store_prediction_get(&ctx, s, &k, "h1", &row), 0);
	cr_assert_float_eq(row.value, 1.5, 1e-12);
	cr_assert_str_eq(row.params, k.params);
	lk_prediction_row_release(&row);
	cr_assert_eq(lk_store_prediction_get(&ctx, s, &k2, "h1", &row),
		     LK_ENOTFOUND);
	/* The same key again replaces, never duplicates. */
	r[0].value = 2.5;
	cr_assert_eq(lk_store_predictions_put(&ctx, s, &k, r, 1), 0);
	cr_assert_eq(lk_store_prediction_count(&ctx, s, &n), 0);
	cr_assert_eq(n, 2);
	lk_store_close(s);
}

Test(predict, adapter_version_command)
{
	struct lk_adapter_config *a = adapter("fake-tool.sh", "([0-9]+)", 0,
					      NULL);
	struct lk_predictor *p = NULL;

	lk_strv_push(&a->version, "/bin/echo");
	lk_strv_push(&a->version, "fake 1.2");
	cr_assert_eq(lk_adapter_predictor(&ctx, a, "skylake", NULL, 200, 10,
					  NULL, &p), 0, "%s", ctx.msg);
	cr_assert_str_eq(p->version, "fake 1.2");
	lk_predictor_free(p);
	lk_strv_release(&a->version);
	lk_strv_push(&a->version, "/bin/false");
	cr_assert_eq(lk_adapter_predictor(&ctx, a, "skylake", NULL, 200, 10,
					  "c.yaml", &p), LK_ENOTFOUND);
	cr_assert_not_null(strstr(ctx.msg, "c.yaml:12: adapter 'fake': its "
					   "version command failed"),
			   "%s", ctx.msg);
	adapter_free(a);
}
