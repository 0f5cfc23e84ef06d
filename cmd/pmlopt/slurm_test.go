package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlurmArray runs examples/slurm/curve-array.sh as a real job array:
// it starts munged, slurmctld and slurmd from Debian's packages on
// localhost (one node, no cgroups), submits the order and the value curve
// of a test problem with sbatch --wait --array=1-3, merges the parts with
// the pmlopt binary, and checks the merge against the unsharded curve as
// TestMergeEqualsCurve does. It needs root and the packages slurmctld,
// slurmd, slurm-client and munge, and runs only when PMLOPT_SLURM_TEST is
// set (CI sets it); the daemons are stopped whatever happens.
func TestSlurmArray(t *testing.T) {
	if os.Getenv("PMLOPT_SLURM_TEST") == "" {
		t.Skip("set PMLOPT_SLURM_TEST=1 to run a sharded curve through a one-node Slurm")
	}
	if os.Geteuid() != 0 {
		t.Skip("Slurm's daemons are started as root: run as root")
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (apt-get install slurmd slurmctld slurm-client munge): %v", bin, err)
		}
	}
	start := time.Now()
	dir, err := os.MkdirTemp("", "pmlopt-slurm-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	// munged wants the directories of its socket searchable by all.
	require.NoError(t, os.Chmod(dir, 0o755))
	for _, d := range []string{"state", "spool", "parts-order", "parts-value"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	key := make([]byte, 1024)
	_, err = rand.Read(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400))

	bin := filepath.Join(dir, "pmlopt")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	problemFile, err := filepath.Abs(td + "counting-query.yaml")
	require.NoError(t, err)
	script, err := filepath.Abs("../../examples/slurm/curve-array.sh")
	require.NoError(t, err)

	conf := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte(slurmConf(t, dir)), 0o644))
	env := append(os.Environ(), "SLURM_CONF="+conf)
	daemon := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		log, err := os.Create(filepath.Join(dir, name+".out"))
		require.NoError(t, err)
		cmd.Stdout, cmd.Stderr = log, log
		require.NoError(t, cmd.Start(), name)
		// Cleanups run last first: slurmd stops before slurmctld, both
		// before munged, and the directory goes after them.
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			log.Close()
			if t.Failed() {
				b, _ := os.ReadFile(log.Name())
				t.Logf("%s:\n%s", name, b)
			}
		})
	}
	daemon("munged", "--foreground", "--force", "--key-file="+filepath.Join(dir, "munge.key"),
		"--socket="+filepath.Join(dir, "munge.socket"), "--pid-file="+filepath.Join(dir, "munged.pid"),
		"--log-file="+filepath.Join(dir, "munged.log"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	waitFor(t, 30*time.Second, "munged's socket", func() (bool, string) {
		_, err := os.Stat(filepath.Join(dir, "munge.socket"))
		return err == nil, fmt.Sprint(err)
	})
	daemon("slurmctld", "-D", "-i", "-f", conf)
	daemon("slurmd", "-D", "-N", "localhost", "-f", conf)
	waitFor(t, 120*time.Second, "the node idle in sinfo", func() (bool, string) {
		cmd := exec.Command("sinfo", "-h", "-N", "-o", "%T")
		cmd.Env = env
		b, err := cmd.CombinedOutput()
		s := strings.TrimSpace(string(b))
		return err == nil && s == "idle", s
	})
	t.Logf("Slurm up after %.1f s", time.Since(start).Seconds())

	// Both arrays are in the queue at once: sbatch --wait polls at
	// growing intervals, and the two waits overlap.
	objs := []string{"worst-case-order", "worst-case-value"}
	type submitted struct {
		cmd   *exec.Cmd
		out   bytes.Buffer
		parts string
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var jobs []*submitted
	for _, obj := range objs {
		s := &submitted{parts: filepath.Join(dir, "parts-"+strings.TrimPrefix(obj, "worst-case-"))}
		s.cmd = exec.CommandContext(ctx, "sbatch", "--wait", "--array=1-3", "--chdir="+s.parts,
			"--export=ALL,PMLOPT="+bin, script, problemFile, "--objective", obj)
		s.cmd.Env, s.cmd.Dir = env, s.parts
		s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
		require.NoError(t, s.cmd.Start())
		jobs = append(jobs, s)
	}
	for k, s := range jobs {
		err := s.cmd.Wait()
		logs, _ := filepath.Glob(filepath.Join(s.parts, "*.out"))
		for _, l := range logs {
			lb, _ := os.ReadFile(l)
			if len(bytes.TrimSpace(lb)) > 0 {
				t.Logf("%s: %s", filepath.Base(l), lb)
			}
		}
		require.NoError(t, err, "sbatch: %s", s.out.String())
		var names []string
		for k := 1; k <= 3; k++ {
			names = append(names, filepath.Join(s.parts, fmt.Sprintf("part-%d.jsonl", k)))
		}
		merged, err := exec.Command(bin, append([]string{"merge", problemFile, "--json"}, names...)...).Output()
		require.NoError(t, err, "merge: %s", exitStderr(err))
		whole, stderr, code := cli(t, "curve", problemFile, "--objective", objs[k], "--json", "--quiet")
		require.Equal(t, 0, code, stderr)
		sameCurve(t, whole, string(merged), 1e-9, objs[k]+" through sbatch")
	}
	t.Logf("done after %.1f s", time.Since(start).Seconds())
}

// slurmConf is a one-node cluster on localhost, without cgroups, its state,
// logs and ports its own.
func slurmConf(t *testing.T, dir string) string {
	return fmt.Sprintf(`ClusterName=pmloptci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[1]s/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
ReturnToService=2
MpiDefault=none
NodeName=localhost CPUs=%[4]d State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`, dir, freePort(t), freePort(t), runtime.NumCPU())
}

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls ok every half second until it holds or limit passes.
func waitFor(t *testing.T, limit time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		done, last := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v (last: %s)", what, limit, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return fmt.Sprint(err)
}
