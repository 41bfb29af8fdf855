# The Python workload of `make bench` (scripts/bench.sh): a CPU loop of
# function calls, run as python3 -S fib.py [N]; prints fib(N), default 25
# (about 1.5e8 x86-64 instructions under Debian's python3.11).
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(int(sys.argv[1]) if len(sys.argv) > 1 else 25))
