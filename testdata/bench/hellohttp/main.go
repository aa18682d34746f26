// Command hellohttp is hello linked with what the engine's provider clients
// need (net/http with TLS, encoding/json): the floor for an engine that can
// call providers at all. Package initialization runs whether or not a
// request is ever made.

package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
)

var client = &http.Client{}

func main() {
	line, _ := bufio.NewReader(os.Stdin).ReadBytes('\n')
	if len(os.Args) > 1 { // never: keeps the client linked
		resp, err := client.Get(os.Args[1])
		if err == nil {
			json.NewDecoder(resp.Body).Decode(new(any))
		}
	}
	os.Stdout.Write(line)
}
