// Package count runs a guest under the emulator and turns what the C hot
// path counted into a Profile: each distinct block is decoded once with
// golang.org/x/arch, totals are instructions, block executions, distinct
// blocks and system calls, and the hottest blocks are kept with their
// functions. It knows nothing of output formats.
package count
