package main

// The battery (issue 15): real Debian programs that nobody here wrote
// (core utilities, find, grep, sed, awk, diff, patch, compressors and
// archivers, sqlite3, git, make, the shells and the interpreters), each on
// an ordinary workload in a directory the test makes, run natively and
// twice under icount. Every run starts from an identical copy of the
// directory at the same path; stdout, the exit status and the tree of files
// left (names, types, permissions, contents, link targets) must equal the
// native run's, and the two icount runs must count the same. The fast cases
// run in `go test` (make test); the slow ones too with ICOUNT_CONFORMANCE=1
// (make conformance).

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icount-dev/icount/profile"
)

// batteryCase is one program on one workload. Its directory holds the
// common inputs (batteryInputs) and files, then prep runs there natively
// (sh -c, as the case's user, with its environment) to make what a program
// of its own must make (a git repository, an archive); the result is the
// starting point that every run of the case gets a copy of.
type batteryCase struct {
	name  string
	argv  []string          // argv[0] from PATH=/usr/bin:/bin
	stdin string            // its standard input
	files map[string]string // more files to make first, mode 0644
	prep  string            // a shell script run natively after files
	env   []string          // added to batteryEnv on both sides
	// ignore names the files (path.Match patterns) whose contents change
	// from one native run to the next (git's index records inode numbers
	// and times): only that they exist, their type and mode are compared.
	ignore []string
	// invoker runs both sides as the user running the test; the others run
	// as uid 1000 (the guest's own) when that user is root.
	invoker bool
	// owners marks output that names the user (id, ls -l): natively that
	// is the guest's own only as uid 1000, which a test run by another
	// user than root or 1000 cannot be, and skips the case.
	owners bool
	slow   bool // run only with ICOUNT_CONFORMANCE=1
}

// gitEnv pins what a commit records (author, committer and their dates;
// icount's fixed clock starts in 1970, and git refuses a date of 0) and
// keeps git from reading configuration outside the run's directory.
var gitEnv = []string{"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.org", "GIT_AUTHOR_DATE=2020-02-02T12:00:00Z",
	"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.org", "GIT_COMMITTER_DATE=2020-02-02T12:00:00Z",
	"GIT_CONFIG_NOSYSTEM=1"}

// gitOneCommit is a prep that makes a repository of the common inputs with
// one commit. Every run's copy of it has the same bytes and times but new
// change times (ctime) and inode numbers, which the index records; git
// would see every file's stat data changed and write a new index holding
// them, whose SHA-1 (git's collision-detecting one, whose work depends on
// the data) then counts differently from copy to copy, natively too. So
// git compares only sizes and modification times, as core.checkStat
// minimal and core.trustctime false make it.
const gitOneCommit = "git init -q -b main . && git config core.checkStat minimal && git config core.trustctime false && " +
	"git add words.txt tree && git commit -q -m 'first commit'"

// gitIndex is git's index, whose entries record inode numbers and times.
var gitIndex = []string{".git/index"}

