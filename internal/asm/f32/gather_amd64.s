//go:build !purego

#include "textflag.h"

// gathermask<>+32−b masks the first b bytes of 32 (b a multiple of 4):
// the first b/4 float32 lanes.
DATA gathermask<>+0(SB)/8, $-1
DATA gathermask<>+8(SB)/8, $-1
DATA gathermask<>+16(SB)/8, $-1
DATA gathermask<>+24(SB)/8, $-1
DATA gathermask<>+32(SB)/8, $0
DATA gathermask<>+40(SB)/8, $0
DATA gathermask<>+48(SB)/8, $0
DATA gathermask<>+56(SB)/8, $0
GLOBL gathermask<>(SB), RODATA|NOPTR, $64

// func gatherAVX2(dst, src []float32, n int, rows []int32, ahead int)
//
// Register use: DI dst, SI src, R9 row bytes (4·n > 0), BX rows, DX k =
// len(rows) > 0, R8 ahead ≥ 0, R10 p, CX bytes left in the row.
TEXT ·gatherAVX2(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ n+48(FP), R9
	SHLQ $2, R9
	MOVQ rows_base+56(FP), BX
	MOVQ rows_len+64(FP), DX
	MOVQ ahead+80(FP), R8

	// Prefetch the first min(ahead, k) rows.
	MOVQ    R8, R12
	CMPQ    R12, DX
	CMOVQGT DX, R12
	XORQ    R10, R10

prologue:
	CMPQ    R10, R12
	JGE     start
	MOVLQSX (BX)(R10*4), AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	LEAQ    -1(AX)(R9*1), R13

pf0:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, R13
	JLE        pf0
	PREFETCHT0 (R13)
	INCQ       R10
	JMP        prologue

start:
	XORQ R10, R10

loop:
	// Prefetch row p + ahead, if there is one.
	LEAQ    (R10)(R8*1), R11
	CMPQ    R11, DX
	JGE     copy
	MOVLQSX (BX)(R11*4), AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	LEAQ    -1(AX)(R9*1), R13

pf1:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, R13
	JLE        pf1
	PREFETCHT0 (R13)

copy:
	// Copy row p.
	MOVLQSX (BX)(R10*4), AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	MOVQ    R9, CX
	CMPQ    CX, $128
	JL      by32

loop128:
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, AX
	ADDQ    $128, DI
	SUBQ    $128, CX
	CMPQ    CX, $128
	JGE     loop128

by32:
	CMPQ    CX, $32
	JL      tail
	VMOVUPS (AX), Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, AX
	ADDQ    $32, DI
	SUBQ    $32, CX
	JMP     by32

tail:
	// a multiple of 4 bytes below 32 left: a masked load and store.
	TESTQ      CX, CX
	JZ         next
	LEAQ       gathermask<>(SB), R13
	NEGQ       CX
	VMOVUPS    32(R13)(CX*1), Y6
	VMASKMOVPS (AX), Y6, Y0
	VMASKMOVPS Y0, Y6, (DI)
	SUBQ       CX, DI

next:
	INCQ R10
	CMPQ R10, DX
	JL   loop

	VZEROUPPER
	RET
