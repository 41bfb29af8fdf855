# icount: build, test and demo. `make demo` and `make test` do everything on a
# fresh Debian machine (as root, missing packages are installed).

# The real programs of the battery (cmd/icount/battery_test.go) that a
# minimal Debian lacks (coreutils, findutils, grep, sed, tar, gzip, bash,
# dash and perl it always has).
BATTERY_PACKAGES := git make gawk mawk patch diffutils bzip2 lz4 zip unzip file \
                    ruby nodejs tcl bc jq openssl gettext groff-base xxd bsdextrautils

# Debian packages icount's build and tests need (installed by `make deps`);
# chromium opens the HTML reports in the tests (headless, driven from Go);
# libc6-dbg is glibc's separate debug files, which icount reads (symbolize).
DEBIAN_PACKAGES := musl-tools gcc g++ pkg-config valgrind binutils xz-utils zstd time \
                   libc6-dbg gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
                   python3 libpython3.11-testsuite sqlite3 chromium \
                   shellcheck python3-yaml \
                   $(BATTERY_PACKAGES)

GO      ?= go

# emu's cgo asks pkg-config for unicorn: the one scripts/deps.sh puts in
# .deps (fetched from Debian, or a system one linked), before any other.
export PKG_CONFIG_PATH := $(CURDIR)/.deps/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
CC      := gcc
CXX     := g++
MUSLCC  := musl-gcc
CFLAGS  := -O2 -Wall -Wextra
BUILD   := testdata/build