// batteryCases is the battery.
var batteryCases = []batteryCase{
	// Core utilities.
	{name: "mkdir", argv: []string{"mkdir", "-p", "a/b/c", "d"}},
	{name: "mkdir-mode", argv: []string{"mkdir", "-m", "0700", "private"}},
	{name: "rmdir", argv: []string{"rmdir", "-p", "empty/deeper"}, prep: "mkdir -p empty/deeper"},
	{name: "touch", argv: []string{"touch", "new", "words.txt"}},
	{name: "touch-date", argv: []string{"sh", "-c", "touch -d @981173106 dated && stat -c '%n %Y %s %a' dated"}},
	{name: "mv", argv: []string{"mv", "words.txt", "tree/moved.txt"}},
	{name: "mv-dir", argv: []string{"mv", "-T", "tree", "renamed"}},
	{name: "cp-r", argv: []string{"cp", "-r", "tree", "copy"}},
	{name: "cp-a", argv: []string{"sh", "-c", "cp -a tree kept && ls -lR --time-style=+%s kept | sed 's/^\\([^ ]*\\) [0-9]* [^ ]* [^ ]*/\\1/'"}},
	{name: "cp-p", argv: []string{"sh", "-c", "cp -p words.txt kept && stat -c '%Y %a' kept"}},
	{name: "ln-s", argv: []string{"ln", "-s", "words.txt", "link"}},
	{name: "ln", argv: []string{"ln", "words.txt", "hard"}},
	{name: "rm-r", argv: []string{"rm", "-rv", "tree"}},
	{name: "chmod", argv: []string{"chmod", "-R", "go-rwx", "tree"}},
	{name: "install", argv: []string{"install", "-D", "-m", "0755", "words.txt", "bin/words"}},
	{name: "truncate", argv: []string{"truncate", "-s", "100", "words.txt"}},
	{name: "dd", argv: []string{"dd", "if=words.txt", "of=part", "bs=512", "count=3", "status=none"}},
	{name: "tee", argv: []string{"tee", "copy1", "copy2"}, stdin: "tee's input\n"},
	{name: "split", argv: []string{"split", "-l", "700", "words.txt", "part."}},
	{name: "csplit", argv: []string{"csplit", "-s", "-f", "piece", "words.txt", "/^alpha/", "{3}"}},
	{name: "ls", argv: []string{"ls", "-lR", "--time-style=long-iso", "tree"}, owners: true},
	{name: "stat", argv: []string{"stat", "-c", "%n %s %a %F %h", "words.txt", "tree", "tree/sub/b.txt"}},
	{name: "du", argv: []string{"du", "-ab", "tree"}},
	{name: "cat", argv: []string{"cat", "-n", "tree/a.txt", "words.txt"}},
	{name: "sort", argv: []string{"sort", "-k2,2", "-k3,3n", "-s", "words.txt"}},
	{name: "sort-n", argv: []string{"sort", "-n", "-u", "-o", "sorted", "nums.txt"}},
	{name: "uniq", argv: []string{"sh", "-c", "sort words.txt | uniq -c | sort -rn | head -20"}},
	{name: "wc", argv: []string{"wc", "words.txt", "nums.txt"}},
	{name: "head", argv: []string{"head", "-n", "7", "words.txt"}},
	{name: "tail", argv: []string{"tail", "-c", "300", "words.txt"}},
	{name: "cut", argv: []string{"cut", "-d", " ", "-f", "2,3", "words.txt"}},
	{name: "paste", argv: []string{"paste", "-d", ",", "nums.txt", "words.txt"}},
	{name: "join", argv: []string{"sh", "-c", "sort -k1,1 words.txt > w && sort -k1,1 -u left.txt > l && join l w | tail -3"},
		files: map[string]string{"left.txt": "beta B\nalpha A\niota I\n"}},
	{name: "comm", argv: []string{"comm", "-3", "one", "two"}, files: map[string]string{"one": "a\nb\nd\n", "two": "b\nc\nd\ne\n"}},
	{name: "tr", argv: []string{"tr", "a-z", "A-Z"}, stdin: "translate me, please\n"},
	{name: "tac", argv: []string{"tac", "nums.txt"}},
	{name: "nl", argv: []string{"nl", "-ba", "words.txt"}},
	{name: "fold", argv: []string{"fold", "-w", "13", "words.txt"}},
	{name: "fmt", argv: []string{"fmt", "-w", "50", "words.txt"}},
	{name: "pr", argv: []string{"pr", "-l", "30", "-h", "words", "-D", "", "words.txt"}},
	{name: "tsort", argv: []string{"tsort"}, stdin: "shirt tie\ntie jacket\nbelt jacket\npants shoes\npants belt\n"},
	{name: "shuf", argv: []string{"shuf", "-n", "10", "--random-source=words.txt", "nums.txt"}},
	{name: "sha256sum", argv: []string{"sha256sum", "words.txt", "nums.txt"}},
	{name: "md5sum", argv: []string{"md5sum", "-c", "sums"}, prep: "md5sum words.txt nums.txt > sums"},
	{name: "b2sum", argv: []string{"b2sum", "words.txt"}},
	{name: "cksum", argv: []string{"cksum", "words.txt", "nums.txt"}},
	{name: "base64", argv: []string{"base64", "nums.txt"}},
	{name: "base32", argv: []string{"base32", "-d", "b32"}, prep: "base32 words.txt > b32"},
	{name: "od", argv: []string{"od", "-A", "x", "-t", "x1z", "-N", "200", "words.txt"}},
	{name: "seq", argv: []string{"seq", "-w", "-s", ",", "1", "3", "100"}},
	{name: "factor", argv: []string{"factor", "600851475143", "1000000007", "4294967297"}},
	{name: "numfmt", argv: []string{"numfmt", "--to=iec", "1024", "1000000", "123456789012"}},
	{name: "expr", argv: []string{"expr", "length", "battery", "+", "6", "*", "7"}},
	{name: "printf", argv: []string{"printf", "%05d|%-6s|%x|%.3f\\n", "42", "ab", "255", "3.14159"}},
	{name: "realpath", argv: []string{"realpath", "--relative-to=tree/sub", "tree/sub/deeper/../../a.txt", "link"}, prep: "ln -s tree/sub link"},
	{name: "readlink", argv: []string{"sh", "-c", "readlink link; readlink -f link | sed \"s|^$PWD|.|\""}, prep: "ln -s tree/sub/b.txt link"},
	{name: "basename", argv: []string{"basename", "-a", "-s", ".txt", "tree/a.txt", "/x/y/words.txt"}},
	{name: "date", argv: []string{"date", "-u", "-d", "@1234567890", "+%F %T %A %j"}},
	{name: "env", argv: []string{"env"}},
	{name: "id", argv: []string{"id"}, owners: true},
	{name: "test", argv: []string{"sh", "-c", "test -d tree && test -f words.txt && test ! -e nothing && test words.txt -nt nothing; echo $?"}},
	// Under --fixed-clock every clock read is a second later, and the
	// child's start-up reads the clock: 5 s would pass before it prints.
	{name: "timeout", argv: []string{"timeout", "1000", "sh", "-c", "echo inside; exit 3"}},
	{name: "kill", argv: []string{"sh", "-c", "sh -c 'kill -TERM $$'; echo status $?; sleep 5 & kill -TERM $!; wait $!; echo status $?"}},
	{name: "yes-head", argv: []string{"sh", "-c", "yes battery | head -3"}},
	// find and xargs.
	{name: "find", argv: []string{"find", "."}},
	{name: "find-exec", argv: []string{"find", "tree", "-type", "f", "-name", "*.txt", "-exec", "wc", "-l", "{}", "+"}},
	{name: "find-delete", argv: []string{"find", "tree", "-name", "c.txt", "-delete", "-print"}},
	{name: "xargs", argv: []string{"sh", "-c", "find tree -type f -print0 | sort -z | xargs -0 -n 1 wc -c"}},
	// Text tools.
	{name: "grep", argv: []string{"grep", "-c", "gamma", "words.txt"}},
	{name: "grep-r", argv: []string{"grep", "-rn", "--include=*.txt", "kappa", "tree"}},
	{name: "grep-P", argv: []string{"grep", "-P", "-o", "^(eta|zeta) \\w+ \\d\\d$", "words.txt"}},
	{name: "sed", argv: []string{"sed", "-n", "-e", "s/alpha \\([a-z]*\\)/A-\\1/p", "words.txt"}},
	{name: "sed-i", argv: []string{"sed", "-i", "-e", "s/beta/BETA/g", "words.txt"}},
	{name: "gawk", argv: []string{"gawk", "BEGIN{print 1}"}},
	{name: "gawk-script", argv: []string{"gawk", "{ n[$1] += $3 } END { PROCINFO[\"sorted_in\"] = \"@ind_str_asc\"; for (k in n) printf \"%s %d %.4f\\n\", k, n[k], sin(n[k]) }", "words.txt"}},
	{name: "gawk-pipes", argv: []string{"gawk", "BEGIN { system(\"echo from system\"); \"date -u -d @0 +%Y\" | getline y; print y; print \"to cat\" | \"cat\"; close(\"cat\"); print \"sorted\" > \"out.txt\" }"}},
	{name: "mawk", argv: []string{"mawk", "-F", " ", "$3 > 90 { c++ } END { print c, NR }", "words.txt"}},
	{name: "diff", argv: []string{"diff", "-u", "words.txt", "changed.txt"}, prep: "sed '5d;100s/a/A/' words.txt > changed.txt"},
	{name: "cmp", argv: []string{"cmp", "words.txt", "nums.txt"}},
	{name: "diff3", argv: []string{"diff3", "mine", "old", "yours"},
		files: map[string]string{"mine": "1\n2\nmine\n4\n", "old": "1\n2\n3\n4\n", "yours": "1\nyours\n3\n4\n"}},
	{name: "patch", argv: []string{"patch", "-p0", "-i", "fix.diff"}, prep: "sed '5d;100s/a/A/' words.txt > changed.txt; diff -u words.txt changed.txt > fix.diff; rm changed.txt"},
	{name: "iconv", argv: []string{"iconv", "-f", "UTF-8", "-t", "UTF-16LE", "-o", "utf16", "utf8"}, files: map[string]string{"utf8": "naïve café ☕ Ünïcödé\n"}},
	{name: "xxd", argv: []string{"sh", "-c", "xxd -l 64 words.txt && xxd -l 64 words.txt | xxd -r > back"}},
	{name: "hexdump", argv: []string{"hexdump", "-C", "-n", "100", "nums.txt"}},
	{name: "file", argv: []string{"file", "words.txt", "tree", "words.gz", "/usr/bin/env"}},
	// Compressors and archivers.
	{name: "gzip", argv: []string{"gzip", "-9", "words.txt"}},
	{name: "gzip-l", argv: []string{"sh", "-c", "gzip -k -6 nums.txt && gzip -l nums.txt.gz && gzip -t nums.txt.gz"}},
	{name: "gunzip", argv: []string{"gzip", "-d", "-c", "words.gz"}},
	{name: "bzip2", argv: []string{"bzip2", "-k", "words.txt"}},
	{name: "bunzip2", argv: []string{"bzip2", "-d", "-c", "words.bz2"}, prep: "bzip2 -c words.txt > words.bz2"},
	{name: "xz", argv: []string{"xz", "-k", "-6", "words.txt"}},
	{name: "unxz", argv: []string{"xz", "-d", "-c", "words.xz"}, prep: "xz -c words.txt > words.xz"},
	{name: "zstd", argv: []string{"zstd", "-q", "-19", "words.txt", "-o", "words.zst"}},
	{name: "unzstd", argv: []string{"zstd", "-d", "-q", "-c", "words.zst"}, prep: "zstd -q words.txt -o words.zst"},
	{name: "lz4", argv: []string{"sh", "-c", "lz4 -q -9 words.txt words.lz4 && lz4 -d -c words.lz4 | cmp - words.txt"}},
	{name: "zip", argv: []string{"zip", "-X", "-q", "-r", "out.zip", "tree", "words.txt"}},
	{name: "unzip", argv: []string{"unzip", "-q", "in.zip", "-d", "out"}, prep: "zip -X -q -r in.zip tree nums.txt"},
	{name: "tar-c", argv: []string{"tar", "-cf", "out.tar", "tree", "words.txt"}},
	{name: "tar-x", argv: []string{"tar", "-xf", "tree.tar", "-C", "out"}, prep: "mkdir out"},
	{name: "tar-tv", argv: []string{"tar", "-tvf", "tree.tar"}},
	{name: "tar-z", argv: []string{"sh", "-c", "tar -czf out.tgz tree && mkdir x && tar -xzf out.tgz -C x && diff -r tree x/tree"}},
	// Databases.
	{name: "sqlite3", argv: []string{"sqlite3", "f.db", "create table t(k text, n int); insert into t values('a', 1), ('b', 2); select k, n*21 from t;"}},
	{name: "sqlite3-backup", argv: []string{"sh", "-c", "sqlite3 f.db 'create table t(x); insert into t values(42);' && sqlite3 f.db '.backup g.db' && sqlite3 g.db 'select * from t' .dump"}},
	{name: "sqlite3-query", argv: []string{"sqlite3", "-header", "-column", "f.db", "select w, count(*), sum(n) from t group by w order by w;"},
		prep: "sqlite3 f.db 'create table t(w text, v text, n int)' && sed 's/ /|/g' words.txt > w.psv && sqlite3 f.db '.import w.psv t'"},
	{name: "sqlite3-wal", argv: []string{"sqlite3", "f.db", "pragma journal_mode=wal; create table t(x); insert into t values(1),(2),(3); select sum(x) from t; pragma wal_checkpoint(truncate);"}},
	// In exclusive locking mode SQLite keeps the WAL index in its own
	// memory, not in a shared mapping of f.db-shm (see batteryKnown).
	{name: "sqlite3-wal-exclusive", argv: []string{"sqlite3", "f.db", "pragma locking_mode=exclusive; pragma journal_mode=wal; create table t(x); insert into t values(1),(2),(3); select sum(x) from t; pragma wal_checkpoint(truncate);"}},
	{name: "python3-sqlite3", argv: []string{"python3", "-c", "import sqlite3\nc = sqlite3.connect('f.db')\nc.execute('create table t(x)')\nc.executemany('insert into t values(?)', [(i,) for i in range(100)])\nc.commit()\nprint(c.execute('select sum(x) from t').fetchone())"}},
	// Version control: git in a repository the test makes.
	{name: "git-init", argv: []string{"git", "init", "-q", "-b", "main", "repo"}, env: gitEnv},
	// The files it adds are its own (the index records their change times,
	// see gitOneCommit; those of the files it writes are the fixed clock's).
	{name: "git-add-commit", argv: []string{"sh", "-c", "git init -q -b main . && cp -r tree src && cp words.txt src && git add src && git commit -q -m 'the inputs' && git log --stat --format='%H %an %ad %s' && git status --short"},
		env: gitEnv, ignore: gitIndex},
	{name: "git-status", argv: []string{"git", "status"}, prep: gitOneCommit + " && echo changed >> words.txt && echo new > new.txt", env: gitEnv, ignore: gitIndex},
	{name: "git-status-invoker", argv: []string{"git", "status", "--short"}, prep: gitOneCommit + " && echo changed >> words.txt", env: gitEnv, ignore: gitIndex, invoker: true},
	{name: "git-log", argv: []string{"git", "log", "-p", "--format=%H %an <%ae> %ad %s"}, prep: gitOneCommit + " && sed -i 5d words.txt && git commit -q -am second", env: gitEnv},
	{name: "git-diff", argv: []string{"git", "diff", "--stat", "-p"}, prep: gitOneCommit + " && sed -i '1d;50s/a/A/' words.txt", env: gitEnv, ignore: gitIndex},
	{name: "git-branch", argv: []string{"sh", "-c", "git checkout -q -b topic && echo topic > t.txt && git add t.txt && git commit -q -m topic && git checkout -q main && git merge -q --no-ff -m merged topic && git log --graph --oneline && git branch -a"},
		prep: gitOneCommit, env: gitEnv, ignore: gitIndex},
	{name: "git-clone", argv: []string{"sh", "-c", "git clone -q . ../work/clone && git -C clone log --format='%H %s' && git -C clone status --short && ls clone"}, prep: gitOneCommit, env: gitEnv,
		ignore: []string{".git/index", "clone/.git/index"}, slow: true},
	{name: "git-stash-grep", argv: []string{"sh", "-c", "echo more >> words.txt && git stash -q && git stash list && git grep -c alpha -- words.txt && git stash pop -q && git diff --stat"},
		prep: gitOneCommit, env: gitEnv, ignore: gitIndex},
	{name: "git-tag-show", argv: []string{"sh", "-c", "git tag -a v1 -m 'version 1' && git show --stat v1 && git describe"}, prep: gitOneCommit, env: gitEnv},
	// Build tools.
	{name: "make", argv: []string{"make"}, files: map[string]string{"Makefile": batteryMakefile}},
	{name: "make-k", argv: []string{"make", "-k", "all", "fails"}, files: map[string]string{"Makefile": batteryMakefile + "fails:\n\tfalse\n\techo never\n"}},
	{name: "make-n", argv: []string{"make", "-n", "all"}, files: map[string]string{"Makefile": batteryMakefile}},
	// Silent: which of two jobs ends first, and so the order of what they
	// print, is up to the host natively.
	{name: "make-j2", argv: []string{"make", "-j2", "-s"}, files: map[string]string{"Makefile": batteryMakefile}},
	// Shells and interpreters.
	{name: "bash-c", argv: []string{"bash", "-c", "echo hi from $0; x=$((6*7)); echo $x"}},
	{name: "bash-jobs", argv: []string{"bash", "-c", "sleep 1 & sleep 2 & jobs | wc -l; wait; echo waited $?; (exit 3) & wait $!; echo $?"}},
	{name: "bash-script", argv: []string{"bash", "script.sh", "one", "two"}, files: map[string]string{"script.sh": batteryBash}},
	{name: "dash", argv: []string{"dash", "-c", "for i in 1 2 3; do echo $((i * i)); done | while read n; do echo sq $n; done; echo ${#PATH}"}},
	{name: "perl", argv: []string{"perl", "-e", "print 1+1, qq(\\n)"}},
	{name: "perl-script", argv: []string{"perl", "-e", batteryPerl}},
	{name: "perl-fork", argv: []string{"perl", "-e", "pipe(my $r, my $w) or die; my $p = fork; if (!$p) { close $r; print $w qq(from the child\n); exit 7 } close $w; my $l = <$r>; waitpid($p, 0); print $l, $? >> 8, qq(\n)"}},
	{name: "perl-i", argv: []string{"perl", "-i.bak", "-pe", "s/(\\d+)$/$1*2/e", "words.txt"}},
	{name: "python3", argv: []string{"python3", "-c", "import sys, json; print(json.dumps({'v': sys.version_info[:2], 'sum': sum(range(10**5))}))"}},
	{name: "python3-script", argv: []string{"python3", "script.py"}, files: map[string]string{"script.py": batteryPython}, slow: true},
	{name: "python3-subprocess", argv: []string{"python3", "-c", "import subprocess\np = subprocess.Popen(['tr', 'a-z', 'A-Z'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)\nprint(p.communicate(b'piped through tr')[0], p.returncode)\nprint(subprocess.run('exit 5', shell=True).returncode)"}, slow: true},
	{name: "python3-threads", argv: []string{"python3", "-c", "import threading, queue\nq = queue.Queue()\nts = [threading.Thread(target=q.put, args=(i * i,)) for i in range(4)]\nfor t in ts: t.start()\nfor t in ts: t.join()\nprint(sorted(q.get() for _ in range(4)))"}, slow: true},
	{name: "python3-multiprocessing", argv: []string{"python3", "-c", "import multiprocessing\nprint(multiprocessing.Pool(2).map(abs, [-1, -2, 3]))"}, slow: true},
	{name: "ruby", argv: []string{"ruby", "-e", "p 1"}},
	{name: "ruby-script", argv: []string{"ruby", "-e", batteryRuby}, slow: true},
	{name: "node", argv: []string{"node", "-e", "1"}},
	{name: "ruby-subprocess", argv: []string{"ruby", "-e", "puts `echo sub`; system('exit 3'); p $?.exitstatus; IO.popen(['tr', 'a-z', 'A-Z'], 'r+') { |io| io.write('popen'); io.close_write; puts io.read }"}, slow: true},
	{name: "node-script", argv: []string{"node", "script.js"}, files: map[string]string{"script.js": batteryNode}, slow: true},
	{name: "tclsh", argv: []string{"tclsh"}, stdin: batteryTcl},
	{name: "tclsh-exec", argv: []string{"tclsh"}, stdin: "puts [exec echo tcl-exec]\nset f [open |cat r+]\nputs $f hi\nflush $f\nclose $f w\nputs [gets $f]\n"},
	{name: "bc", argv: []string{"bc", "-l"}, stdin: "scale=50; 4*a(1)\n2^200\nsqrt(2)\n"},
	{name: "jq", argv: []string{"jq", "-c", "[.[] | select(.n > 1) | .k] | sort", "in.json"}, files: map[string]string{"in.json": `[{"k":"b","n":2},{"k":"a","n":3},{"k":"c","n":1}]`}},
	{name: "openssl", argv: []string{"sh", "-c", "openssl dgst -sha256 words.txt && openssl enc -aes-256-cbc -pbkdf2 -S 0011223344556677 -pass pass:battery -in words.txt -out words.enc && openssl enc -d -aes-256-cbc -pbkdf2 -pass pass:battery -in words.enc | cmp - words.txt"}},
	{name: "msgfmt", argv: []string{"msgfmt", "-o", "fr.mo", "fr.po"}, files: map[string]string{"fr.po": "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\nmsgid \"hello\"\nmsgstr \"bonjour\"\n"}},
	{name: "groff", argv: []string{"groff", "-man", "-Tascii", "page.1"}, files: map[string]string{"page.1": ".TH BATTERY 1\n.SH NAME\nbattery \\- real programs\n.SH DESCRIPTION\nEach runs natively and under icount.\n"}},
	// The toolchain.
	{name: "gcc", argv: []string{"sh", "-c", "gcc -O2 -o hello hello.c && ./hello"}, files: map[string]string{"hello.c": "#include <stdio.h>\nint main(void) { printf(\"hello, %d\\n\", 6 * 7); return 0; }\n"}, slow: true},
	{name: "binutils", argv: []string{"sh", "-c", "as -o a.o a.s && ar rcs liba.a a.o && nm liba.a && readelf -h a.o | head -8 && objdump -d a.o | tail -4"},
		files: map[string]string{"a.s": ".text\n.globl answer\nanswer:\n\tmovl $42, %eax\n\tret\n"}, slow: true},
	{name: "make-gcc", argv: []string{"make", "-s", "prog"}, files: map[string]string{"Makefile": "prog: main.o util.o\n\tgcc -o $@ $^\n%.o: %.c\n\tgcc -O1 -c -o $@ $<\n",
		"main.c": "int twice(int);\nint main(void) { return twice(21) - 42; }\n", "util.c": "int twice(int x) { return 2 * x; }\n"}, slow: true},
	// Larger and multithreaded workloads.
	{name: "xz-T2", argv: []string{"sh", "-c", "cat words.txt words.txt words.txt words.txt > big && xz -T2 -3 -k big && xz -T2 -d -c big.xz | cmp - big"}, slow: true},
	{name: "sort-parallel", argv: []string{"sort", "-S", "64K", "--parallel=2", "-T", ".", "-k3,3n", "-k1,1", "words.txt"}, slow: true},
	{name: "tar-J", argv: []string{"sh", "-c", "tar -cJf out.txz tree words.txt && tar -tJvf out.txz"}, slow: true},
	{name: "git-gc", argv: []string{"sh", "-c", "git -c pack.threads=1 gc -q && git count-objects -v | grep -v size && git fsck --no-progress"}, prep: gitOneCommit, env: gitEnv,
		ignore: []string{".git/index", ".git/objects/pack/*"}, slow: true},
	{name: "sqlite3-big", argv: []string{"sqlite3", "f.db"}, stdin: "create table t(k int primary key, v text);\nwith recursive c(x) as (select 1 union all select x+1 from c where x < 20000) insert into t select x, cast(x * 7919 % 100003 as text) from c;\ncreate index iv on t(v);\nselect count(*), sum(k) from t where v like '1%';\nvacuum;\n", slow: true},
	{name: "python3-json-tool", argv: []string{"python3", "-m", "json.tool", "--sort-keys", "in.json"}, files: map[string]string{"in.json": `{"b": [1, 2, {"c": null}], "a": "x"}`}, slow: true},
}

