"""Runs one module of CPython's regression tests and records each test's outcome.

    python3 runmodule.py MODULE RESULTS [SKIP]

For cmd/icount/cpython_test.go, which runs it natively and under icount.
It loads test.MODULE the way `python3 -m test MODULE` does (no optional
resources such as cpu or network; test.support.verbose as with -v; a module
with a test_main function runs through it, its unittest suites recorded
here and test_main itself as one more test, MODULE.test_main), but in the
current directory: regrtest first makes a temporary working directory, and
icount does not emulate mkdir yet (issue 15).

RESULTS gets one line per event, written unbuffered so that a run stopped in
the middle of a test leaves every finished test's outcome behind:

    start ID
    end ID OUTCOME DETAIL

ID is unittest's; a test whose ID an earlier test of the run had (the same
doctest added twice) gets " #2", " #3", ... after it. OUTCOME is passed,
failed, error, skipped, xfail (expected failure) or xpass (unexpected
success); a test with a failing subtest failed (error if one raised).
DETAIL is the exception's first line or the reason for skipping. Tests
whose ID (so numbered) is a line of the file SKIP are not run. Class and
module fixtures that fail are recorded under their unittest description
("setUpClass (test.test_x.Class)").
"""

import importlib
import os
import resource
import sys
import traceback
import unittest

from test import support

RANK = {"passed": 0, "skipped": 1, "xfail": 1, "xpass": 2, "failed": 3, "error": 4}


def first_line(text):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


class Recorder(unittest.TestResult):
    """Writes start and end lines to the RESULTS descriptor as tests run."""

    def __init__(self, fd):
        super().__init__()
        self.fd = fd
        self.outcome = {}
        self.keys = {}  # id(test) -> its ID, numbered if it repeats
        self.seen = {}  # ID -> how many tests have had it

    def emit(self, *words):
        line = " ".join(w.replace("\n", " ") for w in words if w) + "\n"
        os.write(self.fd, line.encode("utf-8", "backslashreplace"))

    def key(self, test):
        return self.keys.get(id(test)) or test.id()

    def set(self, test, outcome, detail=""):
        tid = self.key(test)
        old = self.outcome.get(tid)
        if old is None or RANK[outcome] > RANK[old[0]]:
            self.outcome[tid] = (outcome, detail)

    def error_detail(self, err):
        return first_line("".join(traceback.format_exception_only(err[0], err[1]))) or err[0].__name__

    def startTest(self, test):
        super().startTest(test)
        self.emit("start", self.key(test))

    def stopTest(self, test):
        super().stopTest(test)
        outcome, detail = self.outcome.pop(self.key(test), ("passed", ""))
        self.emit("end", self.key(test), outcome, detail)

    def addError(self, test, err):
        super().addError(test, err)
        if isinstance(test, unittest.suite._ErrorHolder):
            # A fixture of a class or module: no startTest or stopTest.
            self.emit("end", test.id(), "error", self.error_detail(err))
        else:
            self.set(test, "error", self.error_detail(err))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.set(test, "failed", self.error_detail(err))

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self.set(test, "failed" if failed else "error", self.error_detail(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        parent = getattr(test, "test_case", test)  # a skipped subtest
        self.set(parent, "skipped", first_line(reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.set(test, "xfail")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.set(test, "xpass")


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def main():
    module, results = sys.argv[1], sys.argv[2]
    skip = set()
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            skip = {line.rstrip("\n") for line in f if line.strip()}
    # The descriptor limit icount's guest has (Linux's usual soft limit),
    # natively too: test_subprocess's test_no_leaking runs only when it
    # can reach the limit, and the host's may be far higher.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = 1024 if hard == resource.RLIM_INFINITY else min(1024, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    support.use_resources = []  # as regrtest without -u
    support.verbose = 1         # as regrtest -v
    fd = os.open(results, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    result = Recorder(fd)

    def run(suite):
        kept = unittest.TestSuite()
        for t in flatten(suite):
            tid = t.id()
            n = result.seen.get(tid, 0) + 1
            result.seen[tid] = n
            key = tid if n == 1 else "%s #%d" % (tid, n)
            if key not in skip:
                result.keys[id(t)] = key
                kept.addTest(t)
        kept.run(result)

    name = "test." + module
    mod = importlib.import_module(name)
    if hasattr(mod, "test_main"):
        # A module that runs itself (test_decimal: its setup, its
        # unittest classes through support.run_unittest, then doctests).
        # regrtest calls test_main too; its unittest suites run here, and
        # test_main itself is recorded as one more test.
        support._run_suite = run
        tid = name + ".test_main"
        result.emit("start", tid)
        try:
            mod.test_main()
            result.emit("end", tid, "passed")
        except Exception as e:
            result.emit("end", tid, "error", first_line("".join(traceback.format_exception_only(type(e), e))))
    else:
        run(unittest.defaultTestLoader.loadTestsFromName(name))
    result.emit("done")
    os.close(fd)


if __name__ == "__main__":
    main()
