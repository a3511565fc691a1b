// Command testpeer is a stdio peer for the transport package's tests. By
// default it echoes every stdin line to stdout byte for byte and exits 0 at
// stdin EOF; flags add misbehaviour.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	var (
		stderr     = flag.String("stderr", "", "write this line to stderr first")
		exitCode   = flag.Int("exit", -1, "exit at once with this code")
		ignoreTerm = flag.Bool("ignore-term", false, "ignore SIGTERM and stdin EOF (print a ready line first)")
		flood      = flag.Int("flood", 0, "write one line of this many bytes, then {\"after\":\"flood\"}, then echo")
		garbage    = flag.Bool("garbage", false, "print garbage lines, then exit 0")
		child      = flag.Bool("child", false, "spawn a child that ignores SIGTERM and print {\"child\":PID}")
		sleep      = flag.Bool("sleep", false, "do nothing until killed")
		env        = flag.String("env", "", "print the value of this environment variable as a line")
		pwd        = flag.Bool("pwd", false, "print the working directory as a line")
	)
	flag.Parse()
	out := os.Stdout

	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *stderr != "" {
		fmt.Fprintln(os.Stderr, *stderr)
	}
	if *exitCode >= 0 {
		os.Exit(*exitCode)
	}
	if *sleep {
		forever()
	}
	if *child {
		cmd := exec.Command(os.Args[0], "-sleep", "-ignore-term")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "testpeer: start child:", err)
			os.Exit(1)
		}
		fmt.Fprintf(out, "{\"child\":%d}\n", cmd.Process.Pid)
	}
	if *env != "" {
		fmt.Fprintf(out, "%s\n", os.Getenv(*env))
	}
	if *pwd {
		wd, _ := os.Getwd()
		fmt.Fprintf(out, "%s\n", wd)
	}
	if *garbage {
		io.WriteString(out, "not json at all\n\n{\"a\":1}\r\n\n   \n{\"unterminated\":true}")
		os.Exit(0)
	}
	if *flood > 0 {
		w := bufio.NewWriterSize(out, 1<<20)
		line := bytes.Repeat([]byte("x"), 1<<20)
		for n := *flood; n > 0; n -= len(line) {
			w.Write(line[:min(n, len(line))])
		}
		w.WriteString("\n{\"after\":\"flood\"}\n")
		w.Flush()
	}
	if *ignoreTerm {
		fmt.Fprintln(out, "ready")
	}

	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			out.Write(line)
		}
		if err != nil {
			break
		}
	}
	if *ignoreTerm {
		forever()
	}
}

// forever blocks until the process is killed: the peer that must be
// escalated to SIGKILL. It waits for a signal nobody sends, since a bare
// select{} would trip the runtime's deadlock detector and exit.
func forever() {
	never := make(chan os.Signal, 1)
	signal.Notify(never, syscall.SIGUSR2)
	for range never {
	}
}