// batteryKnown is the one table of the cases that run otherwise under
// icount than natively, for a limit icount documents (README), and why.
// A listed case that runs as natively fails the test, so a fix prunes the
// table.
var batteryKnown = map[string]string{
	"sqlite3-wal":             "a database in WAL mode maps its -shm file MAP_SHARED and writable, which icount does not emulate: the run stops (125), naming it",
	"python3-multiprocessing": "a Pool's semaphores (sem_open) map a file of /dev/shm MAP_SHARED and writable, which icount does not emulate: the run stops (125), naming it",
}

// batteryMakefile has rules with dependencies, a pattern rule and a
// recipe that runs the shell's tools.
const batteryMakefile = `all: report.txt upper.txt

%.up: %.txt
	tr a-z A-Z < $< > $@

upper.txt: tree/a.up words.up
	cat $^ > $@

report.txt: words.txt nums.txt
	wc -l $^ > $@
	sort -n nums.txt | tail -1 >> $@

.PHONY: all
`

// batteryBash exercises functions, arrays, subshells, here-documents and
// pipes.
const batteryBash = `set -euo pipefail
count() { local n=0; while read -r _; do n=$((n+1)); done; echo "$n"; }
declare -A seen
while read -r a b _; do seen[$a]=$b; done < words.txt
for k in $(printf '%s\n' "${!seen[@]}" | sort); do echo "$k -> ${seen[$k]}"; done
echo "args: $# $*"
echo "lines: $(count < words.txt)"
( cd tree && echo "sub: $(ls | tr '\n' ' ')" )
cat <<EOF > here.txt
written by $0
EOF
arr=(x y z); echo "${arr[@]:1}" "${#arr[@]}"
`

