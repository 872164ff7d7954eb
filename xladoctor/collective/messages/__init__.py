"""The collective's messages, read once where they arrive: shapes.py checks a message's shape (a peer's hello, node 0's
reply, a node's outcome, node 0's verdict, a rank's record), then it becomes a frozen dataclass (records.py: what the
ranks write; roll.py: the roll call's hello and reply; outcome.py: a node's outcome, an abort, node 0's verdict), and
its `to_json` is what goes back on the wire, into a fixture or into the report. Pure."""
