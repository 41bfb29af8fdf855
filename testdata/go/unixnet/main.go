// Command unixnet serves and dials Unix sockets with Go's net package (an
// abstract stream listener, a datagram socket at a path), for
// cmd/icount/unixsock_test.go.
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	l, err := net.Listen("unix", "@icount-go")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	done := make(chan string)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- "accept: " + err.Error()
			return
		}
		buf := make([]byte, 100)
		n, _ := c.Read(buf)
		c.Write([]byte("echo " + string(buf[:n])))
		c.Close()
		done <- "served " + c.RemoteAddr().String()
	}()
	c, err := net.Dial("unix", "@icount-go")
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(1)
	}
	c.Write([]byte("hello"))
	buf := make([]byte, 100)
	n, _ := c.Read(buf)
	fmt.Println(string(buf[:n]), c.LocalAddr(), c.RemoteAddr())
	fmt.Println(<-done)
	p, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: "g.sock", Net: "unixgram"})
	fmt.Println(err)
	q, _ := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: "g.sock", Net: "unixgram"})
	q.Write([]byte("dgram"))
	n, from, err := p.ReadFromUnix(buf)
	fmt.Println(string(buf[:n]), from, err)
	os.Remove("g.sock")
}
