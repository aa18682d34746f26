// Command startup measures start-up side by side: it starts each command
// in turn, rotating the order every round so that none always follows the
// same one, writes the line in FILE to its stdin and times it from the
// start to the first line it answers. It prints each command's median,
// 10th and 90th percentiles and the median's ratio to the first command's.
//
// Each command's program is first copied into a new directory and run
// from there (-copy=false runs them where they are): how a binary's pages
// sit in the page cache depends on how the file was written, and two
// copies of one program, one just linked and one just copied, were seen
// to start 15% apart.
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
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("n", 500, "rounds: starts of each command")
	fresh := flag.Bool("copy", true, "run a fresh copy of each command's program")
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
	argvs := make([][]string, len(cmds))
	for j, c := range cmds {
		argvs[j] = strings.Fields(c)
	}
	dir := "" // the copies'
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		if dir != "" {
			os.RemoveAll(dir)
		}
		os.Exit(1)
	}
	if *fresh {
		var err error
		if dir, err = os.MkdirTemp("", "startup"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		if err := copyPrograms(dir, argvs); err != nil {
			fail(err)
		}
	}
	took := make([][]time.Duration, len(cmds))
	for i := range *rounds {
		for k := range cmds {
			j := (i + k) % len(cmds)
			d, err := once(argvs[j], line)
			if err != nil {
				fail(fmt.Errorf("%s: %v", cmds[j], err))
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

// copyPrograms copies each distinct program of argvs into dir, the k-th as
// dir/k-NAME, and points the argvs at the copies.
func copyPrograms(dir string, argvs [][]string) error {
	copies := map[string]string{}
	for _, argv := range argvs {
		prog := argv[0]
		if c, ok := copies[prog]; ok {
			argv[0] = c
			continue
		}
		path, err := exec.LookPath(prog)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		c := filepath.Join(dir, fmt.Sprintf("%d-%s", len(copies), filepath.Base(path)))
		if err := os.WriteFile(c, b, 0o755); err != nil {
			return err
		}
		copies[prog], argv[0] = c, c
	}
	return nil
}
