package emu

/*
#include "hotpath.h"
*/
import "C"

import (
	"iter"
	"sync/atomic"
	"unsafe"
)

// entries yields the entries of the block table, as its C side published
// them (blocks.c): Executed reads them while the guest runs, and the
// arrays of chunks outgrown are kept.
func entries(st *C.ic_state) iter.Seq[*C.ic_block] {
	return func(yield func(*C.ic_block) bool) {
		n := atomic.LoadUint32((*uint32)(unsafe.Pointer(&st.nblocks)))
		chunks := (**C.ic_block)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&st.chunks))))
		for i, chunk := range unsafe.Slice(chunks, (n+C.IC_BLOCK_CHUNK-1)/C.IC_BLOCK_CHUNK) {
			for j := range min(n-uint32(i)*C.IC_BLOCK_CHUNK, C.IC_BLOCK_CHUNK) {
				if !yield((*C.ic_block)(unsafe.Add(unsafe.Pointer(chunk), uintptr(j)*C.sizeof_ic_block))) {
					return
				}
			}
		}
	}
}
