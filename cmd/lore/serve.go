package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/lorekeep/lore/server"
	"github.com/spf13/cobra"
)

// envToken names the environment variable that holds the HTTP bearer
// token (so it does not show in the process list).
const envToken = "LORE_TOKEN"

// serveFlags are the flags of `lore serve`.
type serveFlags struct {
	mcpMode   bool
	addr      string
	token     string
	ns        string
	maxOutput int
	limits    server.Options
	keepOpen  time.Duration
}

func newServeCommand(a *app) *cobra.Command {
	var sf serveFlags
	c := &cobra.Command{
		Use:   "serve [--mcp | --http ADDR] [flags]",
		Short: "Serve the store to agents: MCP over stdio, or a JSON API over HTTP",
		Long: `Serve the store.

--mcp speaks the Model Context Protocol on stdin/stdout: Lore's tools
(put_record, get_record, search, link, unlink, neighbors, forget,
build_packet, list_namespaces, stats) and the reference MCP memory server's
(create_entities, create_relations, add_observations, delete_entities,
delete_observations, delete_relations, read_graph, search_nodes,
open_nodes). Every tool result stays under --max-output tokens; what does
not fit is named in a deferral note.

--http ADDR (the default mode, on 127.0.0.1:7077) serves the same as a JSON
API. Listening off loopback requires a bearer token (--token or $LORE_TOKEN).
Each request must arrive within --read-timeout and be answered within
--write-timeout; an idle connection is closed after --idle-timeout, and at
most --max-conns connections are served at once (more wait to be accepted).
SIGINT or SIGTERM shuts it down after the requests in flight (at most 10s),
then it exits 130 or 143.

The store is opened per request (read-only for reads, for writing only
while a write runs), so several servers, one per MCP client, share one
store; a write waits up to --lock-timeout (default here 5s) for another.
--ns confines the server to one namespace; without it, requests that name
none use "memory".`,
		Example: `  lore serve --mcp
  lore serve --mcp --ns agent/alice --max-output 8000
  lore serve --http 127.0.0.1:7077
  LORE_TOKEN=s3cret lore serve --http 0.0.0.0:7077`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return a.runServe(c, &sf)
		},
	}
	f := c.Flags()
	f.BoolVar(&sf.mcpMode, "mcp", false, "speak the Model Context Protocol on stdin/stdout")
	f.StringVar(&sf.addr, "http", server.DefaultHTTPAddr, "serve the JSON API on this host:port")
	f.StringVar(&sf.token, "token", "", "HTTP bearer token, required off loopback (default $"+envToken+")")
	f.StringVar(&sf.ns, "ns", "", "the one namespace this server may touch (default: any; \""+server.DefaultMemoryNS+"\" when a request names none)")
	f.DurationVar(&sf.limits.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "HTTP: time to read one request, body included")
	f.DurationVar(&sf.limits.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "HTTP: time to answer one request, after its headers")
	f.DurationVar(&sf.limits.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "HTTP: close a kept-alive connection idle this long")
	f.IntVar(&sf.limits.MaxConns, "max-conns", server.DefaultMaxConns, "HTTP: requests handled at once (a request takes a slot once its body has arrived; 16 connections a slot)")
	f.IntVar(&sf.maxOutput, "max-output", server.DefaultMaxOutput, fmt.Sprintf("token ceiling of every answer (at least %d)", server.MinMaxOutput))
	f.DurationVar(&sf.keepOpen, "keep-open", server.DefaultIdle, "keep the store open this long after the last request (0: every request opens and closes it); it is given back at once to another process that waits for it")
	f.DurationVar(&sf.limits.Lease, "lease", server.DefaultLease, "keep the store open at most this long at one stretch, then close it for 60 ms so that any waiting process gets in")
	return c
}

// runServe serves the store over MCP on stdio (--mcp) or HTTP until the
// context ends.
func (a *app) runServe(c *cobra.Command, sf *serveFlags) error {
	dir, err := a.serveOptions(c, sf)
	if err != nil {
		return err
	}
	s, err := server.New(dir, &sf.limits)
	if err != nil {
		return err
	}
	defer s.Close()
	scope := s.Options().NS
	if scope == "" {
		scope = "any (default " + server.DefaultMemoryNS + ")"
	}
	if sf.mcpMode {
		a.note("lore: serving MCP on stdio: store %s, namespace %s, max output %d tokens\n", dir, scope, s.Options().MaxOutput)
		return s.ServeMCP(c.Context(), a.streams.in, a.streams.out)
	}
	// Let the graceful shutdown run its course after a signal.
	a.streams.grace.Store(int64(server.ShutdownTimeout + time.Second))
	return s.ListenHTTP(c.Context(), sf.addr, func(at net.Addr) {
		a.note("lore: listening on http://%s: store %s, namespace %s, max output %d tokens\n", at, dir, scope, s.Options().MaxOutput)
	})
}

// serveOptions checks the flags, completes sf.limits from them and returns
// the store's directory; a bad flag is a usage error.
func (a *app) serveOptions(c *cobra.Command, sf *serveFlags) (string, error) {
	httpMode := c.Flags().Changed("http")
	if sf.mcpMode && httpMode {
		return "", usageError(c, errors.New("--mcp and --http both given; choose one"))
	}
	if sf.token == "" {
		sf.token = os.Getenv(envToken)
	}
	dir, err := a.storeDir()
	if err != nil {
		return "", err
	}
	opts := &sf.limits
	opts.NS, opts.MaxOutput, opts.Token = sf.ns, sf.maxOutput, sf.token
	if c.Flags().Changed("token") || os.Getenv(envToken) != "" {
		if strings.TrimSpace(sf.token) == "" {
			return "", usageError(c, errors.New("--token (or $"+envToken+") is blank; give a token, or none to serve loopback only"))
		}
	}
	if f := c.Flag("lock-timeout"); f != nil && f.Changed {
		opts.LockTimeout = a.lockWait()
	}
	switch {
	case sf.keepOpen < 0:
		return "", usageError(c, fmt.Errorf("--keep-open %v is negative; give 0 to open the store for each request", sf.keepOpen))
	case sf.keepOpen == 0:
		opts.Idle = -1
	default:
		opts.Idle = sf.keepOpen
	}
	if opts.Lease <= 0 {
		return "", usageError(c, fmt.Errorf("--lease %v: want a positive duration such as 1s", opts.Lease))
	}
	return dir, nil
}
