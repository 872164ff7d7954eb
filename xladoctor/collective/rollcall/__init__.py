"""The roll call: before torchrun starts, every node (or rank) says hello to node 0 over TCP on the rendezvous port.

torchrun's static rendezvous only says "Timed out after 600 seconds waiting for clients. 1/2 clients joined." (the
TCPStore server, torch v2.9.0) and a node whose master never answers only "The client socket has timed out after
600000ms while trying to connect to (HOST, PORT)". The roll call names who is missing, from which host the others
waited and for how long, catches nodes that disagree about the job (node count, duplicate ranks), and tells every
node the backends to test. Its connections stay open while torchrun runs, so each node can send node 0 how its own
launch ended (the outcome) even when the process group never formed.

Node 0 listens on the port before torchrun does and closes the listener before starting it; torchrun's TCPStore
binds with SO_REUSEADDR (libuv and the legacy backend both rebind while our accepted connections are open: tried on
torch 2.9.0). A line of JSON per message, each bounded in size and nesting (channel.py), its shape checked where it
arrives (messages/); node 0 reads every connection at once, each with its own buffer and deadline (door.py), so no
peer (a port scanner, a flood of connections, a node that connects and says nothing) can hold it past its deadline.

channel.py   one JSON object per line over a socket, bounded
door.py      node 0's listener and the connections that have not said hello yet
host.py      node 0's side: take the hellos, answer, read the outcomes, tell the verdict
member.py    another node's side: reach node 0, say hello, send the outcome, hear the verdict
watch.py     read the first message of every connection while the ranks run; stop the launch on a fatal one
call.py      this node's part of the roll call, as a run takes it: host it, join it, or none
"""
