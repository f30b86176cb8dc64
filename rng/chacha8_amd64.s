//go:build !purego

#include "textflag.h"

// chacha8rand's 16 ChaCha8 blocks under one key, one block per 32-bit lane
// of the Z registers: Z0–Z15 hold the state's 16 words of every block,
// Z16–Z23 the key words for the final addition. See chacha8.go, and
// math/rand/v2's internal/chacha8rand for the construction.

// QR is the ChaCha quarter-round on A, B, C and D.
#define QR(A, B, C, D) \
	VPADDD B, A, A; VPXORD A, D, D; VPROLD $16, D, D; \
	VPADDD D, C, C; VPXORD C, B, B; VPROLD $12, B, B; \
	VPADDD B, A, A; VPXORD A, D, D; VPROLD $8, D, D; \
	VPADDD D, C, C; VPXORD C, B, B; VPROLD $7, B, B

// OUT stores word I of the 16 blocks: blocks 4g … 4g+3 (128-bit lane g)
// go to bytes 256g + 16I of out, as chacha8rand interleaves them.
#define OUT(I, Z) \
	VEXTRACTI32X4 $0, Z, (16*I)(BX); \
	VEXTRACTI32X4 $1, Z, (256+16*I)(BX); \
	VEXTRACTI32X4 $2, Z, (512+16*I)(BX); \
	VEXTRACTI32X4 $3, Z, (768+16*I)(BX)

DATA chachaConst<>+0(SB)/4, $0x61707865
DATA chachaConst<>+4(SB)/4, $0x3320646e
DATA chachaConst<>+8(SB)/4, $0x79622d32
DATA chachaConst<>+12(SB)/4, $0x6b206574
GLOBL chachaConst<>(SB), RODATA|NOPTR, $16

DATA chachaCounters<>+0(SB)/4, $0
DATA chachaCounters<>+4(SB)/4, $1
DATA chachaCounters<>+8(SB)/4, $2
DATA chachaCounters<>+12(SB)/4, $3
DATA chachaCounters<>+16(SB)/4, $4
DATA chachaCounters<>+20(SB)/4, $5
DATA chachaCounters<>+24(SB)/4, $6
DATA chachaCounters<>+28(SB)/4, $7
DATA chachaCounters<>+32(SB)/4, $8
DATA chachaCounters<>+36(SB)/4, $9
DATA chachaCounters<>+40(SB)/4, $10
DATA chachaCounters<>+44(SB)/4, $11
DATA chachaCounters<>+48(SB)/4, $12
DATA chachaCounters<>+52(SB)/4, $13
DATA chachaCounters<>+56(SB)/4, $14
DATA chachaCounters<>+60(SB)/4, $15
GLOBL chachaCounters<>(SB), RODATA|NOPTR, $64

// func blocks16(key *[4]uint64, out *[128]uint64)
TEXT ·blocks16(SB), NOSPLIT, $0-16
	MOVQ key+0(FP), AX
	MOVQ out+8(FP), BX

	VPBROADCASTD chachaConst<>+0(SB), Z0
	VPBROADCASTD chachaConst<>+4(SB), Z1
	VPBROADCASTD chachaConst<>+8(SB), Z2
	VPBROADCASTD chachaConst<>+12(SB), Z3
	VPBROADCASTD 0(AX), Z16
	VPBROADCASTD 4(AX), Z17
	VPBROADCASTD 8(AX), Z18
	VPBROADCASTD 12(AX), Z19
	VPBROADCASTD 16(AX), Z20
	VPBROADCASTD 20(AX), Z21
	VPBROADCASTD 24(AX), Z22
	VPBROADCASTD 28(AX), Z23
	VMOVDQA32 Z16, Z4
	VMOVDQA32 Z17, Z5
	VMOVDQA32 Z18, Z6
	VMOVDQA32 Z19, Z7
	VMOVDQA32 Z20, Z8
	VMOVDQA32 Z21, Z9
	VMOVDQA32 Z22, Z10
	VMOVDQA32 Z23, Z11
	VMOVDQU32 chachaCounters<>(SB), Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

	// 4 double rounds: 8 rounds.
	MOVL $4, CX
loop:
	QR(Z0, Z4, Z8, Z12)
	QR(Z1, Z5, Z9, Z13)
	QR(Z2, Z6, Z10, Z14)
	QR(Z3, Z7, Z11, Z15)
	QR(Z0, Z5, Z10, Z15)
	QR(Z1, Z6, Z11, Z12)
	QR(Z2, Z7, Z8, Z13)
	QR(Z3, Z4, Z9, Z14)
	DECL CX
	JNZ  loop

	// The key words are added back; the others are output as they are.
	VPADDD Z16, Z4, Z4
	VPADDD Z17, Z5, Z5
	VPADDD Z18, Z6, Z6
	VPADDD Z19, Z7, Z7
	VPADDD Z20, Z8, Z8
	VPADDD Z21, Z9, Z9
	VPADDD Z22, Z10, Z10
	VPADDD Z23, Z11, Z11

	OUT(0, Z0)
	OUT(1, Z1)
	OUT(2, Z2)
	OUT(3, Z3)
	OUT(4, Z4)
	OUT(5, Z5)
	OUT(6, Z6)
	OUT(7, Z7)
	OUT(8, Z8)
	OUT(9, Z9)
	OUT(10, Z10)
	OUT(11, Z11)
	OUT(12, Z12)
	OUT(13, Z13)
	OUT(14, Z14)
	OUT(15, Z15)
	VZEROUPPER
	RET