# Hand-written assembly (no libc): each as a static executable and as a
# static PIE (NAME-pie).
ASM_SRCS := $(wildcard testdata/amd64/*.S)
ASM_BINS := $(patsubst testdata/amd64/%.S,$(BUILD)/amd64/%,$(ASM_SRCS))
ASM_PIES := $(addsuffix -pie,$(ASM_BINS))

# C test programs, each built musl-static (NAME-musl) and glibc-static
# (NAME-glibc); the benchmark workload is built glibc-static only.
C_PROGS  := textstat crunch empty callgraph longjmp
C_BINS   := $(foreach p,$(C_PROGS),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc) $(BUILD)/c/empty-dynamic
BENCH    := $(BUILD)/c/bench
# C++ test programs, g++ -static.
CXX_BINS := $(patsubst testdata/cxx/%.cc,$(BUILD)/cxx/%,$(wildcard testdata/cxx/*.cc))

# arm64 guests: the hand-written assembly of testdata/arm64 (static and
# static PIE) and the C programs glibc-static, cross-built with Debian's
# aarch64-linux-gnu-gcc into $(BUILD)/arm64.
A64CC      := aarch64-linux-gnu-gcc
A64_SRCS   := $(wildcard testdata/arm64/*.S)
A64_BINS   := $(patsubst testdata/arm64/%.S,$(BUILD)/arm64/%,$(A64_SRCS))
A64_PIES   := $(addsuffix -pie,$(A64_BINS))
A64_C_BINS := $(foreach p,$(C_PROGS),$(BUILD)/arm64/c/$(p)-glibc) $(BUILD)/arm64/c/auxv-glibc
A64_BENCH  := $(BUILD)/arm64/c/bench

# The clock programs of --fixed-clock's tests (a self-calibrating benchmark
# and a program that sleeps 10 s): amd64 musl- and glibc-static, arm64
# glibc-static.
CLOCK_PROGS := calibrate sleeper
CLOCK_BINS  := $(foreach p,$(CLOCK_PROGS),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc) \
               $(BUILD)/c/jitclock-musl

# Programs built with DWARF (-g), for per-line attribution, the callgrind
# and pprof formats and icount annotate.
DEBUG_BINS := $(BUILD)/amd64/callgraph-g $(BUILD)/c/callgraph-musl-g $(BUILD)/c/crunch-musl-g

# The debug information of the system's libraries (libc6-dbg), read by
# icount and compared with callgrind (cmd/icount/debuginfo_test.go): a
# program sorting with glibc's qsort, glibc-dynamic.
DEBUGINFO_BINS := $(BUILD)/c/qsort-dynamic

# Hostile and broken guests (testdata/hostile), each ending with a known
# message and status (cmd/icount/hostile_test.go): assembly for both
# arches, C musl-static for amd64 and glibc-static for arm64.
HOSTILE_BINS := $(patsubst testdata/hostile/%.S,$(BUILD)/hostile/%,$(wildcard testdata/hostile/amd64/*.S testdata/hostile/arm64/*.S)) \
                $(patsubst testdata/hostile/c/%.c,$(BUILD)/hostile/c/%-musl,$(wildcard testdata/hostile/c/*.c)) \
                $(patsubst testdata/hostile/c/%.c,$(BUILD)/hostile/arm64/c/%-glibc,$(wildcard testdata/hostile/c/*.c))

TESTPROGS := $(ASM_BINS) $(ASM_PIES) $(C_BINS) $(BENCH) $(CXX_BINS) \
             $(A64_BINS) $(A64_PIES) $(A64_C_BINS) $(A64_BENCH) $(CLOCK_BINS) \
             $(DEBUG_BINS) $(DEBUGINFO_BINS) $(HOSTILE_BINS)

# The guest-memory program of cmd/icount/memory_test.go (thousands of mmap
# and munmap, more than 5,000 mappings at once): amd64 musl- and
# glibc-static, arm64 glibc-static.
MEM_BINS  := $(BUILD)/c/mmapstress-musl $(BUILD)/c/mmapstress-glibc $(BUILD)/arm64/c/mmapstress-glibc
TESTPROGS += $(MEM_BINS)

# The ways of leaving frames without returning, in loops, for the
# calling-context tree (cmd/icount/unwind_test.go): C (glibc-static: musl
# has no ucontext) and C++, both arches.
A64CXX      := aarch64-linux-gnu-g++
UNWIND_BINS := $(BUILD)/c/unwind-glibc $(BUILD)/arm64/c/unwind-glibc $(BUILD)/cxx/unwind $(BUILD)/arm64/cxx/unwind
TESTPROGS   += $(UNWIND_BINS)

# A program written for callgrind, its client requests ending three named
# parts (testdata/c/dumps.c, cmd/icount/parts_test.go): amd64 musl-static
# (valgrind.h from Debian's valgrind package, after musl's headers) and
# arm64 glibc-static.
DUMPS_BINS := $(BUILD)/c/dumps-musl $(BUILD)/arm64/c/dumps-glibc
TESTPROGS  += $(DUMPS_BINS)

$(BUILD)/c/dumps-musl: testdata/c/dumps.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -idirafter /usr/include -o $@ $<

$(BUILD)/arm64/cxx/%: testdata/cxx/%.cc | deps
	@mkdir -p $(@D)
	$(A64CXX) -static $(CFLAGS) -o $@ $<

# What a guest's large reads and file mappings cost the host
# (testdata/c/bigfile.c): amd64 musl-static.
BIGFILE_BINS := $(BUILD)/c/bigfile-musl
TESTPROGS    += $(BIGFILE_BINS)

# The file-system calls of kernel/sys_fsops.go (cmd/icount/fsops_test.go):
# amd64 musl- and glibc-static, arm64 glibc-static.
FSOPS_BINS := $(BUILD)/c/fsops-musl $(BUILD)/c/fsops-glibc $(BUILD)/arm64/c/fsops-glibc
TESTPROGS  += $(FSOPS_BINS)

# O_NONBLOCK on pipes, FIFOs and descriptors icount did not make
# (kernel/hoststream.go, cmd/icount/hostfds_test.go): amd64 musl- and
# glibc-static, arm64 glibc-static.
NONBLOCK_BINS := $(BUILD)/c/nonblock-musl $(BUILD)/c/nonblock-glibc $(BUILD)/arm64/c/nonblock-glibc
TESTPROGS     += $(NONBLOCK_BINS)

# The inotify calls, openat2, the old calls (uselib, modify_ldt,
# set_thread_area, remap_file_pages, restart_syscall), sendmmsg, recvmmsg
# and vmsplice (cmd/icount/syscalls_test.go):
# amd64 musl- and glibc-static, arm64 glibc-static.
INOTIFY_C    := inotify openat2 oldcalls mmsg
INOTIFY_BINS := $(foreach p,$(INOTIFY_C),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc)
TESTPROGS    += $(INOTIFY_BINS)
$(INOTIFY_BINS): testdata/c/errname.h testdata/c/conformance.h

# The guest's own /proc/self/fd (kernel/procfd.go, cmd/icount/procfd_test.go):
# amd64 musl- and glibc-static, arm64 glibc-static.
PROCFD_BINS := $(BUILD)/c/procfd-musl $(BUILD)/c/procfd-glibc $(BUILD)/arm64/c/procfd-glibc
TESTPROGS   += $(PROCFD_BINS)

# Linux's behaviour at the edges (cmd/icount/edges_test.go): numbers with
# no call, standard descriptors closed, EFAULT and short counts, the
# private /tmp; amd64 musl- and glibc-static, arm64 glibc-static; and
# headline, arm64 glibc-dynamic, for the sysroot looked up first.
EDGES_C    := enosys stdfds efault privtmp
EDGES_BINS := $(foreach p,$(EDGES_C),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc) \
              $(BUILD)/arm64/c/headline-dynamic
TESTPROGS  += $(EDGES_BINS)

# The privileged and absent system calls of kernel/sys_absent.go
# (cmd/icount/absent_test.go): amd64 musl- and glibc-static, arm64
# glibc-static.
ABSENT_BINS := $(BUILD)/c/absent-musl $(BUILD)/c/absent-glibc $(BUILD)/arm64/c/absent-glibc
TESTPROGS   += $(ABSENT_BINS)

# The file calls of kernel/sys_space.go, sys_vecio.go, sys_splice.go,
# sys_xattr.go, sys_memfd.go and x86-64's getdents (cmd/icount/fileops2_test.go): amd64
# musl- and glibc-static, arm64 glibc-static.
FILEOPS2_BINS := $(BUILD)/c/fileops2-musl $(BUILD)/c/fileops2-glibc $(BUILD)/arm64/c/fileops2-glibc
TESTPROGS     += $(FILEOPS2_BINS)

# The time, scheduling and process-attribute calls (cmd/icount/timesched_test.go):
# POSIX timers, timerfd, select, the sched_* family, priorities, capabilities;
# amd64 musl- and glibc-static, arm64 glibc-static.
TIMESCHED_C    := posixtimers timerthread sched select timerfd signalfd mlock
TIMESCHED_BINS := $(foreach p,$(TIMESCHED_C),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc)
TESTPROGS      += $(TIMESCHED_BINS)
$(TIMESCHED_BINS): testdata/c/errname.h

# More conformance programs of the system-call suite
# (cmd/icount/syscalls_test.go): the ids and sessions, more file calls,
# memory, event descriptors, processes and waits, the /proc state and
# machine files; amd64 musl- and glibc-static, arm64 glibc-static.
CONF_C    := ids fsmore vm mapfile procs procstate procstatus
CONF_BINS := $(foreach p,$(CONF_C),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc)
TESTPROGS += $(CONF_BINS)
$(CONF_BINS): testdata/c/errname.h testdata/c/conformance.h

# The thread programs (cmd/icount/threads_test.go): pthreads amd64 musl- and
# glibc-static and glibc-dynamic, arm64 glibc-static and glibc-dynamic
# (Debian's cross libraries); deadlock and spin amd64 musl- and
# glibc-static, arm64 glibc-static; pipes (cmd/icount/pipes_test.go) as
# deadlock and spin; threads20k (20,000 threads in turn) as those.
THREAD_C    := pthreads deadlock spin pipes threads20k
THREAD_BINS := $(foreach p,$(THREAD_C),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc) \
               $(BUILD)/c/pthreads-dynamic $(BUILD)/arm64/c/pthreads-dynamic
TESTPROGS   += $(THREAD_BINS)

# The signal programs (cmd/icount/signal_test.go): handlers catching faults
# and longjmping out, and signals sent between threads; amd64 musl- and
# glibc-static, arm64 glibc-static.
SIG_C    := sigsegv sigsend sigrestart sigwait timers
SIG_BINS := $(foreach p,$(SIG_C),$(BUILD)/c/$(p)-musl $(BUILD)/c/$(p)-glibc $(BUILD)/arm64/c/$(p)-glibc)
TESTPROGS += $(SIG_BINS)

# Self-modifying and generated code (cmd/icount/smc_test.go; the
# hand-written smc_rwx.S of both arches are built with the other assembly):
# jit patches code in read-write-exec memory, amd64 musl- and glibc-static,
# arm64 glibc-static; execstack runs GCC's nested-function trampolines on
# a stack made executable by -z execstack, amd64 musl- and glibc-static
# and glibc-dynamic, arm64 glibc-static and glibc-dynamic.
SMC_BINS := $(BUILD)/c/jit-musl $(BUILD)/c/jit-glibc $(BUILD)/arm64/c/jit-glibc \
            $(BUILD)/c/execstack-musl $(BUILD)/c/execstack-glibc $(BUILD)/c/execstack-dynamic \
            $(BUILD)/arm64/c/execstack-glibc $(BUILD)/arm64/c/execstack-dynamic
TESTPROGS += $(SMC_BINS)

# Processes (cmd/icount/process_test.go): spawn (posix_spawn, fork, vfork,
# execve of both arches, waits, signals, descriptors across fork and exec)
# amd64 musl- and glibc-static and glibc-dynamic, arm64 glibc-static; the
# child it runs, amd64 musl-static and arm64 glibc-static; forkbomb amd64
# musl- and glibc-static; forkmany those and arm64 glibc-static; forkexec
# (fork and exec a program N times, for make bench) musl-static; locks
# (file locks between processes, cmd/icount/locks_test.go) amd64 musl- and
# glibc-static, arm64 glibc-static.
PROC      := $(BUILD)/proc
PROC_BINS := $(PROC)/spawn-musl $(PROC)/spawn-glibc $(PROC)/spawn-dynamic $(PROC)/arm64/spawn-glibc \
             $(PROC)/child-musl $(PROC)/arm64/child-glibc $(PROC)/forkbomb-musl $(PROC)/forkbomb-glibc \
             $(PROC)/forkmany-musl $(PROC)/forkmany-glibc $(PROC)/arm64/forkmany-glibc $(PROC)/forkexec-musl \
             $(PROC)/deadlock2-musl $(PROC)/locks-musl $(PROC)/locks-glibc $(PROC)/arm64/locks-glibc
TESTPROGS += $(PROC_BINS)

# Unix-domain sockets between processes (cmd/icount/unixsock_test.go):
# amd64 musl- and glibc-static, arm64 glibc-static.
UNIX_BINS := $(PROC)/unixsock-musl $(PROC)/unixsock-glibc $(PROC)/arm64/unixsock-glibc
TESTPROGS += $(UNIX_BINS)

$(PROC)/%-musl: testdata/proc/%.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -o $@ $<

$(PROC)/%-glibc: testdata/proc/%.c | deps
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -o $@ $<

$(PROC)/%-dynamic: testdata/proc/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(PROC)/arm64/%-glibc: testdata/proc/%.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -o $@ $<

# ---- Instruction sites (cmd/icount/sites_test.go) ----
# C programs whose instructions icount hooks where it first decodes them:
# the integer fixes and the privileged instructions (compared with their
# native runs), VEX and EVEX under a SIGILL handler, musl-static; a C
# program built -mavx, glibc-static; the x87 status-word reads of the
# fidelity warnings; arm64's system instructions.
SITES_BINS := $(BUILD)/sites/intfix-musl $(BUILD)/sites/privileged-musl $(BUILD)/sites/avxsig-musl \
              $(BUILD)/sites/avx-glibc $(BUILD)/sites/fpwarn-musl $(BUILD)/sites/arm64/sysinsn-glibc
TESTPROGS  += $(SITES_BINS)

# arm64 system instructions at EL0 under a SIGILL handler (compared with
# qemu-aarch64), glibc-static.
$(BUILD)/sites/arm64/%-glibc: testdata/sites/%.c testdata/sites/catch.h | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -o $@ $<

$(BUILD)/sites/%-musl: testdata/sites/%.c testdata/sites/catch.h | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -o $@ $<

$(BUILD)/sites/avx-glibc: testdata/sites/avx.c | deps
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -mavx -o $@ $<
# ---- end of instruction sites ----

# Debian's busybox-static for amd64 and arm64 (a real program nobody here
# wrote), fetched by scripts/fetch-busybox.sh for the arm64 tests.
BUSYBOX := .deps/busybox/amd64/busybox .deps/busybox/arm64/busybox

# Debian's arm64 python3.11, lua5.4 and bzip2 with what they need, unpacked
# into a sysroot by scripts/fetch-sysroot-arm64.sh (run by `make deps`) for
# the arm64 rows of `make bench`.
SYSROOT_A64 := .deps/sysroot-arm64/VERSIONS

# benchstat (golang.org/x/perf), installed by `make deps`.
BENCHSTAT         := .deps/bin/benchstat
BENCHSTAT_VERSION := v0.0.0-20260908200009-22c9c6c9d4da

# actionlint, for the checks of the GitHub Action and the example
# workflows in `make test` (scripts/check-action.sh), installed by `make
# deps`.
ACTIONLINT         := .deps/bin/actionlint
ACTIONLINT_VERSION := v1.7.12

# Dynamically linked programs (cmd/icount/dynamic_test.go): C programs
# built PIE and non-PIE for amd64 and, with the cross compiler and Debian's
# arm64 libraries (libc6-dev-arm64-cross), for arm64; a C++ program using
# libstdc++; a program finding its library through $$ORIGIN; and the
# hand-written remap program with the flat code it maps and replaces.
DYN           := $(BUILD)/dynamic
DYN_C         := crunch textstat
DYN_AMD64     := $(addprefix $(DYN)/,$(DYN_C))
DYN_A64       := $(addprefix $(DYN)/arm64/,$(DYN_C))
DYN_BINS      := $(DYN_AMD64) $(addsuffix -nopie,$(DYN_AMD64)) $(DYN_A64) $(addsuffix -nopie,$(DYN_A64)) \
                 $(DYN)/wordfreq $(DYN)/origin $(DYN)/lib/libgreet.so $(DYN)/remap \
                 $(DYN)/code1.bin $(DYN)/code2.bin $(DYN)/code3.bin
TESTPROGS     += $(DYN_BINS)

# The differential CPU conformance suite (cmd/icount/cpu_test.go): the
# programs of testdata/cpu print every result and flag of each instruction
# form on edge and pseudo-random inputs. x86_*.c are built musl- and
# glibc-static and compared with their native runs; a64_*.c glibc-static,
# compared with qemu-aarch64 -cpu cortex-a72 (-march: the CRC32 and crypto
# instructions the Cortex-A72 has). -O2 with the instructions in
# inline asm, so that the compiler cannot fold them into constants;
# -mno-red-zone because the asm pushes and pops RFLAGS below the stack
# pointer.
CPU_X86    := $(patsubst testdata/cpu/%.c,%,$(wildcard testdata/cpu/x86_*.c))
CPU_A64    := $(patsubst testdata/cpu/%.c,%,$(wildcard testdata/cpu/a64_*.c))
CPU_BINS   := $(foreach p,$(CPU_X86),$(BUILD)/cpu/$(p)-musl $(BUILD)/cpu/$(p)-glibc) \
              $(foreach p,$(CPU_A64),$(BUILD)/cpu/$(p)-glibc)
CPU_CFLAGS := -O2 -Wall -Wextra
TESTPROGS  += $(CPU_BINS)

$(BUILD)/cpu/x86_%-musl: testdata/cpu/x86_%.c $(wildcard testdata/cpu/*.h) | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CPU_CFLAGS) -mno-red-zone -o $@ $<

$(BUILD)/cpu/x86_%-glibc: testdata/cpu/x86_%.c $(wildcard testdata/cpu/*.h) | deps
	@mkdir -p $(@D)
	$(CC) -static $(CPU_CFLAGS) -mno-red-zone -o $@ $<

$(BUILD)/cpu/a64_%-glibc: testdata/cpu/a64_%.c $(wildcard testdata/cpu/*.h) | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CPU_CFLAGS) -march=armv8-a+crc+crypto -o $@ $<

# libm end to end (cmd/icount/libm_test.go): testdata/libm/libm.c, without
# GCC's builtins so every call reaches libm, amd64 glibc-static (libm-glibc),
# glibc-dynamic (libm-dynamic, lazy binding) and musl-static (libm-musl),
# arm64 glibc-static and glibc-dynamic.
LIBM      := $(BUILD)/libm
LIBM_BINS := $(LIBM)/libm-glibc $(LIBM)/libm-dynamic $(LIBM)/libm-musl \
             $(LIBM)/arm64/libm-glibc $(LIBM)/arm64/libm-dynamic
TESTPROGS += $(LIBM_BINS)
LIBM_CFLAGS := $(CFLAGS) -fno-builtin

$(LIBM)/libm-glibc: testdata/libm/libm.c | deps
	@mkdir -p $(@D)
	$(CC) -static $(LIBM_CFLAGS) -o $@ $< -lm

$(LIBM)/libm-dynamic: testdata/libm/libm.c | deps
	@mkdir -p $(@D)
	$(CC) $(LIBM_CFLAGS) -o $@ $< -lm

$(LIBM)/libm-musl: testdata/libm/libm.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(LIBM_CFLAGS) -o $@ $< -lm

$(LIBM)/arm64/libm-glibc: testdata/libm/libm.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(LIBM_CFLAGS) -o $@ $< -lm

$(LIBM)/arm64/libm-dynamic: testdata/libm/libm.c | deps
	@mkdir -p $(@D)
	$(A64CC) $(LIBM_CFLAGS) -o $@ $< -lm

# The sample `make demo` counts.
DEMO := $(BUILD)/c/crunch-musl

.PHONY: all deps build static install dist testprogs busybox test conformance demo bench soak clean distclean

# How long `make soak` runs.
SOAK_DURATION ?= 10m

all: build

deps: $(BENCHSTAT) $(ACTIONLINT) $(SYSROOT_A64)
	scripts/deps.sh $(DEBIAN_PACKAGES)

$(SYSROOT_A64):
	scripts/fetch-sysroot-arm64.sh

# benchstat, for the tests of --bench, from the Go module proxy into .deps.
$(BENCHSTAT):
	GOBIN=$(CURDIR)/$(@D) $(GO) install golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION)

# actionlint, from the Go module proxy into .deps.
$(ACTIONLINT):
	GOBIN=$(CURDIR)/$(@D) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# icount's version when Go records no VCS revision (a git worktree, whose
# .git is a file, or GOFLAGS=-buildvcs=false): the commit, -dirty when the
# tree has changes, as Go's own stamp says it.
ICOUNT_VERSION ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(if $(shell git status --porcelain 2>/dev/null),-dirty)

build: deps
	$(GO) build -ldflags "-X main.version=$(ICOUNT_VERSION)" -o bin/icount ./cmd/icount

# icount linked statically, glibc and Unicorn in it: no shared library at
# all, so that it runs on any linux-amd64 (the release archive, the
# container image). Needs Go, gcc, glibc's static libraries and
# pkg-config finding a libunicorn >= 2.1 with its static library, not the
# rest of deps.
# -trimpath keeps the checkout's directory out of Go's build cache key, and
# Go does not hash pkg-config's output: emu cached from another checkout
# would bring that checkout's -L to the link. Unicorn's -L in CGO_LDFLAGS,
# which Go does hash, keys emu by where this build's Unicorn is.
STATIC := bin/icount-static
static:
	CGO_LDFLAGS="$${CGO_LDFLAGS--g -O2} $$(pkg-config --libs-only-L unicorn)" \
	$(GO) build -trimpath -tags osusergo,netgo \
	    -ldflags "-s -w -X main.version=$(ICOUNT_VERSION) -linkmode external -extldflags -static" \
	    -o $(STATIC) ./cmd/icount

# `make install` puts icount in $(DESTDIR)$(PREFIX)/bin.
PREFIX  ?= /usr/local
DESTDIR ?=
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 bin/icount $(DESTDIR)$(PREFIX)/bin/icount

# The release archive, in $(DIST): icount-VERSION-linux-amd64.tar.gz
# holding the static icount, its SHA-256, the README and the licence
# texts, and the archive's SHA-256 beside it (scripts/dist.sh).
DIST ?= dist
dist: deps static
	scripts/dist.sh $(STATIC) $(ICOUNT_VERSION) $(DIST)

testprogs: $(TESTPROGS)

# `| deps`: the compilers must be installed first, but a rebuild of the
# programs is not forced every time deps runs.
$(BUILD)/amd64/%: testdata/amd64/%.S | deps
	@mkdir -p $(@D)
	$(CC) -nostdlib -static -o $@ $<

$(BUILD)/amd64/%-pie: testdata/amd64/%.S | deps
	@mkdir -p $(@D)
	$(CC) -nostdlib -static-pie -o $@ $<

$(BUILD)/amd64/%-g: testdata/amd64/%.S | deps
	@mkdir -p $(@D)
	$(CC) -nostdlib -static -g -o $@ $<

# Programs that #include code they share: the thread programs their main
# thread, the signal programs the installing and sending of a signal.
$(foreach p,threads threads_rep,$(BUILD)/amd64/$(p) $(BUILD)/amd64/$(p)-pie): testdata/amd64/threads_main.inc
$(foreach p,sigsegv sigtgkill sigfpframe privileged,$(BUILD)/amd64/$(p) $(BUILD)/amd64/$(p)-pie): testdata/amd64/signal.inc
$(foreach p,sigsegv sigtgkill sigfpframe privileged,$(BUILD)/arm64/$(p) $(BUILD)/arm64/$(p)-pie): testdata/arm64/signal.inc

$(BUILD)/c/%-musl-g: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -g -o $@ $<

$(BUILD)/c/%-musl: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -o $@ $<

$(BUILD)/c/%-glibc: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -o $@ $<

$(BUILD)/cxx/%: testdata/cxx/%.cc | deps
	@mkdir -p $(@D)
	$(CXX) -static $(CFLAGS) -o $@ $<

# A dynamically linked program.
$(BUILD)/c/%-dynamic: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(DYN_AMD64): $(DYN)/%: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIE -pie -o $@ $<

$(addsuffix -nopie,$(DYN_AMD64)): $(DYN)/%-nopie: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-PIE -no-pie -o $@ $<

$(DYN_A64): $(DYN)/arm64/%: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(A64CC) $(CFLAGS) -fPIE -pie -o $@ $<

$(addsuffix -nopie,$(DYN_A64)): $(DYN)/arm64/%-nopie: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(A64CC) $(CFLAGS) -fno-PIE -no-pie -o $@ $<

$(DYN)/wordfreq: testdata/dynamic/wordfreq.cc | deps
	@mkdir -p $(@D)
	$(CXX) $(CFLAGS) -o $@ $<

$(DYN)/lib/libgreet.so: testdata/dynamic/greet.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<

$(DYN)/origin: testdata/dynamic/origin.c $(DYN)/lib/libgreet.so | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(DYN)/lib -lgreet -Wl,-rpath,'$$ORIGIN/lib'

$(DYN)/remap: testdata/dynamic/remap.S | deps
	@mkdir -p $(@D)
	$(CC) -nostdlib -static -o $@ $<

# Flat code (no ELF headers) for remap to map.
$(DYN)/%.bin: testdata/dynamic/%.S | deps
	@mkdir -p $(@D)
	$(CC) -c -o $@.o $<
	objcopy -O binary -j .text $@.o $@
	rm $@.o

$(BENCH): testdata/c/bench.c | deps
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -o $@ $<

$(BUILD)/arm64/%: testdata/arm64/%.S | deps
	@mkdir -p $(@D)
	$(A64CC) -nostdlib -static -o $@ $<

$(BUILD)/arm64/%-pie: testdata/arm64/%.S | deps
	@mkdir -p $(@D)
	$(A64CC) -nostdlib -static-pie -o $@ $<

$(BUILD)/arm64/c/%-glibc: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -o $@ $<

# An arm64-only C program: what a program sees of its start-up.
$(BUILD)/arm64/c/auxv-glibc: testdata/arm64/auxv.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -o $@ $<

# An arm64 C program linked dynamically against Debian's cross libraries.
$(BUILD)/arm64/c/%-dynamic: testdata/c/%.c | deps
	@mkdir -p $(@D)
	$(A64CC) $(CFLAGS) -o $@ $<

$(A64_BENCH): testdata/c/bench.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -o $@ $<

$(BUILD)/hostile/amd64/%: testdata/hostile/amd64/%.S | deps
	@mkdir -p $(@D)
	$(CC) -nostdlib -static -o $@ $<

$(BUILD)/hostile/arm64/%: testdata/hostile/arm64/%.S | deps
	@mkdir -p $(@D)
	$(A64CC) -nostdlib -static -o $@ $<

$(BUILD)/hostile/c/%-musl: testdata/hostile/c/%.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -o $@ $<

$(BUILD)/hostile/arm64/c/%-glibc: testdata/hostile/c/%.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -o $@ $<

# The execstack programs: the same source, linked with -z execstack
# (explicit rules, which make prefers to the pattern rules).
$(BUILD)/c/execstack-musl: testdata/c/execstack.c | deps
	@mkdir -p $(@D)
	$(MUSLCC) -static $(CFLAGS) -z execstack -o $@ $<

$(BUILD)/c/execstack-glibc: testdata/c/execstack.c | deps
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -z execstack -o $@ $<

$(BUILD)/c/execstack-dynamic: testdata/c/execstack.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -z execstack -o $@ $<

$(BUILD)/arm64/c/execstack-glibc: testdata/c/execstack.c | deps
	@mkdir -p $(@D)
	$(A64CC) -static $(CFLAGS) -z execstack -o $@ $<

$(BUILD)/arm64/c/execstack-dynamic: testdata/c/execstack.c | deps
	@mkdir -p $(@D)
	$(A64CC) $(CFLAGS) -z execstack -o $@ $<

busybox: $(BUSYBOX)

# One run of the script fetches both (a grouped target).
$(BUSYBOX) &: | deps
	scripts/fetch-busybox.sh

# The fuzz targets run a fixed number of inputs each (some seconds' worth),
# not for a time: Go 1.26's fuzzing coordinator can fail a run that found
# nothing with "context deadline exceeded" as a -fuzztime duration ends
# (golang/go#75804, fixed in Go 1.27), which a loaded CI machine hits.
# cmd/icount's tests can take longer than go test's default 10 minutes on a
# loaded two-core machine (the battery alone takes one and a half).
test: deps testprogs busybox
	$(GO) test -timeout 30m ./...
	scripts/check-action.sh $(ACTIONLINT)
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=400000x ./loader
	$(GO) test -run='^$$' -fuzz=FuzzParseTable -fuzztime=150000x ./fixedclock
	$(GO) test -run='^$$' -fuzz=FuzzParseConfig -fuzztime=30000x ./report
	$(GO) test -run='^$$' -fuzz=FuzzParseSuite -fuzztime=50000x ./report
	$(GO) test -run='^$$' -fuzz=FuzzProfile -fuzztime=60000x ./report
	$(GO) test -run='^$$' -fuzz=FuzzParseOutcomes -fuzztime=20000x ./report
	$(GO) test -run='^$$' -fuzz=FuzzSymbols -fuzztime=1500x ./symbolize
	$(GO) test -run='^$$' -fuzz=FuzzDebugInfo -fuzztime=3000x ./symbolize
	$(GO) test -run='^$$' -fuzz=FuzzDebugFile -fuzztime=1500x ./symbolize
	$(GO) test -run='^$$' -fuzz=FuzzCode -fuzztime=500x ./count
	$(GO) test -run='^$$' -fuzz=FuzzX86Fast -fuzztime=100000x ./count

# The outside judges in full (issue 13): every module of CPython's tests
# that cmd/icount/cpython_test.go knows (make test runs the fast ones), the
# libm suite, the battery of real programs (cmd/icount/battery_test.go,
# make test runs its fast part), and the process trees of cmd/icount/process_test.go (make
# test runs all but make with gcc, git and Python), natively and under
# icount. In CI after make test.
conformance: deps testprogs
	ICOUNT_CONFORMANCE=1 $(GO) test -run '^(TestCPython|TestLibm|TestProcess.*|TestBattery|TestMutantRuns)$$' -count=1 -timeout 120m -v ./cmd/icount
	ICOUNT_CONFORMANCE=1 $(GO) test -run '^TestMutants$$' -count=1 -v ./loader
	ICOUNT_CONFORMANCE=1 $(GO) test -run '^(TestMutants|TestDebugFileMutants)$$' -count=1 -v ./symbolize

# The soak test (not in CI): every test program under icount, twice the
# CPUs at a time, for SOAK_DURATION; counts must never differ between runs
# of a program and no run may fail (cmd/icount/soak_test.go).
soak: deps testprogs busybox
	SOAK_DURATION=$(SOAK_DURATION) $(GO) test -tags soak -run '^TestSoak$$' -count=1 -timeout 0 -v ./cmd/icount

# The demo builds icount and the one program it counts quietly (their
# output shown only when the build fails), then shows the run.
demo:
	@echo 'building icount and $(DEMO) (the first time installs what the build needs: minutes)'
	@mkdir -p bin
	@$(MAKE) --no-print-directory build $(DEMO) > bin/demo-build.log 2>&1 || { tail -n 40 bin/demo-build.log; exit 1; }
	@echo
	@echo '$$ bin/icount run $(DEMO) < /dev/null'
	@bin/icount run $(DEMO) < /dev/null

bench: build testprogs
	scripts/bench.sh

clean:
	rm -rf bin $(BUILD) $(DIST)

# Also forgets the fetched Unicorn (make deps fetches it again).
distclean: clean
	rm -rf .deps
