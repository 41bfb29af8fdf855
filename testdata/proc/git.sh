# git init, add and commit in a new repository under the working directory
# (cmd/icount/process_test.go), then the commit's id. The environment
# fixes the author, committer, dates and HOME, so the id is the same on
# every run.
set -e
git init -q -b main repo
cd repo
printf 'hello\n' >hello.txt
mkdir src
printf 'int main(void) { return 0; }\n' >src/main.c
git add hello.txt src
git commit -q -m 'first commit'
printf 'again\n' >>hello.txt
git commit -q -a -m 'second commit'
git log --format=%H
git status --porcelain
