package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `timeout 8 pmlopt curve ...` delivers its SIGTERM twice, to the process
// and to its process group, within microseconds: the run must take it for
// one stop and write its settled points, marked partial, not abandon them
// as it does at a second signal that a user sends later. The kernel merges
// two SIGTERMs that are pending at once, which timeout's may or may not
// be; a SIGTERM and a SIGHUP sent back to back both arrive, always.
func TestSignalDeliveredTwiceAtOnceIsOneStop(t *testing.T) {
	bin := buildCLI(t)
	// The value curve of a 300-letter counting query spends seconds in
	// one LP that does not poll the run's context: the echo comes while
	// the run is still inside it.
	path := filepath.Join(t.TempDir(), "counting.yaml")
	out, err := exec.Command(bin, "new", "--letters", "300", "--utility", "counting", "--prior", "binomial:0.3",
		"--epsilon", "1", "--objective", "worst-case-value", "-o", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	stdout, stderr, code := stopMidCurveWith(t, bin, []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP},
		"curve", path, "--workers", "1", "--solver", "revised", "--csv")
	require.Equal(t, exitStopped, code, "stderr: %s", stderr)
	assert.NotContains(t, stderr, "a second signal")
	// Either signal may be the one the run sees first.
	assert.Regexp(t, `stopped by SIG(TERM|HUP): interrupted: `, stderr)
	first, body, _ := strings.Cut(stdout, "\n")
	assert.Regexp(t, `^# partial curve, stopped by SIG(TERM|HUP): `, first)
	assert.True(t, strings.HasPrefix(body, "threshold,"), "the settled points follow: %q", body)
}
