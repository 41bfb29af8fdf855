// Package symbolize reads what an object file says about its code: the
// functions its ELF symbol tables name, the PLT stubs through which it
// calls other objects, the functions only its unwind tables list, and its
// DWARF (source lines, inlined calls, declarations), together with those of
// its separate debug file, found by build ID or .gnu_debuglink as gdb and
// valgrind find them.
//
// An Object is opened once per file contents (a Cache keys them by
// SHA-256) and read as lookups reach it: its symbols on the first, its
// DWARF one compilation unit at a time (a debug file's only when lines
// are asked for: see NewCache). Its tables are in the file's own
// addresses; At gives the lookups of a process that loaded it at a bias.
// Every reader is bounded by the file it reads (hostile input neither
// panics nor allocates by a corrupt count): what cannot be read is left
// out and said by Problems.
package symbolize
