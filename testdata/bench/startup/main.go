// Command startup measures start-up side by side: it starts each command
// in turn, rotating the order every round so that none always follows the
// same one, writes the line in FILE to its stdin and times it from the
// start to the first line it answers. It prints each command's median,
// 10th and 90th percentiles and the median's ratio to the first command's.
//
//	go run ./testdata/bench/startup [-n ROUNDS] FILE 'CMD ARGS' 'CMD ARGS'...
//
// docs/performance.md has the commands and the figures.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("n", 500, "rounds: starts of each command")
	flag.Parse()
	if flag.NArg() < 3 {
		fmt.Fprintln(os.Stderr, "usage: startup [-n ROUNDS] FILE 'CMD ARGS' 'CMD ARGS'...")
		os.Exit(2)
	}
	line, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmds := flag.Args()[1:]
	took := make([][]time.Duration, len(cmds))
	for i := range *rounds {
		for k := range cmds {
			j := (i + k) % len(cmds)
			d, err := once(strings.Fields(cmds[j]), line)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmds[j], err)
				os.Exit(1)
			}
			took[j] = append(took[j], d)
		}
	}
	var base time.Duration
	for j, c := range cmds {
		t := took[j]
		slices.Sort(t)
		med := t[len(t)/2]
		if j == 0 {
			base = med
		}
		fmt.Printf("%-36s median %5.2f ms  p10 %5.2f ms  p90 %5.2f ms  %.2f×\n", c, ms(med), ms(t[len(t)/10]), ms(t[len(t)*9/10]), float64(med)/float64(base))
	}
}

// once starts argv, writes line and times the first line of its answer.
func once(argv []string, line []byte) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	defer in.Close()
	// A command may answer without reading (--version): a write to its
	// closed stdin is not an error here.
	_, _ = in.Write(line)
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
