// Package shellwords splits a command line into words as a POSIX shell
// does for the quoting Lore writes in the commands it proposes (words
// apart at spaces, '...' literal, \x the character x), so that tests can
// run a proposed line as a user's shell would.
package shellwords

import (
	"fmt"
	"strings"
)

// Split returns the words of line, or an error naming line when a quote
// is left open.
func Split(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("command line %q: unterminated quote", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
