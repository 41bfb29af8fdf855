import os, socket, sys
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    msg = b.recv(100)
    b.sendall(msg.upper() * 3)
    b.close()
    os._exit(0)
b.close()
a.sendall(b"ping")
got = b""
while True:
    chunk = a.recv(5)
    if not chunk:
        break
    got += chunk
os.waitpid(pid, 0)
print("parent got", got)
d1, d2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
d1.send(b"one"); d1.send(b"two")
print(d2.recv(10), d2.recv(1, socket.MSG_PEEK), d2.recv(10))
d1.setblocking(False)
try:
    d2.recv(10, socket.MSG_DONTWAIT)
except BlockingIOError as e:
    print("EAGAIN", e.errno)
print(a.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE), d1.type == socket.SOCK_DGRAM)

# multiprocessing's Pipe (a socketpair) between processes, and a
# descriptor passed over it (SCM_RIGHTS, multiprocessing.reduction).
import multiprocessing as mp
from multiprocessing import reduction


def child(conn):
    conn.send({"n": 42, "s": "from the child"})
    r, w = os.pipe()
    os.write(w, b"through a passed pipe")
    os.close(w)
    reduction.send_handle(conn, r, os.getppid())
    conn.close()


ctx = mp.get_context("fork")
parent_end, child_end = ctx.Pipe()
proc = ctx.Process(target=child, args=(child_end,))
proc.start()
print(parent_end.recv())
fd = reduction.recv_handle(parent_end)
print(os.read(fd, 100), os.get_inheritable(fd))
proc.join()
print("exit", proc.exitcode)

# socket.send_fds and recv_fds, and a subprocess given a socket.
s1, s2 = socket.socketpair()
r, w = os.pipe()
os.write(w, b"fds")
socket.send_fds(s1, [b"m"], [r, w])
msg, fds, flags, addr = socket.recv_fds(s2, 10, 4)
print(msg, len(fds), flags, os.read(fds[0], 3))
import subprocess
out = subprocess.run(["/usr/bin/python3", "-c", "import socket; s = socket.socket(fileno=%d); s.sendall(b'sub'); print(s.type)" % s1.fileno()],
                     pass_fds=[s1.fileno()], capture_output=True)
print(out.stdout, s2.recv(10))