// batteryPerl walks the tree, counts words and writes a file.
const batteryPerl = `use strict; use warnings; use File::Find;
my %n; my @files;
find(sub { push @files, $File::Find::name if -f }, "tree");
for my $f (sort @files) { open(my $h, "<", $f) or die; while (<$h>) { $n{$_}++ for split } close $h }
open(my $o, ">", "counts.txt") or die; print $o "$_ $n{$_}\n" for sort keys %n; close $o;
printf "%d files, %d words, %.3f\n", scalar(@files), scalar(keys %n), sqrt(2);
`

// batteryPython uses the file-system modules, a subprocess, hashing and
// JSON.
const batteryPython = `import hashlib, json, os, pathlib, shutil, subprocess, tempfile
shutil.copytree("tree", "copy")
os.rename("copy/a.txt", "copy/renamed.txt")
os.symlink("renamed.txt", "copy/link")
names = sorted(str(p) for p in pathlib.Path("copy").rglob("*"))
with tempfile.TemporaryDirectory() as d:
    pathlib.Path(d, "x").write_text("temporary")
    n = len(os.listdir(d))
out = subprocess.run(["sort", "-n", "nums.txt"], capture_output=True, check=True).stdout
digest = hashlib.sha256(out).hexdigest()
pathlib.Path("result.json").write_text(json.dumps({"names": names, "tmp": n, "digest": digest}, indent=1))
print(digest, len(names))
`

