// Package kernel emulates the Linux system-call interface a guest process
// sees: one syscall table per guest arch, handlers grouped by family
// (sys_*.go), file descriptors, the address space (brk, mmap), process
// identity and the errno a guest sees. It drives the CPU only through the
// narrow CPU interface.
package kernel
