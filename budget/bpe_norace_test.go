//go:build !race

package budget

// raceEnabled lets tests skip reference runs that are too slow under -race.
const raceEnabled = false
