// Command unwind leaves frames the ways a Go program does, in a loop, for
// icount's calling-context tree (cmd/icount/unwind_test.go): the Go twin
// of testdata/c/unwind.c.
//
//	unwind MODE
//
// Each of 200 rounds, all in one frame of rounds, calls work(i) and then
// goes dive(16) deep, where MODE says how it leaves: return (the same work
// with no unusual exit), panic (recovered by the round's deferred call),
// grow (each round on a new goroutine, whose 16 frames of dive outgrow its
// first stack, so that it grows: the frames move to a larger one), switch
// (as grow, and at the bottom of dive the goroutine waits on a channel for
// another goroutine, itself deep in calls, to answer: the goroutines of
// every round reuse the ended ones' runtime structures, and switch threads
// while their frames are in use). At the end it prints a checksum.
package main

import (
	"fmt"
	"os"
)

const nrounds, depth = 200, 16

var sink uint32

//go:noinline
func work(i int) {
	for j := 0; j < 20; j++ {
		sink += uint32(i*j) ^ sink>>3
	}
}

var ping, pong = make(chan uint32), make(chan uint32)

//go:noinline
func leave(mode string) {
	switch mode {
	case "panic":
		panic("out")
	case "switch":
		ping <- sink
		sink ^= <-pong
	}
}

// echo answers each ping from depth n calls down.
//
//go:noinline
func echo(n int) {
	if n > 0 {
		echo(n - 1)
		return
	}
	for v := range ping {
		pong <- v>>1 + 7
	}
}

//go:noinline
func dive(n int, mode string) {
	var pad [256]byte // 16 frames of this need more than a new goroutine's first 8 KiB
	pad[n%256] = byte(n)
	sink += uint32(n) + uint32(pad[(n+1)%256])
	if n == 0 {
		leave(mode)
	} else {
		dive(n-1, mode)
	}
	sink -= uint32(n)
}

//go:noinline
func round(mode string) {
	defer func() { recover() }()
	dive(depth, mode)
}

//go:noinline
func rounds(mode string) {
	if mode == "switch" {
		go echo(depth)
	}
	for i := 0; i < nrounds; i++ {
		work(i)
		if mode == "grow" || mode == "switch" {
			done := make(chan bool)
			go func() { dive(depth, mode); done <- true }()
			<-done
		} else {
			round(mode)
		}
	}
}

func main() {
	if len(os.Args) != 2 {
		os.Exit(2)
	}
	rounds(os.Args[1])
	fmt.Println(os.Args[1], sink)
}
