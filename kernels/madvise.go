package kernels

import "strings"

// madvFreeEnv returns env with madvdontneed=0 added to GODEBUG, and true,
// or env and false where GODEBUG sets madvdontneed already, as a user's
// choice or a re-executed program's (see ReexecMadvFree).
func madvFreeEnv(env []string) ([]string, bool) {
	const key = "GODEBUG="
	out := make([]string, 0, len(env)+1)
	var godebug string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key); ok {
			godebug = v
			continue
		}
		out = append(out, kv)
	}
	for _, setting := range strings.Split(godebug, ",") {
		if strings.HasPrefix(setting, "madvdontneed=") {
			return env, false
		}
	}
	if godebug != "" {
		godebug += ","
	}
	return append(out, key+godebug+"madvdontneed=0"), true
}
