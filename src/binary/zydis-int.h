/* binary's private Zydis calls, shared by the decoder, the instruction
 * facts and the operand model (decode.c). */
#ifndef LOOPKIT_BINARY_ZYDIS_H
#define LOOPKIT_BINARY_ZYDIS_H

#include <Zydis/Zydis.h>

#include "loopkit/binary.h"

/* Decode one x86-64 instruction of code[0..len): 0, or -1 when the
 * bytes do not decode. */
int binary_decode(const uint8_t *code, size_t len,
		  ZydisDecodedInstruction *zi, ZydisDecodedOperand *ops);
/* How zi ends a block; direct: its target is a relative immediate. */
enum lk_insn_kind binary_classify(const ZydisDecodedInstruction *zi,
				  int direct);

#endif
