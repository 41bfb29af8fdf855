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
