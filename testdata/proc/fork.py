# Processes from Python (cmd/icount/process_test.go runs this as python3 -c):
# subprocess.run of a program, of python3 itself and of a shell pipeline,
# a child killed by a signal, os.fork with a pipe, a missing program.
import os, subprocess, sys
r = subprocess.run(["/bin/echo", "from", "a", "subprocess"], capture_output=True, text=True)
print("subprocess.run echo:", r.returncode, r.stdout.strip())
r = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sum(range(1000))); sys.exit(3)"], capture_output=True, text=True)
print("subprocess.run python3:", r.returncode, r.stdout.strip())
r = subprocess.run("echo shell $((6 * 7)) | tr 0-9 a-j; exit 5", shell=True, capture_output=True, text=True)
print("subprocess.run shell=True:", r.returncode, r.stdout.strip())
r = subprocess.run(["/bin/sh", "-c", "kill -TERM $$"])
print("a child killed by SIGTERM:", r.returncode)
rd, wr = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(rd)
    os.write(wr, str(sum(i * i for i in range(100))).encode())
    os._exit(17)
os.close(wr)
data = os.read(rd, 100).decode()
_, st = os.waitpid(pid, 0)
print("os.fork child sent", data, "and exited", os.waitstatus_to_exitcode(st))
try:
    subprocess.run(["/nonexistent/program"])
except FileNotFoundError as e:
    print("missing program:", e.errno == 2)
sys.exit(2)
