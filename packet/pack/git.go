package pack

import (
	"bytes"
	"context"
	"os/exec"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
)

// fileGitChanged returns the files under dir that differ from HEAD (staged
// or not) plus the untracked ones that are not ignored, as slash paths
// relative to dir. In a repository without commits every tracked file is
// new, so all of them count as changed.
func fileGitChanged(ctx context.Context, dir string) (map[string]bool, error) {
	changed := map[string]bool{}
	add := func(out []byte) {
		// -z: NUL-separated and never quoted, whatever the file names.
		for _, p := range bytes.Split(out, []byte{0}) {
			if len(p) > 0 {
				changed[string(p)] = true
			}
		}
	}
	if _, err := fileGit(ctx, dir, "rev-parse", "--is-inside-work-tree"); err != nil {
		return nil, err
	}
	if _, err := fileGit(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		out, err := fileGit(ctx, dir, "diff", "--name-only", "-z", "--relative", "--no-renames", "HEAD", "--")
		if err != nil {
			return nil, err
		}
		add(out)
	} else {
		out, err := fileGit(ctx, dir, "ls-files", "-z", "--cached")
		if err != nil {
			return nil, err
		}
		add(out)
	}
	out, err := fileGit(ctx, dir, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	add(out)
	return changed, nil
}

// fileGit runs git in dir and returns its stdout; a failure wraps
// ErrGit with git's own message.
func fileGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, badvalue.Errorf(dir, "git diff for %q (is it inside a git work tree?): git %s: %s: %w",
			dir, strings.Join(args, " "), msg, ErrGit)
	}
	return stdout.Bytes(), nil
}
