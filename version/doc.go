// Package version is the engine's version, the one place it is written, and
// the version command that prints it (`attest-engine version`, the earlier
// engine's subcommand, ../shared/sdk-compat.md). The server reports it as
// engine_version (spec §2.1); the watch command puts it in every result_id.
package version
