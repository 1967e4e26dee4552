package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of one MCP frame (one line of newline-delimited JSON on stdin).
const (
	// MaxMCPFrameBytes bounds a line; a longer one is skipped with an
	// error answer.
	MaxMCPFrameBytes = 16 << 20
	// MaxMCPFrameDepth bounds the nesting of arrays and objects in a frame.
	MaxMCPFrameDepth = 1000
)

// lineTransport is the stdio transport of `lore serve --mcp`: one JSON-RPC
// message a line. Unlike the SDK's IOTransport, a bad line (not JSON, not
// a JSON-RPC message, nested deeper than MaxMCPFrameDepth, longer than
// MaxMCPFrameBytes) is answered with a JSON-RPC error whose id is null,
// and the server reads on.
type lineTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, incoming: make(chan jsonrpc.Message), done: make(chan struct{}), readErr: make(chan error, 1),
		answered: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(t.in, 64<<10))
	return c, nil
}

type lineConn struct {
	writeMu  sync.Mutex
	out      io.Writer
	incoming chan jsonrpc.Message
	readErr  chan error
	done     chan struct{}
	once     sync.Once

	// The calls read and not answered yet: at the end of the input the
	// connection ends only once each has its answer (a client that
	// writes its requests and closes its end of the pipe still gets
	// every reply). answered is closed, and replaced, at each answer.
	pendingMu sync.Mutex
	pending   int
	answered  chan struct{}
}

// readLoop reads lines until the input ends. It ends with the input
// (stdin cannot be interrupted) or, at its next line, after Close.
func (c *lineConn) readLoop(r *bufio.Reader) {
	for {
		line, tooLong, err := readLine(r, MaxMCPFrameBytes)
		if tooLong {
			c.refuse(jsonrpc.CodeParseError, fmt.Sprintf("parse error: frame over %d bytes skipped", MaxMCPFrameBytes))
		} else if msg := c.decode(line); msg != nil {
			select {
			case c.incoming <- msg:
			case <-c.done:
				return
			}
		}
		if err != nil {
			c.readErr <- err
			return
		}
	}
}

// decode turns a line into a message, or answers it with an error and
// returns nil.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if depth(line) > MaxMCPFrameDepth {
		c.refuse(jsonrpc.CodeParseError, fmt.Sprintf("parse error: frame nested deeper than %d", MaxMCPFrameDepth))
		return nil
	}
	if !json.Valid(line) {
		c.refuse(jsonrpc.CodeParseError, "parse error: the frame is not JSON")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.refuse(jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	return msg
}

// refuse writes an error answer with a null id.
func (c *lineConn) refuse(code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = c.out.Write(append(b, '\n'))
}

// readLine reads one line without its newline; a line over max bytes is
// read to its end and reported as too long.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// depth is the deepest nesting of arrays and objects in a JSON text,
// strings skipped.
func depth(b []byte) int {
	d, deepest, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
		case inStr:
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.pendingMu.Lock()
			c.pending++
			c.pendingMu.Unlock()
		}
		return msg, nil
	case err := <-c.readErr:
		c.readErr <- err // every later Read sees it too
		// readLoop hands over every message before the end, so all
		// the calls there will be are counted by now.
		if werr := c.waitAnswered(ctx); werr != nil {
			return nil, werr
		}
		return nil, err
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	_, err = c.out.Write(append(b, '\n'))
	c.writeMu.Unlock()
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.pendingMu.Lock()
		if c.pending > 0 {
			c.pending--
		}
		close(c.answered)
		c.answered = make(chan struct{})
		c.pendingMu.Unlock()
	}
	return err
}

// waitAnswered waits until every call read has been answered, the
// connection is closed, or ctx ends (its error).
func (c *lineConn) waitAnswered(ctx context.Context) error {
	for {
		c.pendingMu.Lock()
		n, answered := c.pending, c.answered
		c.pendingMu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-answered:
		case <-c.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
