"""benchrun: one timed run of a command, for scripts/bench.sh.

Usage: python3 -I -S scripts/benchrun.py OUT ERR CMD [ARG...]

Starts CMD with an empty environment (as icount gives its guest), stdin
from /dev/null, stdout to the file OUT and stderr to the file ERR, waits for
it, and prints one line:

    WALL USER SYS MAXRSS STATUS

wall-clock seconds from its start to its end, its user and system CPU
seconds, its peak resident set size in KiB (wait4's ru_maxrss, what GNU
time's %M prints) and its exit status (128+N when signal N ended it).
Measured here rather than with /usr/bin/time, whose own start-up (a
dynamically linked program, started once per run) would add to the
milliseconds of the short rows.
"""

import os
import sys
import time


def main() -> int:
    if len(sys.argv) < 4:
        print("usage: benchrun.py OUT ERR CMD [ARG...]", file=sys.stderr)
        return 2
    out, err, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    stdin = os.open(os.devnull, os.O_RDONLY)
    stdout = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    stderr = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    actions = [(os.POSIX_SPAWN_DUP2, stdin, 0),
               (os.POSIX_SPAWN_DUP2, stdout, 1),
               (os.POSIX_SPAWN_DUP2, stderr, 2)]
    start = time.perf_counter()
    try:
        pid = os.posix_spawn(argv[0], argv, {}, file_actions=actions)
    except OSError as e:
        print(f"benchrun: {argv[0]}: {e.strerror}", file=sys.stderr)
        return 127
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        code = 128 - code
    print(f"{wall:.4f} {usage.ru_utime:.4f} {usage.ru_stime:.4f} {usage.ru_maxrss} {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
