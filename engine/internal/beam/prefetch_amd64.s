//go:build !purego

#include "textflag.h"

// func prefetchRows(data *float32, ids *uint32, n int, rowBytes int, lines int)
// For each of the n ids, PREFETCHT0 the first `lines` 64-byte lines of
// row ids[i] (at data + ids[i]*rowBytes). Prefetches never fault.
TEXT ·prefetchRows(SB), NOSPLIT, $0-40
	MOVQ data+0(FP), SI
	MOVQ ids+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ rowBytes+24(FP), R8
	MOVQ lines+32(FP), R9
	TESTQ CX, CX
	JLE  done
	TESTQ R9, R9
	JLE  done

row:
	MOVL (DI), AX
	IMULQ R8, AX
	ADDQ SI, AX
	MOVQ R9, DX

line:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ DX
	JNZ  line
	ADDQ $4, DI
	DECQ CX
	JNZ  row

done:
	RET
