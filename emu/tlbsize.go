package emu

// #include "hotpath.h"
import "C"

// tlbEntries gives the size in entries of the emulator's TLB (its largest
// MMU mode) that the last flush on this thread saw, 0 if the TLB's layout
// was not found there (tlbsize.c): the tests' view of the TLB's floor,
// which changes how fast a run is and nothing it gives.
func tlbEntries() int { return int(C.ic_tlb_entries()) }
