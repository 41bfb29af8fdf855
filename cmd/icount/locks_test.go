package main

// File locks between the processes icount runs (kernel/sys_lock.go):
// fcntl's POSIX and OFD record locks and flock(2), which sqlite3 and
// Python's sqlite3 module take on a database file (issue 15).

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLocksSQLite runs sqlite3 and Python's sqlite3 module on a database
// file, which they lock with fcntl: under icount they print what they
// print natively, and the database each leaves reads back the same.
func TestLocksSQLite(t *testing.T) {
	t.Parallel()
	sqlite := hostProgram(t, "sqlite3")
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Fatal("/usr/bin/python3 is missing: install python3")
	}
	const sql = "create table t(x); insert into t values(1); insert into t values('two'); select * from t;"
	const py = "import sqlite3\nc = sqlite3.connect('f.db')\nc.execute('create table t(x)')\n" +
		"c.executemany('insert into t values(?)', [(1,), ('two',)])\nc.commit()\n" +
		"print(c.execute('select * from t').fetchall())\nc.close()\n"
	for _, argv := range [][]string{{sqlite, "f.db", sql}, {"/usr/bin/python3", "-c", py}} {
		t.Run(filepath.Base(argv[0]), func(t *testing.T) {
			t.Parallel()
			native := t.TempDir()
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = native
			want, err := cmd.Output()
			if err != nil || len(want) == 0 {
				t.Fatalf("natively: %v, output %q", err, want)
			}
			dir := t.TempDir()
			r := runIcountIn(t, dir, nil, nil, argv[0], argv[1:]...)
			if r.status != 0 || r.stdout != string(want) {
				t.Fatalf("under icount: exit %d, output %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
			dump := func(d string) string {
				out, err := exec.Command(sqlite, filepath.Join(d, "f.db"), "select * from t;").Output()
				if err != nil {
					t.Fatalf("reading %s's database: %v", d, err)
				}
				return string(out)
			}
			if got, want := dump(dir), dump(native); got != want {
				t.Fatalf("database written under icount holds %q, natively %q", got, want)
			}
		})
	}
}

// TestLocksDeterministic runs the lock program (waits a parent ends, a
// cycle of waits, a wait SIGALRM ends) and sqlite3 on a new database twice
// each under --fixed-clock: the runs count alike.
func TestLocksDeterministic(t *testing.T) {
	t.Parallel()
	fixed := []string{"--fixed-clock"}
	locks := testProgram(t, "proc/locks-musl")
	a := runIcount(t, nil, fixed, locks, t.TempDir())
	b := runIcount(t, nil, fixed, locks, t.TempDir())
	if d := sameRun(a, b); d != "" || a.status != 0 {
		t.Errorf("locks: exit %d; two runs differ: %s", a.status, d)
	}
	sqlite := hostProgram(t, "sqlite3")
	const sql = "create table t(x); insert into t values(1); select * from t;"
	c := runIcountIn(t, t.TempDir(), nil, fixed, sqlite, "f.db", sql)
	d := runIcountIn(t, t.TempDir(), nil, fixed, sqlite, "f.db", sql)
	if diff := sameRun(c, d); diff != "" || c.status != 0 {
		t.Errorf("sqlite3: exit %d; two runs differ: %s", c.status, diff)
	}
}
