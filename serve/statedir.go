// statedir.go: where the session's result history is: --state-dir, the config's state_dir, or
// $ATTEST_STATE_DIR, and what a session does when it cannot have it.

package serve

import (
	"errors"
	"fmt"
	"log/slog"

	"attest-engine/history"
)

// StateDirEnv turns the result history on for an SDK session, which starts the engine with
// --log-level only (../shared/sdk-compat.md).
const StateDirEnv = "ATTEST_STATE_DIR"

// stateDir picks the state dir: the flag, else the config key, else the environment (a config key
// wins over its variable, as for every setting), and names where it came from.
func stateDir(flag, config, env string) (dir, from string) {
	switch {
	case flag != "":
		return flag, "--state-dir"
	case config != "":
		return config, "config state_dir"
	case env != "":
		return env, StateDirEnv
	}
	return "", ""
}

// noHistory is the one warning of a session whose state dir, named by the config or the environment,
// cannot be opened: it runs on without history.
func noHistory(from, dir string, err error) string {
	why := err.Error()
	if _, ok := errors.AsType[*history.InUseError](err); ok {
		why = "another engine is using it (one engine per state dir: a second session at once, such as a parallel test worker, runs without history)"
	}
	return fmt.Sprintf("%s %s: %s; this session keeps no result history (query_drift answers -32601, \"threshold\": \"dynamic\" is an assertion error)", from, dir, why)
}

func closeStore(s *history.Store, logger *slog.Logger) {
	if err := s.Close(); err != nil {
		logger.Error("closing the state dir", "error", err.Error())
	}
}
