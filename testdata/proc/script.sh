# A bash script that starts processes every way a script does
# (cmd/icount/process_test.go): pipelines, command substitution, a
# subshell, a background job it waits for, a function in a pipeline.
# It prints nothing that depends on pids or the host; it writes scratch
# files in the working directory and exits 4.
set -u

words=$(printf '%s\n' pear apple fig apple pear apple | sort | uniq -c | sort -rn | head -2 | tr -s ' ')
echo "pipeline:" $words
false | true
echo "PIPESTATUS: ${PIPESTATUS[*]}"
echo "command substitution: $(seq 1 1000 | wc -l), nested $(echo "$(echo inner | tr a-z A-Z)")"

(cd / && echo "subshell in $(pwd)"; exit 3)
echo "subshell exited $?, still in the start directory: $([ "$(pwd)" = "$PWD" ] && echo yes)"

seq 1 20000 | md5sum >bg.out &
job=$!
wait "$job"
echo "background job exited $?: $(cat bg.out)"

( sleep 0; exit 9 ) &
wait $!
echo "second background job exited $?"

shout() { while read -r line; do echo "${line^^}"; done; }
printf 'one\ntwo\n' | shout | paste -sd, -

total=0
for i in $(seq 1 50); do total=$((total + i)); done
echo "sum 1..50: $total"
echo "xargs: $(printf '%s\n' 3 1 2 | xargs -n1 expr 10 + | sort -n | paste -sd' ' -)"
exit 4