// batteryRuby reads, sorts and writes files and runs a block in a thread.
const batteryRuby = `counts = Hash.new(0)
File.foreach("words.txt") { |l| counts[l.split[0]] += 1 }
File.write("counts.txt", counts.sort.map { |k, v| "#{k} #{v}\n" }.join)
t = Thread.new { (1..1000).reduce(:+) }
puts t.value, Dir.glob("tree/**/*").sort.inspect, 2**100
`

// batteryNode reads and writes files with fs, sorts, hashes.
const batteryNode = `const fs = require("fs"), crypto = require("crypto");
const lines = fs.readFileSync("words.txt", "utf8").trim().split("\n");
const n = {};
for (const l of lines) { const w = l.split(" ")[0]; n[w] = (n[w] || 0) + 1; }
fs.mkdirSync("out/deep", { recursive: true });
fs.writeFileSync("out/deep/counts.json", JSON.stringify(n, Object.keys(n).sort()));
console.log(lines.length, crypto.createHash("sha256").update(lines.join()).digest("hex"));
console.log(fs.readdirSync("tree").sort());
`

// batteryTcl is a script on tclsh's stdin: file operations, lists, format.
const batteryTcl = `set f [open words.txt]
set n 0
while {[gets $f line] >= 0} { incr n }
close $f
file mkdir tcldir
set o [open tcldir/out.txt w]
puts $o "lines $n"
close $o
puts [lsort [glob tree/*]]
puts [format "%.5f %d" [expr {sqrt(2)}] [expr {2**40}]]
puts [file size tcldir/out.txt]
`

