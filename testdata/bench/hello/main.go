// Command hello is BenchmarkStartup's floor: a Go program that answers one
// line with one line, linking nothing beyond what that needs.

package main

import (
	"bufio"
	"os"
)

func main() {
	line, _ := bufio.NewReader(os.Stdin).ReadBytes('\n')
	os.Stdout.Write(line)
}
