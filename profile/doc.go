// Package profile is the Profile: everything one run of icount produced,
// as plain values (counts, the call tree, the metadata), its JSON form,
// and its validation. It imports nothing of the emulator, so that the
// formats, the diff and the tools that read saved Profiles link no cgo.
// The metadata keeps apart the Settings two runs must share to be
// compared, the Inputs the program read that icount cannot pin, and the
// Record of facts that may differ between comparable runs.
package profile