// batteryInputs writes the inputs every case gets: text, numbers, a small
// tree, and gzip and tar files of them (made natively), all with one
// modification time.
func batteryInputs(t *testing.T, dir string) {
	t.Helper()
	dynamicInputs(t, dir)
	stamp := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, stamp, stamp)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// batteryEnv is the whole environment of both sides of a case run in dir,
// its temporary files in temp. glibc is kept to the emulated CPU's
// features (libmTunables), so that libm's IFUNCs choose the same variants
// on both sides.
func batteryEnv(dir, temp string, c batteryCase) []string {
	return append([]string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + temp, "LANG=C.UTF-8", libmTunables}, c.env...)
}

// batteryTemp makes dir anew, empty and cred's (nil: the test's user).
// The cases' programs make their temporary files in one (TMPDIR; natively
// the host's /tmp would do only while its mode lets every user in, which
// other tests of the machine's may change), icount its private /tmp in
// another.
func batteryTemp(t *testing.T, dir string, cred *syscall.Credential) string {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// batteryRun is one run of a case: what it printed, its status and the
// files it left.
type batteryRun struct {
	stdout, stderr string
	status         int
	tree           map[string]string
	result         result // under icount
}

// TestBattery runs each case natively and twice under icount.
func TestBattery(t *testing.T) {
	t.Parallel()
	slow := os.Getenv("ICOUNT_CONFORMANCE") != ""
	var cases []batteryCase
	skipped := 0
	for _, c := range batteryCases {
		if c.slow && !slow {
			skipped++
			continue
		}
		cases = append(cases, c)
	}
	if skipped > 0 {
		t.Logf("%d more cases run with ICOUNT_CONFORMANCE=1 (make conformance)", skipped)
	}
	guest := batteryGuest(t)
	for _, c := range cases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var cred *syscall.Credential
			if !c.invoker {
				cred = guest
			}
			if c.owners && cred == nil && os.Geteuid() != 1000 {
				t.Skip("its output names the user, natively the guest's own (uid 1000) only when the test runs as root or 1000")
			}
			batteryCheck(t, c, cred)
		})
	}
}

