package main

import "github.com/spf13/cobra"

// addLaterCommands adds the commands of the index, packet and server.
func addLaterCommands(root *cobra.Command, a *app) {
	root.AddCommand(
		newSearchCommand(a),
		newReindexCommand(a),
		newCheckCommand(a),
		newBackupCommand(a),
		newCountCommand(a),
		newPacketCommand(a),
		newPackCommand(a),
		newDemoCommand(a),
		newServeCommand(a),
	)
}
