// Package loader validates Linux ELF executables and maps them into guest
// memory the way the kernel's execve does: PT_LOAD segments with their
// permissions and zeroed bss, fixed load bases for position-independent
// executables, and the initial stack with argv, envp and the auxiliary
// vector. It knows nothing of system calls or counting.
package loader