// batteryGuest is the user the cases run as, on both sides: as root, uid
// and gid 1000 (the guest's identity, so that what shows owners and what
// root may do that others may not is alike on both sides), whose way to
// the test's directories and icount's binary is opened; nil (the user
// running the test) otherwise.
func batteryGuest(t *testing.T) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	if err := os.Chmod(filepath.Dir(icountBin), 0o755); err != nil {
		t.Fatal(err)
	}
	return &syscall.Credential{Uid: 1000, Gid: 1000}
}

// batteryCheck runs case c as cred (nil: the user running the test) and
// compares its runs.
func batteryCheck(t *testing.T, c batteryCase, cred *syscall.Credential) {
	base := t.TempDir()
	if cred != nil {
		openWayTo(t, base)
	}
	start := filepath.Join(base, "start")
	batteryStart(t, c, start, cred)
	work := filepath.Join(base, "work")
	begin := time.Now()
	native := batteryOnce(t, c, start, work, cred, false)
	nativeTime := time.Since(begin)
	begin = time.Now()
	a := batteryOnce(t, c, start, work, cred, true)
	b := batteryOnce(t, c, start, work, cred, true)
	t.Logf("native %.2f s, icount %.2f s for two runs, %d instructions", nativeTime.Seconds(), time.Since(begin).Seconds(), a.result.profile.Totals.Instructions)
	var diffs []string
	for i, g := range []batteryRun{a, b} {
		if g.status != native.status || g.stdout != native.stdout {
			diffs = append(diffs, fmt.Sprintf("icount run %d: status %d (native %d), stdout of %d bytes (native %d):\n%s\nicount's stderr:\n%s\nnative stderr:\n%s",
				i+1, g.status, native.status, len(g.stdout), len(native.stdout), clip(firstDiff(native.stdout, g.stdout)), cpythonTail([]byte(g.stderr)), cpythonTail([]byte(native.stderr))))
		}
		if d := treeDiff(native.tree, g.tree); d != "" {
			diffs = append(diffs, fmt.Sprintf("icount run %d left other files than the native run:\n%s", i+1, d))
		}
	}
	if d := sameRun(a.result, b.result); d != "" {
		diffs = append(diffs, fmt.Sprintf("two icount runs differ: %s%s", d, processesDiff(a.result, b.result)))
	}
	reason, known := batteryKnown[c.name]
	switch {
	case known && len(diffs) == 0:
		t.Errorf("batteryKnown lists %s (%s), which now runs as natively: remove it", c.name, reason)
	case known:
		t.Logf("differs as known: %s\n%s", reason, strings.Join(diffs, "\n"))
	case len(diffs) > 0:
		t.Error(strings.Join(diffs, "\n"))
	}
}

// batteryStart makes the directory every run of c starts from.
func batteryStart(t *testing.T, c batteryCase, dir string, cred *syscall.Credential) {
	t.Helper()
	batteryInputs(t, dir)
	for name, data := range c.files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cred != nil {
		if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", cred.Uid, cred.Gid), dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v\n%s", err, out)
		}
	}
	if c.prep == "" {
		return
	}
	cmd := exec.Command("sh", "-c", c.prep)
	temp := batteryTemp(t, filepath.Join(filepath.Dir(dir), "temp"), cred)
	cmd.Dir, cmd.Env = dir, batteryEnv(dir, temp, c)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("prep %q: %v\n%s", c.prep, err, out)
	}
}

