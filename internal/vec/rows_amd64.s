//go:build !purego

#include "textflag.h"

// func dotRowsFMA(dst *float64, rows int, a *float64, stride int, x *float64, n int)
//
// Each row's sum is dotFMA's, instruction for instruction, so that it
// rounds the same way; rows of fewer than four entries, for which dotFMA
// adds its tail to the sum of its four zero accumulators (+0), start
// the tail from +0 directly.
TEXT ·dotRowsFMA(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), R8
	MOVQ rows+8(FP), R9
	MOVQ a+16(FP), R10
	MOVQ stride+24(FP), R11
	SHLQ $3, R11
	MOVQ x+32(FP), R12
	MOVQ n+40(FP), R13
	CMPQ R13, $4
	JL   short
row:
	CMPQ R9, $0
	JE   done
	MOVQ R10, SI
	MOVQ R12, DI
	MOVQ R13, CX
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
dloop16:
	CMPQ CX, $16
	JL   dloop4
	VMOVUPD (SI), Y5
	VMOVUPD 32(SI), Y6
	VMOVUPD 64(SI), Y7
	VMOVUPD 96(SI), Y8
	VFMADD231PD (DI), Y5, Y1
	VFMADD231PD 32(DI), Y6, Y2
	VFMADD231PD 64(DI), Y7, Y3
	VFMADD231PD 96(DI), Y8, Y4
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP  dloop16
dloop4:
	CMPQ CX, $4
	JL   dsum
	VMOVUPD (SI), Y5
	VFMADD231PD (DI), Y5, Y1
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP  dloop4
dsum:
	VADDPD Y2, Y1, Y1
	VADDPD Y4, Y3, Y3
	VADDPD Y3, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VADDPD X2, X1, X1
	VHADDPD X1, X1, X1
dtail:
	CMPQ CX, $0
	JE   dstore
	VMOVSD (SI), X5
	VFMADD231SD (DI), X5, X1
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JMP  dtail
dstore:
	VMOVSD X1, (R8)
	ADDQ $8, R8
	ADDQ R11, R10
	DECQ R9
	JMP  row
short:
	CMPQ R9, $0
	JE   done
	MOVQ R10, SI
	MOVQ R12, DI
	MOVQ R13, CX
	VXORPD X1, X1, X1
stail:
	VMOVSD (SI), X5
	VFMADD231SD (DI), X5, X1
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JNE  stail
	VMOVSD X1, (R8)
	ADDQ $8, R8
	ADDQ R11, R10
	DECQ R9
	JMP  short
done:
	VZEROUPPER
	RET

// func subRowsFMA(y *float64, n int, c *float64, rows int, a *float64, stride int)
//
// Each row's update is axpyFMA's with −c_i, the negation folded into the
// fused multiply-add (VFNMADD computes y − c_i·a exactly rounded, as
// y + (−c_i)·a).
TEXT ·subRowsFMA(SB), NOSPLIT, $0-48
	MOVQ y+0(FP), R8
	MOVQ n+8(FP), R13
	MOVQ c+16(FP), R12
	MOVQ rows+24(FP), R9
	MOVQ a+32(FP), R10
	MOVQ stride+40(FP), R11
	SHLQ $3, R11
	VXORPD X7, X7, X7
srow:
	CMPQ R9, $0
	JE   sdone
	VMOVSD (R12), X0
	VUCOMISD X7, X0
	JNE  sgo
	JPS  sgo
	JMP  snext
sgo:
	VBROADCASTSD (R12), Y0
	MOVQ R10, SI
	MOVQ R8, DI
	MOVQ R13, CX
loop16:
	CMPQ CX, $16
	JL   loop4
	VMOVUPD (DI), Y1
	VMOVUPD 32(DI), Y2
	VMOVUPD 64(DI), Y3
	VMOVUPD 96(DI), Y4
	VFNMADD231PD (SI), Y0, Y1
	VFNMADD231PD 32(SI), Y0, Y2
	VFNMADD231PD 64(SI), Y0, Y3
	VFNMADD231PD 96(SI), Y0, Y4
	VMOVUPD Y1, (DI)
	VMOVUPD Y2, 32(DI)
	VMOVUPD Y3, 64(DI)
	VMOVUPD Y4, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP  loop16
loop4:
	CMPQ CX, $4
	JL   tail
	VMOVUPD (DI), Y1
	VFNMADD231PD (SI), Y0, Y1
	VMOVUPD Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP  loop4
tail:
	CMPQ CX, $0
	JE   snext
	VMOVSD (DI), X1
	VFNMADD231SD (SI), X0, X1
	VMOVSD X1, (DI)
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JMP  tail
snext:
	ADDQ $8, R12
	ADDQ R11, R10
	DECQ R9
	JMP  srow
sdone:
	VZEROUPPER
	RET
