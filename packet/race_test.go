//go:build race

package packet

// raceEnabled lets the budget sweeps sample more coarsely under -race.
const raceEnabled = true