// batteryOnce runs c once in work, a fresh copy of start (at the same path
// for every run, which some programs print), natively or under icount, and
// returns what it did; work is removed afterwards.
func batteryOnce(t *testing.T, c batteryCase, start, work string, cred *syscall.Credential, underIcount bool) batteryRun {
	t.Helper()
	if out, err := exec.Command("cp", "-a", start, work).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	defer os.RemoveAll(work)
	temp := batteryTemp(t, filepath.Join(filepath.Dir(work), "temp"), cred)
	env := batteryEnv(work, temp, c)
	prog := batteryProgram(t, c.argv[0])
	setup := func(cmd *exec.Cmd) {
		cmd.Dir, cmd.Stdin = work, strings.NewReader(c.stdin)
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
	}
	var r batteryRun
	if underIcount {
		tmp := batteryTemp(t, filepath.Join(filepath.Dir(work), "tmp"), cred)
		flags := []string{"-q", "--fixed-clock"}
		for _, e := range env {
			flags = append(flags, "--env", e)
		}
		r.result = runIcountWith(t, func(cmd *exec.Cmd) {
			setup(cmd)
			cmd.Env = []string{"TMPDIR=" + tmp}
			if cred != nil {
				// The Profile's directory (after --json) is the test's.
				if err := os.Chown(filepath.Dir(cmd.Args[3]), int(cred.Uid), int(cred.Gid)); err != nil {
					t.Fatal(err)
				}
			}
		}, flags, prog, c.argv[1:]...)
		if r.result.profile == nil {
			t.Fatalf("icount wrote no profile; stderr:\n%s", r.result.stderr)
		}
		r.stdout, r.stderr, r.status = r.result.stdout, r.result.stderr, r.result.status
	} else {
		r.stdout, r.stderr, r.status = batteryNative(t, append([]string{prog}, c.argv[1:]...), env, setup)
	}
	r.tree = snapshotTree(t, work, c.ignore)
	return r
}

// batteryProgram finds a program in the cases' PATH (not the test's).
func batteryProgram(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{"/usr/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p
		}
	}
	t.Fatalf("%s is not in /usr/bin or /bin: make deps installs it", name)
	return ""
}

// batteryNative runs argv natively, its environment env, as setup prepares
// the command.
func batteryNative(t *testing.T, argv, env []string, setup func(*exec.Cmd)) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	setup(cmd)
	cmd.Args[0] = filepath.Base(argv[0]) // as icount's guest has it (--argv0)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return out.String(), errb.String(), status
}

// processesDiff names the processes whose counts differ between two runs.
func processesDiff(a, b result) string {
	pa, pb := a.profile.Processes, b.profile.Processes
	if len(pa) != len(pb) {
		return fmt.Sprintf("\n%d processes against %d", len(pa), len(pb))
	}
	var d strings.Builder
	for i := range pa {
		if pa[i].Totals != pb[i].Totals {
			fmt.Fprintf(&d, "\nprocess %d %q: %+v against %+v", i, pa[i].Argv, pa[i].Totals, pb[i].Totals)
			countsDiff(&d, pa[i], pb[i])
		}
	}
	return d.String()
}

// countsDiff writes where two runs of one process differ: the system
// calls whose number differs, by name, and the functions whose own
// instructions or calls differ, so that a difference seen once (a run
// under load) says what to look for.
func countsDiff(d *strings.Builder, a, b profile.Process) {
	names := map[string]bool{}
	for name := range a.Syscalls {
		names[name] = true
	}
	for name := range b.Syscalls {
		names[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if a.Syscalls[name] != b.Syscalls[name] {
			fmt.Fprintf(d, "\n  %s: %d calls against %d", name, a.Syscalls[name], b.Syscalls[name])
		}
	}
	type key struct{ module, name string }
	funcs := map[key][2]profile.FunctionCount{}
	for j, p := range []profile.Process{a, b} {
		for _, f := range p.Functions {
			k := key{f.Module, f.Name}
			pair := funcs[k]
			pair[j] = f
			funcs[k] = pair
		}
	}
	keys := slices.SortedFunc(maps.Keys(funcs), func(x, y key) int {
		return cmp.Or(cmp.Compare(x.module, y.module), cmp.Compare(x.name, y.name))
	})
	for _, k := range keys {
		fa, fb := funcs[k][0], funcs[k][1]
		if fa.Self != fb.Self || fa.Calls != fb.Calls {
			fmt.Fprintf(d, "\n  %s (%s): %d instructions in %d calls against %d in %d", k.name, path.Base(k.module), fa.Self, fa.Calls, fb.Self, fb.Calls)
		}
	}
}

// snapshotTree describes every file under dir by its path: type and
// permissions, and a regular file's contents (unless ignore matches it) or
// a symbolic link's target.
func snapshotTree(t *testing.T, dir string, ignore []string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		switch {
		case info.Mode().IsRegular() && !matchAny(ignore, rel):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		}
		tree[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// matchAny reports whether name matches one of the patterns.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// treeDiff describes how tree got differs from tree want, file by file.
func treeDiff(want, got map[string]string) string {
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range got {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for _, n := range sorted {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			fmt.Fprintf(&b, "%s: missing\n", n)
		case !inWant:
			fmt.Fprintf(&b, "%s: not written natively\n", n)
		case w != g:
			fmt.Fprintf(&b, "%s: %d bytes (native %d)\n%s\n", n, len(g), len(w), clip(firstDiff(w, g)))
		}
	}
	return b.String()
}

// clip shortens a description of a difference to a few hundred bytes.
func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}
