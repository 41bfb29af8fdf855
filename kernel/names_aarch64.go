package kernel

// lacksAArch64 names the numbers of Linux 6.1's generic table that have
// no call behind them on arm64: Linux answers ENOSYS, and so does icount.
// A number in no table is answered so too.
var lacksAArch64 = map[uint64]string{42: "nfsservctl"}
