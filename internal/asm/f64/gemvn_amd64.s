//go:build !purego

#include "textflag.h"

// gemvnmask<>+8·(4−r) is a mask of the first r of 4 lanes.
DATA gemvnmask<>+0(SB)/8, $-1
DATA gemvnmask<>+8(SB)/8, $-1
DATA gemvnmask<>+16(SB)/8, $-1
DATA gemvnmask<>+24(SB)/8, $-1
DATA gemvnmask<>+32(SB)/8, $0
DATA gemvnmask<>+40(SB)/8, $0
DATA gemvnmask<>+48(SB)/8, $0
DATA gemvnmask<>+56(SB)/8, $0
GLOBL gemvnmask<>(SB), RODATA|NOPTR, $64

// func gemvNAVX2(m, n int, a []float64, lda int, x, y []float64)
//
// Eight rows at a time (eight accumulators, one per row, enough FMA
// chains in flight), then four, then one: over the full 4-wide vectors of
// x, the last n mod 4 columns by masked loads, then a 4 × 4
// transpose-and-add per four rows gives their dot products.
TEXT ·gemvNAVX2(SB), NOSPLIT, $0-96
	MOVQ    m+0(FP), CX
	MOVQ    n+8(FP), DX
	MOVQ    a_base+16(FP), SI
	MOVQ    lda+40(FP), R8
	SHLQ    $3, R8
	MOVQ    x_base+48(FP), DI
	MOVQ    y_base+72(FP), R9
	MOVQ    DX, AX
	ANDQ    $3, AX
	LEAQ    gemvnmask<>(SB), BX
	NEGQ    AX
	VMOVUPD 32(BX)(AX*8), Y15 // mask of the last n mod 4 columns
	MOVQ    DX, R10
	SHRQ    $2, R10           // full vectors per row
	LEAQ    (R8)(R8*2), R11   // 3·lda bytes

rows8:
	CMPQ   CX, $8
	JLT    rows4
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ   SI, R12
	LEAQ   (SI)(R8*4), BX
	MOVQ   DI, R13
	MOVQ   R10, AX
	TESTQ  AX, AX
	JZ     rows8tail

rows8loop:
	VMOVUPD     (R13), Y8
	VFMADD231PD (R12), Y8, Y0
	VFMADD231PD (R12)(R8*1), Y8, Y1
	VFMADD231PD (R12)(R8*2), Y8, Y2
	VFMADD231PD (R12)(R11*1), Y8, Y3
	VFMADD231PD (BX), Y8, Y4
	VFMADD231PD (BX)(R8*1), Y8, Y5
	VFMADD231PD (BX)(R8*2), Y8, Y6
	VFMADD231PD (BX)(R11*1), Y8, Y7
	ADDQ        $32, R12
	ADDQ        $32, BX
	ADDQ        $32, R13
	DECQ        AX
	JNZ         rows8loop

rows8tail:
	TESTQ       $3, DX
	JZ          rows8sum
	VMASKMOVPD  (R13), Y15, Y8
	VMASKMOVPD  (R12), Y15, Y9
	VFMADD231PD Y9, Y8, Y0
	VMASKMOVPD  (R12)(R8*1), Y15, Y9
	VFMADD231PD Y9, Y8, Y1
	VMASKMOVPD  (R12)(R8*2), Y15, Y9
	VFMADD231PD Y9, Y8, Y2
	VMASKMOVPD  (R12)(R11*1), Y15, Y9
	VFMADD231PD Y9, Y8, Y3
	VMASKMOVPD  (BX), Y15, Y9
	VFMADD231PD Y9, Y8, Y4
	VMASKMOVPD  (BX)(R8*1), Y15, Y9
	VFMADD231PD Y9, Y8, Y5
	VMASKMOVPD  (BX)(R8*2), Y15, Y9
	VFMADD231PD Y9, Y8, Y6
	VMASKMOVPD  (BX)(R11*1), Y15, Y9
	VFMADD231PD Y9, Y8, Y7

rows8sum:
	VHADDPD    Y1, Y0, Y0
	VHADDPD    Y3, Y2, Y2
	VPERM2F128 $0x21, Y2, Y0, Y1
	VBLENDPD   $12, Y2, Y0, Y0
	VADDPD     Y1, Y0, Y0
	VHADDPD    Y5, Y4, Y4
	VHADDPD    Y7, Y6, Y6
	VPERM2F128 $0x21, Y6, Y4, Y5
	VBLENDPD   $12, Y6, Y4, Y4
	VADDPD     Y5, Y4, Y4
	VMOVUPD    Y0, (R9)
	VMOVUPD    Y4, 32(R9)
	ADDQ       $64, R9
	LEAQ       (SI)(R8*8), SI
	SUBQ       $8, CX
	JMP        rows8

rows4:
	CMPQ   CX, $4
	JLT    rows1
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   SI, R12
	MOVQ   DI, R13
	MOVQ   R10, AX
	TESTQ  AX, AX
	JZ     rows4tail

rows4loop:
	VMOVUPD     (R13), Y4
	VFMADD231PD (R12), Y4, Y0
	VFMADD231PD (R12)(R8*1), Y4, Y1
	VFMADD231PD (R12)(R8*2), Y4, Y2
	VFMADD231PD (R12)(R11*1), Y4, Y3
	ADDQ        $32, R12
	ADDQ        $32, R13
	DECQ        AX
	JNZ         rows4loop

rows4tail:
	TESTQ       $3, DX
	JZ          rows4sum
	VMASKMOVPD  (R13), Y15, Y4
	VMASKMOVPD  (R12), Y15, Y5
	VFMADD231PD Y5, Y4, Y0
	VMASKMOVPD  (R12)(R8*1), Y15, Y5
	VFMADD231PD Y5, Y4, Y1
	VMASKMOVPD  (R12)(R8*2), Y15, Y5
	VFMADD231PD Y5, Y4, Y2
	VMASKMOVPD  (R12)(R11*1), Y15, Y5
	VFMADD231PD Y5, Y4, Y3

rows4sum:
	VHADDPD    Y1, Y0, Y0     // [r0₀₁ r1₀₁ r0₂₃ r1₂₃]
	VHADDPD    Y3, Y2, Y2     // [r2₀₁ r3₀₁ r2₂₃ r3₂₃]
	VPERM2F128 $0x21, Y2, Y0, Y1
	VBLENDPD   $12, Y2, Y0, Y0
	VADDPD     Y1, Y0, Y0     // [r0 r1 r2 r3]
	VMOVUPD    Y0, (R9)
	ADDQ       $32, R9
	LEAQ       (SI)(R8*4), SI
	SUBQ       $4, CX
	JMP        rows4

rows1:
	TESTQ  CX, CX
	JZ     done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ   SI, R12
	MOVQ   DI, R13
	MOVQ   R10, AX
	TESTQ  AX, AX
	JZ     rows1tail

rows1loop:
	VMOVUPD     (R13), Y4
	VFMADD231PD (R12), Y4, Y0
	ADDQ        $32, R12
	ADDQ        $32, R13
	DECQ        AX
	JNZ         rows1loop

rows1tail:
	TESTQ       $3, DX
	JZ          rows1sum
	VMASKMOVPD  (R13), Y15, Y4
	VMASKMOVPD  (R12), Y15, Y5
	VFMADD231PD Y5, Y4, Y1

rows1sum:
	VADDPD       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0
	VMOVSD       X0, (R9)
	ADDQ         $8, R9
	ADDQ         R8, SI
	DECQ         CX
	JMP          rows1

done:
	VZEROUPPER
	RET
